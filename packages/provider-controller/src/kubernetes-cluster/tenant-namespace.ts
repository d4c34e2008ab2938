/**
 * The tenant's namespace `kcp-<fingerprint>` on the infrastructure cluster,
 * shared by all of a workspace's clusters whatever their provider type:
 * claimed before anything is written into it, released after the last of
 * them is gone.
 */
import { CLUSTER_API_CLUSTER, MANAGED_BY, MANAGED_BY_LABEL, MANAGED_RESOURCE_KINDS, namespaceOwner, REASON, type TenantNamespace } from "@edgeconnect/provisioning";
import { NAMESPACES, type InfrastructureWrites } from "../infrastructure/infrastructure-cluster.js";
import type { Pass, ProvisionContext } from "./provision.js";
import type { StatusReport } from "./status-report.js";

/** Creates the namespace of the tenant, or confirms it is the tenant's; false if another workspace holds it. */
export async function claimNamespace(writes: InfrastructureWrites, namespace: TenantNamespace, cluster: string): Promise<boolean> {
  const desired = { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace.name, labels: namespace.labels, annotations: namespace.annotations } };
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = (await writes.getNamespace(namespace.name)) ?? (await writes.createNamespace(desired));
    if (existing !== undefined) return namespaceOwner(existing, cluster) === "ours";
  }
  throw new Error(`namespace ${namespace.name} appeared and vanished while it was being created; retrying`);
}

/**
 * claimNamespace, refusing the cluster on `report` when another workspace
 * holds the namespace: the same words for every provider type, since the
 * namespace is shared by all of them. False when refused; nothing may be
 * written then.
 */
export async function claimNamespaceOrRefuse(writes: InfrastructureWrites, namespace: TenantNamespace, cluster: string, report: StatusReport): Promise<boolean> {
  if (await claimNamespace(writes, namespace, cluster)) return true;
  report.refuse(REASON.TenantNamespaceConflict, "the infrastructure namespace of this workspace belongs to another workspace; nothing was created. Contact the platform team");
  return false;
}

/**
 * Whether the namespace exists and is the tenant's: teardown touches nothing
 * in one that is not, since nothing of ours can be in it.
 */
export async function ownsNamespace(writes: InfrastructureWrites, namespace: string, cluster: string): Promise<boolean> {
  const existing = await writes.getNamespace(namespace);
  return existing !== undefined && namespaceOwner(existing, cluster) === "ours";
}

/**
 * Deletes the namespace once the tenant has no other cluster and nothing of
 * ours is left in it: a namespace deleted around managed resources or
 * Cluster API objects hangs in Terminating. What is left is asked of the
 * API server, not the caches: one created a moment ago may not be in them.
 */
export async function releaseNamespace(context: Pick<ProvisionContext, "resources" | "clusterApi">, pass: Pass, namespace: string): Promise<void> {
  const { request } = pass;
  const otherClusters = pass.scope
    .lister(context.resources.clusters)
    .list()
    .filter((other) => !(other.metadata?.namespace === request.namespace && other.metadata?.name === request.name));
  if (otherClusters.length > 0) return;
  // The kinds the caches watch, by the label they select on; Cluster API's only where it is offered (and may be served).
  const kinds = [...MANAGED_RESOURCE_KINDS, ...(context.clusterApi === undefined ? [] : [CLUSTER_API_CLUSTER])];
  const left = await Promise.all(kinds.map(async (kind) => (await pass.writes.list(kind, namespace, { [MANAGED_BY_LABEL]: MANAGED_BY })).length));
  if (left.every((count) => count === 0)) await pass.writes.delete(NAMESPACES, undefined, namespace);
}
