import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { clusterOf } from "@edgeconnect/kcp-ts";
import { ApiExportSource, diffEndpoints, REPLAY_SLICE, type ApiExportSourceOptions, type WatchedResource } from "./apiexport-source.js";
import { FakeVirtualWorkspaces, WIDGETS_PATH } from "./fake-virtual-workspace.fixture.js";

describe("diffEndpoints", () => {
  it("starts new URLs and stops vanished ones, leaving the rest running", () => {
    expect(diffEndpoints(["https://a/vw", "https://b/vw"], ["https://b/vw", "https://c/vw"])).toEqual({
      start: ["https://c/vw"],
      stop: ["https://a/vw"],
    });
  });

  it("handles the empty slice kcp shows before the first binding", () => {
    expect(diffEndpoints([], [])).toEqual({ start: [], stop: [] });
    expect(diffEndpoints(["https://a/vw"], [])).toEqual({ start: [], stop: ["https://a/vw"] });
  });
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe("ApiExportSource against several fake shards", () => {
  let fake: FakeVirtualWorkspaces;
  let source: ApiExportSource;
  let running: Promise<void>;
  const events: string[] = [];
  const widgets: WatchedResource = {
    name: "widgets",
    path: WIDGETS_PATH,
    handlers: {
      added: (obj) => events.push(`added ${clusterOf(obj) ?? ""}/${obj.metadata?.name ?? ""}`),
      deleted: (obj) => events.push(`deleted ${clusterOf(obj) ?? ""}/${obj.metadata?.name ?? ""}`),
    },
  };

  function startSource(extra: Partial<ApiExportSourceOptions> = {}): void {
    source = new ApiExportSource({
      provider: fake.client(),
      sliceName: "widgets.example",
      resources: [widgets],
      reflector: { backoff: { initialMs: 20, maxMs: 100 } },
      onEngage: (cluster) => events.push(`engage ${cluster}`),
      onDisengage: (cluster) => events.push(`disengage ${cluster}`),
      ...extra,
    });
    running = source.start();
  }

  beforeEach(async () => {
    events.length = 0;
    fake = await FakeVirtualWorkspaces.start();
    fake.bind("shard-a", "tenant-a", ["w1"]);
    fake.bind("shard-b", "tenant-b", ["w1", "w2"]);
  });

  afterEach(async () => {
    await source.stop();
    await running;
    await fake.close();
  });

  const scopeUrl = (cluster: string): string | undefined => source.scopeFor(cluster, new AbortController().signal)?.client.server;

  it("is synced at once with no endpoints: nothing is bound, so there is nothing to wait for", async () => {
    startSource();
    await until(() => source.hasSynced, "sync");
    expect(source.endpoints()).toEqual([]);
    expect(source.boundClusters()).toEqual([]);
  });

  it("engages every shard once it has listed, then reports its objects, and routes each tenant to its shard", async () => {
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource();
    await until(() => source.hasSynced, "sync");
    expect(events.filter((e) => e.startsWith("added")).sort()).toEqual(["added tenant-a/w1", "added tenant-b/w1", "added tenant-b/w2"]);
    expect(events.filter((e) => e.startsWith("engage")).sort()).toEqual(["engage tenant-a", "engage tenant-b"]);
    expect(source.boundClusters().sort()).toEqual(["tenant-a", "tenant-b"]);
    expect(scopeUrl("tenant-a")).toBe(`${fake.urlOf("shard-a")}/clusters/tenant-a`);
    expect(scopeUrl("tenant-b")).toBe(`${fake.urlOf("shard-b")}/clusters/tenant-b`);
    expect(scopeUrl("tenant-c")).toBeUndefined();
    const scope = source.scopeFor("tenant-b", new AbortController().signal);
    expect(scope?.lister(widgets).list().map((w) => w.metadata?.name).sort()).toEqual(["w1", "w2"]);
    expect(scope?.lister(widgets).get("default", "w1")?.metadata?.name).toBe("w1");
    expect(scope?.lister(widgets).list("other")).toEqual([]);
  });

  it("binds a scope's client to the reconcile's signal, and its settling client to the signal given instead", async () => {
    fake.setEndpoints(["shard-a"]);
    startSource();
    await until(() => source.hasSynced, "sync");
    const reconcile = new AbortController();
    const scope = source.scopeFor("tenant-a", reconcile.signal);
    reconcile.abort();
    const path = WIDGETS_PATH;
    await expect(scope?.client.get(path)).rejects.toThrow(/abort/i);
    const settling = scope?.settlingClient(AbortSignal.timeout(5_000));
    expect(settling?.server).toBe(`${fake.urlOf("shard-a")}/clusters/tenant-a`);
    await expect(settling?.get(path)).resolves.toBeDefined();
  });

  it("holds a slow shard's tenants back until it has listed, while the fast shard works", async () => {
    fake.listDelayMs.set("shard-b", 600);
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource();
    await until(() => events.includes("added tenant-a/w1"), "shard-a engaged");
    expect(source.hasSynced).toBe(false);
    expect(scopeUrl("tenant-a")).toBeDefined();
    expect(scopeUrl("tenant-b")).toBeUndefined();
    expect(events.some((e) => e.includes("tenant-b"))).toBe(false);
    await until(() => source.hasSynced, "sync");
    expect(scopeUrl("tenant-b")).toBeDefined();
  });

  it("reports a vanished shard's tenants as disengaged, never as deleted", async () => {
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource();
    await until(() => source.hasSynced, "sync");
    fake.setEndpoints(["shard-a"]);
    await until(() => events.includes("disengage tenant-b"), "disengage");
    expect(events.filter((e) => e.startsWith("deleted"))).toEqual([]);
    expect(scopeUrl("tenant-b")).toBeUndefined();
    expect(source.list(widgets).map((w) => clusterOf(w))).toEqual(["tenant-a"]);
    expect(source.endpoints()).toEqual([fake.urlOf("shard-a")]);
  });

  it("survives an endpoint flap: disengaged, then engaged again with its objects reported anew", async () => {
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource();
    await until(() => source.hasSynced, "sync");
    events.length = 0;
    fake.setEndpoints(["shard-a"]);
    fake.setEndpoints(["shard-a", "shard-b"]);
    await until(() => events.includes("engage tenant-b") && source.hasSynced, "re-engage");
    expect(events.filter((e) => e.includes("tenant-b"))).toEqual(["disengage tenant-b", "engage tenant-b", "added tenant-b/w1", "added tenant-b/w2"]);
    expect(events.filter((e) => e.startsWith("deleted"))).toEqual([]);
  });

  it("passes live changes on once engaged", async () => {
    fake.setEndpoints(["shard-a"]);
    startSource();
    await until(() => source.hasSynced, "sync");
    fake.putWidget("shard-a", "tenant-a", "w9");
    await until(() => source.list(widgets).length === 2, "the new widget");
  });

  it("finds objects by index and by key on whichever shard holds them, without a list of every tenant", async () => {
    const byName: WatchedResource = { ...widgets, indexers: { "by-name": (obj) => [obj.metadata?.name ?? ""] } };
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource({ resources: [byName] });
    await until(() => source.hasSynced, "sync");
    expect(source.byIndex(byName, "by-name", "w1").map(clusterOf).sort()).toEqual(["tenant-a", "tenant-b"]);
    expect(source.byIndex(byName, "by-name", "w3")).toEqual([]);
    expect(clusterOf(source.get(byName, { cluster: "tenant-b", namespace: "default", name: "w2" }) ?? {})).toBe("tenant-b");
    expect(source.get(byName, { cluster: "tenant-a", namespace: "default", name: "w2" })).toBeUndefined();
    expect(() => source.byIndex(byName, "by-colour", "red")).toThrow(/no index "by-colour"/);
  });

  it("replays a large shard at engagement in slices, letting other work run between them", async () => {
    const many = Array.from({ length: 2 * REPLAY_SLICE + 1 }, (_, i) => `w${i}`);
    fake.bind("shard-c", "tenant-c", many);
    fake.setEndpoints(["shard-c"]);
    let replayed = 0;
    let replayedWhenOtherWorkRan: number | undefined;
    const counting: WatchedResource = {
      ...widgets,
      handlers: {
        added: () => {
          // Other work, queued behind the replay's first handler call: it runs at the first yield.
          if (replayed++ === 0) setImmediate(() => (replayedWhenOtherWorkRan = replayed));
        },
      },
    };
    startSource({ resources: [counting] });
    await until(() => replayed === many.length, "the replay");
    expect(replayedWhenOtherWorkRan).toBe(REPLAY_SLICE);
  });

  it("goes on applying endpoint changes after a callback throws", async () => {
    fake.setEndpoints(["shard-a", "shard-b"]);
    startSource({
      onDisengage: (cluster) => {
        events.push(`disengage ${cluster}`);
        throw new Error("handler bug");
      },
    });
    await until(() => source.hasSynced, "sync");
    fake.setEndpoints(["shard-a"]);
    await until(() => events.includes("disengage tenant-b"), "disengage");
    fake.setEndpoints([]);
    await until(() => events.includes("disengage tenant-a") && source.endpoints().length === 0, "the next change");
    expect(source.hasSynced).toBe(true);
  });
});
