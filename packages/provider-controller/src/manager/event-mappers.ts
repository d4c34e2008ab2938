/**
 * Which reconcile requests a change of a tenant's object makes: the
 * KubernetesClusters that use a ProviderConfig, MachineCapabilities or
 * template set, the ProviderConfigs that read a Secret, the cluster whose
 * kubeconfig Secret it is. Every answer is an index lookup in the caches,
 * so an event costs what it concerns, never the number of tenants.
 */
import { clusterOf, type KubeObject } from "@edgeconnect/kcp-ts";
import type { DeepReadonly, EventHandlers, Request, RequestSink } from "@edgeconnect/runtime";
import { INDEX, refKey, WAITING } from "../tenant/tenant-resources.js";

/** What the mappers read of any object: where it lives. */
export type Scoped = { readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly annotations?: Readonly<Record<string, string>> } };

/** The cached objects filed under an index value (tenant-resources.ts declares the indexes). */
export interface TenantIndexes {
  clusters(index: string, value: string): readonly Scoped[];
  providerConfigs(index: string, value: string): readonly Scoped[];
}

export function requestOf(obj: Scoped): Request {
  return { cluster: clusterOf(obj) ?? "", namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

function refOf(obj: Scoped): string {
  return refKey(clusterOf(obj) ?? "", obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
}

export function eventMappers(indexes: TenantIndexes) {
  const clustersBy = (index: string, value: string): Request[] => indexes.clusters(index, value).map(requestOf);
  const configsReading = (secret: Scoped): readonly Scoped[] => indexes.providerConfigs(INDEX.configsBySecret, refOf(secret));
  return {
    clustersUsingConfig: (pc: Scoped): Request[] => clustersBy(INDEX.clustersByConfig, refOf(pc)),
    clustersUsingCapabilities: (mc: Scoped): Request[] => clustersBy(INDEX.clustersByCapabilities, refOf(mc)),
    clustersUsingTemplateSet: (set: Scoped): Request[] => clustersBy(INDEX.clustersByTemplateSet, set.metadata?.name ?? ""),
    configsReadingSecret: (secret: Scoped): Request[] => configsReading(secret).map(requestOf),
    /** The clusters whose ProviderConfig reads the Secret, and the one whose kubeconfig it is. */
    clustersOfSecret: (secret: Scoped): Request[] => [
      ...configsReading(secret).flatMap((pc) => clustersBy(INDEX.clustersByConfig, refOf(pc))),
      ...clustersBy(INDEX.clustersByKubeconfigSecret, refOf(secret)),
    ],
    /** The clusters of the same workspace that its cluster quota holds back: the ones a deletion of `kc` can admit. */
    clustersOverQuotaBeside: (kc: Scoped): Request[] => clustersBy(INDEX.clustersOverQuota, clusterOf(kc) ?? ""),
    /** The clusters not Ready: the ones a change of the flavor catalogue can help. */
    waitingClusters: (): Request[] => clustersBy(INDEX.clustersWaiting, WAITING),
  };
}

/**
 * Sends `map(kc)` to `sink` when a KubernetesCluster leaves its workspace's
 * count: when it is marked for deletion (the quota counts live clusters
 * only), or removed without that update having been seen.
 */
export function whenClusterLeaves(sink: RequestSink, map: (kc: DeepReadonly<KubeObject>) => readonly Request[]): EventHandlers<KubeObject> {
  const send = (kc: DeepReadonly<KubeObject>): void => {
    for (const request of map(kc)) sink.enqueue(request);
  };
  return {
    updated: (old, current) => {
      if (old.metadata?.deletionTimestamp === undefined && current.metadata?.deletionTimestamp !== undefined) send(current);
    },
    deleted: send,
  };
}
