import { describe, expect, it } from "@jest/globals";
import { CLUSTER_ANNOTATION, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { clusterLister, requestKey, Store, type ApiExportSource, type ClusterScope } from "@edgeconnect/runtime";
import { tenantResources } from "../tenant/tenant-resources.js";
import { ownerPresence } from "./owner-presence.js";

const resources = tenantResources({});
const quiet = { info: () => undefined };

function kubernetesCluster(cluster: string, namespace: string, name: string): KubeObject {
  return { metadata: { name, namespace, annotations: { [CLUSTER_ANNOTATION]: cluster } } };
}

/** What kcp answers live, per logical cluster: the names of the KubernetesClusters it holds. */
type Live = Record<string, string[]>;

/**
 * A source over one cache whose workspaces answer from `live`, slowly, and
 * count how many calls are in flight at once: an audit's load on kcp.
 */
function sourceOver(cached: KubeObject[], live: Live, delayMs = 5) {
  const store = new Store<KubeObject>();
  cached.forEach((obj) => store.upsert(obj));
  const calls = { total: 0, inFlight: 0, maxInFlight: 0 };
  const answer = async <T>(reply: () => T): Promise<T> => {
    calls.total++;
    calls.inFlight++;
    calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return reply();
    } finally {
      calls.inFlight--;
    }
  };
  const notFound = (name: string) =>
    new HttpStatusError("GET", "https://kcp.test/", 404, JSON.stringify({ kind: "Status", reason: "NotFound", message: `kubernetesclusters "${name}" not found`, details: { name } }));
  const clientOf = (cluster: string) => {
    const client = {
      withTimeout: () => client,
      get: (path: string) =>
        answer(() => {
          const name = path.split("/").at(-1) ?? "";
          if (!(live[cluster] ?? []).includes(name)) throw notFound(name);
          return kubernetesCluster(cluster, "default", name);
        }),
      list: () => answer(() => ({ items: (live[cluster] ?? []).map((name) => kubernetesCluster(cluster, "default", name)) })),
    };
    return client as unknown as RestClient;
  };
  const source: Pick<ApiExportSource, "scopeFor"> = {
    scopeFor: (cluster) => ({ cluster, client: clientOf(cluster), settlingClient: () => clientOf(cluster), lister: () => clusterLister(store, cluster) }) as ClusterScope,
  };
  return { source, calls };
}

const owner = (cluster: string, name: string) => ({ cluster, namespace: "default", name });

describe("ownerPresence", () => {
  it("takes what the cache shows as present and asks kcp nothing about it", async () => {
    const tenants = Array.from({ length: 50 }, (_, i) => `tenant-${i}`);
    const { source, calls } = sourceOver(
      tenants.map((t) => kubernetesCluster(t, "default", "one")),
      {},
    );
    const presence = await ownerPresence(
      tenants.map((t) => owner(t, "one")),
      tenants,
      { source, clusters: resources.clusters, bound: new Set(tenants), timeoutMs: 1_000, logger: quiet },
      new AbortController().signal,
    );
    expect(calls.total).toBe(0);
    expect(presence.asked).toBe(0);
    expect(new Set(presence.clusters.values())).toEqual(new Set(["present"]));
    expect(new Set(presence.workspaces.values())).toEqual(new Set(["present"]));
  });

  it("asks kcp about what the cache does not show, a few calls at a time, and believes only its answer", async () => {
    // 200 workspaces whose clusters the cache does not show: half are gone, half were made after the cache last heard.
    const tenants = Array.from({ length: 200 }, (_, i) => `tenant-${i}`);
    const live: Live = Object.fromEntries(tenants.filter((_, i) => i % 2 === 0).map((t) => [t, ["one"]]));
    const { source, calls } = sourceOver([], live);
    const presence = await ownerPresence(
      tenants.map((t) => owner(t, "one")),
      tenants,
      { source, clusters: resources.clusters, bound: new Set(tenants), timeoutMs: 1_000, logger: quiet, concurrency: 4 },
      new AbortController().signal,
    );
    expect(calls.total).toBe(400);
    expect(calls.maxInFlight).toBe(4);
    tenants.forEach((t, i) => {
      const expected = i % 2 === 0 ? "present" : "absent";
      expect(presence.clusters.get(requestKey(owner(t, "one")))).toBe(expected);
      expect(presence.workspaces.get(t)).toBe(expected);
    });
  });

  it("counts a workspace that does not bind the export as unknown, without asking", async () => {
    const { source, calls } = sourceOver([], {});
    const presence = await ownerPresence(
      [owner("unbound", "one")],
      ["unbound"],
      { source, clusters: resources.clusters, bound: new Set(), timeoutMs: 1_000, logger: quiet },
      new AbortController().signal,
    );
    expect(calls.total).toBe(0);
    expect(presence.clusters.get(requestKey(owner("unbound", "one")))).toBe("unknown");
    expect(presence.workspaces.get("unbound")).toBe("unknown");
  });

  it("starts no more calls once the audit is stopped, and leaves the unasked undecided (never absent)", async () => {
    const tenants = Array.from({ length: 100 }, (_, i) => `tenant-${i}`);
    const { source, calls } = sourceOver([], {}, 20);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 30);
    const presence = await ownerPresence(
      tenants.map((t) => owner(t, "one")),
      [],
      { source, clusters: resources.clusters, bound: new Set(tenants), timeoutMs: 1_000, logger: quiet, concurrency: 4 },
      stop.signal,
    );
    expect(calls.total).toBeLessThan(20);
    expect([...presence.clusters.values()].filter((p) => p === "absent")).toHaveLength(calls.total);
  });
});
