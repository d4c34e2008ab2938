/**
 * Read-only views of one logical cluster's objects in a store: what a
 * reconciler reads instead of the store itself, so it can neither see
 * another tenant's objects nor change the cache. Typed by the store, so no
 * reader casts.
 */
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { joinKey } from "./object-key.js";
import { CLUSTER_INDEX, CLUSTER_NAMESPACE_INDEX, type DeepReadonly, type Store } from "./store.js";

export interface Lister<T> {
  /** The object, or undefined; namespace "" for cluster-scoped objects. */
  get(namespace: string, name: string): DeepReadonly<T> | undefined;
  /** The cluster's objects, or those of one namespace. */
  list(namespace?: string): DeepReadonly<T>[];
}

export function clusterLister<T extends KubeObject>(store: Store<T>, cluster: string): Lister<T> {
  return {
    get: (namespace, name) => store.get(joinKey({ cluster, namespace, name })),
    list: (namespace) =>
      namespace === undefined ? store.byIndex(CLUSTER_INDEX, cluster) : store.byIndex(CLUSTER_NAMESPACE_INDEX, `${cluster}/${namespace}`),
  };
}
