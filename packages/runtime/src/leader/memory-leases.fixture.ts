/**
 * Leases in memory with the API server's rules that lease logic depends on:
 * optimistic concurrency on resourceVersion (409 on a stale write), 404 for a
 * missing Lease, 409 on creating an existing one, label-selector lists, and
 * deletes with a resourceVersion precondition.
 * For unit tests of the leader package.
 */
import { HttpStatusError, type KubeList } from "@edgeconnect/kcp-ts";
import type { Lease } from "./lease.js";
import type { ShardLeaseClient } from "./shard-coordinator.js";

export function memoryLeases(): ShardLeaseClient & { readonly leases: Map<string, Lease> } {
  const leases = new Map<string, Lease>();
  let version = 0;
  const store = (path: string, lease: Lease): Lease => {
    lease.metadata = { ...lease.metadata, resourceVersion: String(++version) };
    leases.set(path, lease);
    return structuredClone(lease);
  };
  return {
    leases,
    get: <T>(path: string) => {
      const lease = leases.get(path);
      return lease ? Promise.resolve(structuredClone(lease) as T) : Promise.reject(new HttpStatusError("GET", path, 404, ""));
    },
    create: <T>(collection: string, body: unknown) => {
      const lease = structuredClone(body) as Lease;
      const path = `${collection}/${lease.metadata?.name ?? ""}`;
      if (leases.has(path)) return Promise.reject(new HttpStatusError("POST", path, 409, ""));
      return Promise.resolve(store(path, lease) as T);
    },
    replace: <T>(path: string, body: unknown) => {
      const lease = structuredClone(body) as Lease;
      if (leases.get(path)?.metadata?.resourceVersion !== lease.metadata?.resourceVersion) {
        return Promise.reject(new HttpStatusError("PUT", path, 409, ""));
      }
      return Promise.resolve(store(path, lease) as T);
    },
    delete: (path: string, options?: { body?: unknown }) => {
      const expected = (options?.body as { preconditions?: { resourceVersion?: string } } | undefined)?.preconditions?.resourceVersion;
      const lease = leases.get(path);
      if (lease === undefined) return Promise.reject(new HttpStatusError("DELETE", path, 404, ""));
      if (expected !== undefined && lease.metadata?.resourceVersion !== expected) return Promise.reject(new HttpStatusError("DELETE", path, 409, ""));
      leases.delete(path);
      return Promise.resolve();
    },
    list: <T>(_path: string, options?: { query?: Readonly<Record<string, unknown>> }) => {
      const selector = (options?.query?.labelSelector as string | undefined) ?? "";
      const wanted = selector.split(",").filter(Boolean).map((term) => term.split("="));
      const items = [...leases.values()].filter((l) => wanted.every(([k = "", v]) => l.metadata?.labels?.[k] === v));
      return Promise.resolve({ metadata: {}, items: structuredClone(items) } as KubeList<T>);
    },
  };
}
