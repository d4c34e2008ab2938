/**
 * How many clusters one workspace may have made: each KubernetesCluster
 * becomes a handful of cloud resources, a ProviderConfig, Secrets and
 * reconciles, so a workspace that creates thousands would take the
 * controller every tenant shares. Clusters are admitted oldest first; one
 * beyond the bound waits, with a condition that says so, until an older
 * one is deleted. A cluster that already has infrastructure is never
 * refused by this (lowering the bound must not strand running clusters).
 */
import type { DeepReadonly } from "@edgeconnect/runtime";

export const DEFAULT_MAX_CLUSTERS_PER_WORKSPACE = 100;

/** The Ready reason of a cluster held back: indexed (tenant-resources.ts), so that a deletion in its workspace wakes it. */
export const CLUSTER_QUOTA_EXCEEDED = "ClusterQuotaExceeded";

interface Ordered {
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly creationTimestamp?: string; readonly deletionTimestamp?: string };
}

/** Whether `self` is among the first `max` of the workspace's live clusters, oldest first (then by namespace and name). */
export function withinClusterQuota(clusters: readonly DeepReadonly<Ordered>[], self: DeepReadonly<Ordered>, max: number): boolean {
  const key = (obj: DeepReadonly<Ordered>): string => `${obj.metadata?.creationTimestamp ?? ""}\0${obj.metadata?.namespace ?? ""}\0${obj.metadata?.name ?? ""}`;
  const own = key(self);
  let older = 0;
  for (const other of clusters) {
    if (other.metadata?.deletionTimestamp !== undefined) continue;
    if (key(other) < own && ++older >= max) return false;
  }
  return true;
}
