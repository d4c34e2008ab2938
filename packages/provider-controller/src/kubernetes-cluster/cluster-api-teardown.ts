/**
 * Teardown of a ClusterAPI cluster behind the finalizer, each step
 * confirmed gone by the API server before the next: the Cluster API Cluster
 * (Cluster API deletes its machines and what it refers to first), then what
 * the template made that Cluster API did not delete with it, then the
 * tenant's kubeconfig Secret and, after the tenant's last cluster, the
 * tenant namespace.
 *
 * Only objects with this cluster's owner marks are deleted: one of the name
 * that is not ours is left alone. The template's objects are found by
 * rendering the template set again; when it is gone or no longer renders
 * by then, what it made stays until the tenant namespace goes. With `--cluster-api` off nothing
 * of Cluster API is looked at (the controller has no access to it then).
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CLUSTER_API_CLUSTER, clusterObjectNames, tenantNamespace, type ClusterObjectNames } from "@edgeconnect/provisioning";
import type { DeepReadonly } from "@edgeconnect/runtime";
import type { InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { ownedBy } from "../infrastructure/owner.js";
import { planClusterApi, templateKinds, type ClusterApiContext } from "./cluster-api-provision.js";
import { deleteKubeconfig } from "./kubeconfig-secret.js";
import type { Pass, ProvisionContext } from "./provision.js";
import type { StatusReport } from "./status-report.js";
import { stillDeleting } from "./teardown.js";
import { ownsNamespace, releaseNamespace } from "./tenant-namespace.js";

export async function teardownClusterApi(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number } | undefined> {
  const { request } = pass;
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  const namespace = tenantNamespace(request.cluster).name;
  const ours = await ownsNamespace(pass.writes, namespace, request.cluster);
  if (ours && context.clusterApi !== undefined) {
    if (await deleteOwned(pass, namespace, [{ kind: CLUSTER_API_CLUSTER, name: names.clusterApiCluster }])) return stillDeleting(pass, report, "deleting the cluster");
    if (await deleteOwned(pass, namespace, await templateObjects(context.clusterApi, pass, kc, names))) return stillDeleting(pass, report, "deleting what the cluster's template set made");
  }
  await deleteKubeconfig(pass, names.kubeconfigSecret);
  if (ours) await releaseNamespace(context, pass, namespace);
  return undefined;
}

interface Named {
  readonly kind: InfraKind;
  readonly name: string;
}

/** The objects of the cluster's template, last first; none when the template set no longer renders. */
async function templateObjects(context: ClusterApiContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, names: ClusterObjectNames): Promise<Named[]> {
  const plan = planClusterApi(context, pass.request, kc, names);
  if (!plan.ok) return [];
  const kinds = await templateKinds(pass.writes, plan.objects);
  if (!kinds.ok) return [];
  return kinds.resources.map(({ kind, resource }) => ({ kind, name: resource.metadata.name })).reverse();
}

/** Deletes each of `objects` made for the pass's cluster; true while any of them still exists. */
async function deleteOwned(pass: Pass, namespace: string, objects: readonly Named[]): Promise<boolean> {
  let remaining = false;
  for (const { kind, name } of objects) {
    const found = await pass.writes.get<KubeObject>(kind, namespace, name);
    if (found === undefined || !ownedBy(found, pass.request)) continue;
    // Already being deleted: asking again changes nothing, and it is there until its finalizers are done.
    if (found.metadata?.deletionTimestamp !== undefined) remaining = true;
    else remaining = !(await pass.writes.delete(kind, namespace, name)) || remaining;
  }
  return remaining;
}
