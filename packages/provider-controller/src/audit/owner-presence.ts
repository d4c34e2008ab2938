/**
 * Whether the owners the orphan audit found on the infrastructure cluster
 * still exist in their workspaces: the cache first, kcp only for what the
 * cache does not show.
 *
 * The cache can lag a deletion but never invents an object, so what it shows
 * is counted present: at worst a just-deleted cluster's infrastructure is
 * found one audit later. Absence, which may lead to a deletion, is only ever
 * what kcp answers live (a 404 naming the cluster, from a workspace that binds
 * the export). Those calls run a few at a time: an audit of a thousand tenants
 * that asked every workspace at once took kcp's request budget from every
 * tenant's reconciles (HTTP 429) for as long as it ran.
 */
import { collectionPath, KUBERNETES_CLUSTER_RESOURCE } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { requestKey, type ApiExportSource, type ClusterScope, type ControllerLogger, type Request, type WatchedResource } from "@edgeconnect/runtime";
import { kubernetesClusterPath } from "../tenant/tenant-resources.js";
import type { Presence } from "./orphans.js";

/** Live calls of one audit in flight at once. */
export const AUDIT_CONCURRENCY = 4;

export interface OwnerPresenceOptions {
  readonly source: Pick<ApiExportSource, "scopeFor">;
  /** The watched KubernetesClusters, read through each workspace's scope. */
  readonly clusters: WatchedResource<KubeObject>;
  /** The workspaces that bind the export now: elsewhere a 404 may mean "not served", not "gone". */
  readonly bound: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly logger: Pick<ControllerLogger, "info">;
  readonly concurrency?: number;
}

export interface Presences {
  /** By `requestKey` of the owning KubernetesCluster. */
  readonly clusters: Map<string, Presence>;
  /** By logical cluster: whether it has any KubernetesCluster left. */
  readonly workspaces: Map<string, Presence>;
  /** The calls made to kcp. */
  readonly asked: number;
}

export async function ownerPresence(owners: readonly Request[], tenants: readonly string[], options: OwnerPresenceOptions, signal: AbortSignal): Promise<Presences> {
  const clusters = new Map<string, Presence>();
  const workspaces = new Map<string, Presence>();
  const live: (() => Promise<void>)[] = [];
  // Each call gets its own deadline (withTimeout) when it starts, not when it is queued.
  const scope = (cluster: string): ClusterScope | undefined => (options.bound.has(cluster) ? options.source.scopeFor(cluster, signal) : undefined);

  for (const owner of owners) {
    const key = requestKey(owner);
    const tenant = scope(owner.cluster);
    if (tenant === undefined) clusters.set(key, "unknown");
    else if (tenant.lister(options.clusters).get(owner.namespace, owner.name) !== undefined) clusters.set(key, "present");
    else
      live.push(async () => {
        clusters.set(key, await askCluster(tenant, owner, options));
      });
  }
  for (const cluster of tenants) {
    const tenant = scope(cluster);
    if (tenant === undefined) workspaces.set(cluster, "unknown");
    else if (tenant.lister(options.clusters).list().length > 0) workspaces.set(cluster, "present");
    else
      live.push(async () => {
        workspaces.set(cluster, await askWorkspace(tenant, options));
      });
  }
  await inTurn(live, options.concurrency ?? AUDIT_CONCURRENCY, signal);
  return { clusters, workspaces, asked: live.length };
}

async function askCluster(tenant: ClusterScope, owner: Request, options: OwnerPresenceOptions): Promise<Presence> {
  try {
    await tenant.client.withTimeout(options.timeoutMs).get(kubernetesClusterPath(owner.namespace, owner.name));
    return "present";
  } catch (err) {
    // A 404 for the object names it; one for a resource the server does not serve (yet, or any more) does not.
    if (err instanceof HttpStatusError && err.status === 404 && err.statusObject?.details?.["name"] === owner.name) return "absent";
    options.logger.info({ err, cluster: owner.cluster }, "orphan audit: no clear answer about a KubernetesCluster; counted as unknown");
    return "unknown";
  }
}

async function askWorkspace(tenant: ClusterScope, options: OwnerPresenceOptions): Promise<Presence> {
  try {
    const list = await tenant.client.withTimeout(options.timeoutMs).list(collectionPath(KUBERNETES_CLUSTER_RESOURCE), { query: { limit: 1 } });
    return list.items.length === 0 ? "absent" : "present";
  } catch (err) {
    options.logger.info({ err, cluster: tenant.cluster }, "orphan audit: no clear answer about a workspace's KubernetesClusters; counted as unknown");
    return "unknown";
  }
}

/** Runs `tasks` with at most `concurrency` at once; once `signal` aborts, starts no more. The tasks never reject. */
async function inTurn(tasks: readonly (() => Promise<void>)[], concurrency: number, signal: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !signal.aborted) await tasks[next++]?.();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
}
