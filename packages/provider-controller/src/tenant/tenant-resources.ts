/**
 * What the controller watches in tenants' workspaces through the APIExport's
 * virtual workspace: our three kinds and the claimed Secrets that carry
 * SECRET_LABEL (the claim's default selector; selected here too, so that a
 * binding that accepted every Secret still shows us only those). The handles
 * are made once by the manager (with its event handlers) and passed to the
 * reconcilers, whose listers they key.
 */
import {
  collectionPath,
  KUBERNETES_CLUSTER_RESOURCE,
  MACHINE_CAPABILITIES_RESOURCE,
  objectPath,
  PROVIDER_CONFIG_RESOURCE,
  SECRET_LABEL,
  type KubernetesCluster,
  type MachineCapabilities,
  type PlatformResource,
  type ProviderConfig,
} from "@edgeconnect/api";
import { clusterOf, type KubeObject } from "@edgeconnect/kcp-ts";
import { kubeconfigSecretName } from "@edgeconnect/provisioning";
import type { DeepReadonly, EventHandlers, Indexer, WatchedResource } from "@edgeconnect/runtime";
import { CLUSTER_QUOTA_EXCEEDED } from "./cluster-quota.js";

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface TenantResources {
  readonly clusters: WatchedResource<KubernetesCluster & KubeObject>;
  readonly providerConfigs: WatchedResource<ProviderConfig & KubeObject>;
  readonly capabilities: WatchedResource<MachineCapabilities & KubeObject>;
  readonly secrets: WatchedResource<Secret>;
}

export interface TenantHandlers {
  readonly clusters?: EventHandlers<KubernetesCluster & KubeObject>;
  readonly providerConfigs?: EventHandlers<ProviderConfig & KubeObject>;
  readonly capabilities?: EventHandlers<MachineCapabilities & KubeObject>;
  readonly secrets?: EventHandlers<Secret>;
}

/**
 * The indexes an event mapper looks objects up by, so that a change finds
 * what it concerns without a scan of every tenant's objects. Values name
 * the referenced object within its tenant: `refKey(cluster, namespace, name)`.
 */
export const INDEX = {
  /** KubernetesClusters by the ProviderConfig they name. */
  clustersByConfig: "by-provider-config",
  /** KubernetesClusters by the MachineCapabilities they name. */
  clustersByCapabilities: "by-machine-capabilities",
  /** Cluster API KubernetesClusters by template set (the platform's, so not per tenant). */
  clustersByTemplateSet: "by-template-set",
  /** KubernetesClusters by the kubeconfig Secret the controller writes for them. */
  clustersByKubeconfigSecret: "by-kubeconfig-secret",
  /** KubernetesClusters not Ready, under one value: the ones a flavor catalogue change can help. */
  clustersWaiting: "waiting",
  /** KubernetesClusters held back by the workspace's cluster quota, by logical cluster: the ones another cluster's deletion admits. */
  clustersOverQuota: "over-quota",
  /** ProviderConfigs by the Secret of their credentials (always in their own namespace). */
  configsBySecret: "by-credentials-secret",
} as const;

export const WAITING = "waiting";

/** An object of a tenant's namespace, as the indexes file references to it. */
export function refKey(cluster: string, namespace: string, name: string): string {
  return `${cluster}/${namespace}/${name}`;
}

/** The reference `name` in the namespace of `obj`, keyed like `refKey`; none when there is no name. */
function sameNamespaceRef(obj: DeepReadonly<KubeObject>, name: string | undefined): readonly string[] {
  return name === undefined || name === "" ? [] : [refKey(clusterOf(obj) ?? "", obj.metadata?.namespace ?? "", name)];
}

type ClusterObject = KubernetesCluster & KubeObject;

// An indexer that throws keeps the object out of the cache; a name the API server took always derives one, but a cache must not depend on it.
function kubeconfigSecretOf(name: string | undefined): string | undefined {
  try {
    return name === undefined ? undefined : kubeconfigSecretName(name);
  } catch {
    return undefined;
  }
}

const clusterIndexers: Readonly<Record<string, Indexer<ClusterObject>>> = {
  [INDEX.clustersByConfig]: (kc) => sameNamespaceRef(kc, kc.spec?.providerRef.configRef?.name),
  [INDEX.clustersByCapabilities]: (kc) => sameNamespaceRef(kc, kc.spec?.machineCapabilitiesRef.name),
  [INDEX.clustersByTemplateSet]: (kc) => (kc.spec?.providerRef.type === "ClusterAPI" && kc.spec.providerRef.templateSet ? [kc.spec.providerRef.templateSet] : []),
  [INDEX.clustersByKubeconfigSecret]: (kc) => sameNamespaceRef(kc, kubeconfigSecretOf(kc.metadata?.name)),
  [INDEX.clustersWaiting]: (kc) => (kc.status?.phase === "Ready" ? [] : [WAITING]),
  [INDEX.clustersOverQuota]: (kc) =>
    kc.status?.conditions?.some((c) => c.type === "Ready" && c.reason === CLUSTER_QUOTA_EXCEEDED) === true ? [clusterOf(kc) ?? ""] : [],
};

const configIndexers: Readonly<Record<string, Indexer<ProviderConfig & KubeObject>>> = {
  // A ProviderConfig reads Secrets of its own namespace only (tenant-credentials.ts).
  [INDEX.configsBySecret]: (pc) => sameNamespaceRef(pc, pc.spec?.credentials.secretRef?.name),
};

export function tenantResources(handlers: TenantHandlers): TenantResources {
  const watched = <T extends KubeObject>(
    name: string,
    path: string,
    h: EventHandlers<T> | undefined,
    extra: { labelSelector?: string; indexers?: Readonly<Record<string, Indexer<T>>> } = {},
  ): WatchedResource<T> => ({
    name,
    path: `/clusters/*${path}`,
    ...extra,
    ...(h ? { handlers: h } : {}),
  });
  const ours = <T extends KubeObject>(resource: PlatformResource, h: EventHandlers<T> | undefined, indexers?: Readonly<Record<string, Indexer<T>>>): WatchedResource<T> =>
    watched(resource.plural, collectionPath(resource), h, indexers === undefined ? {} : { indexers });
  return {
    clusters: ours(KUBERNETES_CLUSTER_RESOURCE, handlers.clusters, clusterIndexers),
    providerConfigs: ours(PROVIDER_CONFIG_RESOURCE, handlers.providerConfigs, configIndexers),
    capabilities: ours(MACHINE_CAPABILITIES_RESOURCE, handlers.capabilities),
    secrets: watched("secrets", "/api/v1/secrets", handlers.secrets, { labelSelector: `${SECRET_LABEL.key}=${SECRET_LABEL.value}` }),
  };
}

export function kubernetesClusterPath(namespace: string, name: string): string {
  return objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name);
}

export function providerConfigPath(namespace: string, name: string): string {
  return objectPath(PROVIDER_CONFIG_RESOURCE, namespace, name);
}
