/**
 * Which reconcile requests a change of a tenant's object makes: the
 * KubernetesClusters that use a ProviderConfig, MachineCapabilities or
 * template set, the ProviderConfigs that read a Secret, the cluster whose
 * kubeconfig Secret it is. Every answer is an index lookup in the caches,
 * so an event costs what it concerns, never the number of tenants.
 */
import { clusterOf } from "@edgeconnect/kcp-ts";
import type { Request } from "@edgeconnect/runtime";
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
    /** The clusters not Ready: the ones a change of the flavor catalogue can help. */
    waitingClusters: (): Request[] => clustersBy(INDEX.clustersWaiting, WAITING),
  };
}
