/**
 * What a KubernetesCluster became, as a tree: the cluster, its tenant
 * namespace on the infrastructure cluster, and each managed resource (or
 * Cluster API object) with its Synced and Ready conditions, the state
 * provisioning reads from them, and its cloud id.
 *
 * The tenant view names no infrastructure object: no namespace name, no
 * object name (each is labelled by what it is and its kind), and those names
 * are cut out of the provider's messages too; a tenant sees the steps and
 * its own cloud ids. The platform view has the names.
 */
import { describeManagedKind, MANAGED_RESOURCE_KINDS, managedResourceState, observedId, type ObservedManagedResource } from "@edgeconnect/provisioning";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { conditionView, type Cluster } from "./cluster-view.js";
import type { ConditionView, TreeNode } from "./view-model.js";

export interface InfrastructureObjects {
  /** The tenant namespace's name (tenantNamespace), whether or not it exists. */
  readonly namespaceName: string;
  /** The tenant namespace, undefined when it does not exist (yet, or any more). */
  readonly namespace: KubeObject | undefined;
  /** The managed resources labelled with the cluster's uid, any of MANAGED_RESOURCE_KINDS. */
  readonly managed: readonly ObservedManagedResource[];
  /** Cluster API Clusters labelled with the cluster's uid. */
  readonly clusterApi: readonly (KubeObject & ObservedManagedResource)[];
  /** Why the infrastructure cluster could not be read, when it could not. */
  readonly error?: string;
}

/** Creation order: the network first, the node pool last (MANAGED_RESOURCE_KINDS is teardown order). */
const CREATION_ORDER = [...MANAGED_RESOURCE_KINDS].reverse().map((kind) => kind.kind);
const HIDDEN = "…";

export function infrastructureTree(kc: Cluster, infra: InfrastructureObjects, view: "platform" | "tenant"): TreeNode {
  const names = view === "platform" ? [] : hiddenNames(infra);
  const scrub = (text: string | undefined): string | undefined => (text === undefined ? undefined : names.reduce((out, name) => out.split(name).join(HIDDEN), text));
  const showName = (name: string | undefined): { name?: string } => (view === "platform" && name !== undefined ? { name } : {});

  const resources = [...infra.managed]
    .sort((a, b) => CREATION_ORDER.indexOf(a.kind ?? "") - CREATION_ORDER.indexOf(b.kind ?? "") || (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""))
    .map((resource) => resourceNode(resource, describeManagedKind(resource.kind) ?? "a resource", showName, scrub));
  const clusters = infra.clusterApi.map((cluster) => resourceNode(cluster, "the Cluster API cluster", showName, scrub));

  const namespaceNode: TreeNode =
    infra.error !== undefined
      ? { label: "infrastructure cluster", state: "Unknown", message: infra.error, children: [] }
      : infra.namespace === undefined
        ? { label: "tenant namespace", state: "Absent", message: kc.metadata?.deletionTimestamp === undefined ? "not created yet" : "deleted", children: [] }
        : {
            label: "tenant namespace",
            ...showName(infra.namespace.metadata?.name),
            ...deleting(infra.namespace.metadata?.deletionTimestamp),
            children: [...resources, ...clusters],
          };

  const ready = kc.status?.conditions?.find((c) => c.type === "Ready");
  return {
    label: "KubernetesCluster",
    name: `${kc.metadata?.namespace ?? ""}/${kc.metadata?.name ?? ""}`,
    ...(ready === undefined ? {} : { ready: conditionView(ready) }),
    ...(kc.status?.phase === undefined ? {} : { state: kc.metadata?.deletionTimestamp === undefined ? kc.status.phase : "Deleting" }),
    ...deleting(kc.metadata?.deletionTimestamp),
    children: [namespaceNode],
  };
}

function resourceNode(
  resource: ObservedManagedResource,
  what: string,
  showName: (name: string | undefined) => { name?: string },
  scrub: (text: string | undefined) => string | undefined,
): TreeNode {
  const state = managedResourceState(resource);
  const condition = (type: string): { synced?: ConditionView } | { ready?: ConditionView } | object => {
    const found = resource.status?.conditions?.find((c) => c.type === type);
    if (found === undefined) return {};
    const view = conditionView({ ...found, message: scrub(found.message) ?? "" });
    return type === "Synced" ? { synced: view } : { ready: view };
  };
  const cloudId = observedId(resource);
  return {
    label: `${what} (${resource.kind ?? "?"})`,
    ...showName(resource.metadata?.name),
    ...condition("Synced"),
    ...condition("Ready"),
    state: state.state,
    reason: state.reason,
    message: scrub(state.message) ?? "",
    ...(cloudId === undefined ? {} : { cloudId }),
    ...deleting(resource.metadata?.deletionTimestamp),
    children: [],
  };
}

function deleting(since: string | undefined): { deletingSince?: string } {
  return since === undefined ? {} : { deletingSince: since };
}

/** The infrastructure names a tenant must not read, longest first so that a name containing another is cut whole. */
function hiddenNames(infra: InfrastructureObjects): string[] {
  const names = [infra.namespaceName, infra.namespace?.metadata?.name, ...infra.managed.map((r) => r.metadata?.name), ...infra.clusterApi.map((r) => r.metadata?.name)];
  return [...new Set(names.filter((name): name is string => name !== undefined && name !== ""))].sort((a, b) => b.length - a.length);
}
