import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CROSSPLANE_PROVIDER_CONFIG, NODE_POOL_V3, ownerAnnotations, ownerLabels, VPC_V1 } from "@edgeconnect/provisioning";
import type { InfraKind, InfrastructureWrites } from "../infrastructure/infrastructure-cluster.js";
import { SupersededProviderConfigs } from "./superseded-provider-configs.js";

const REQUEST = { cluster: "tenant-a", namespace: "default", name: "my-cluster" };
const OTHER = { cluster: "tenant-a", namespace: "default", name: "other-cluster" };
const NS = "kcp-0123456789ab";

const owned = (request: typeof REQUEST, kind: string, name: string, spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } => ({
  kind,
  metadata: { name, namespace: NS, labels: ownerLabels({ ...request, uid: "u" }), annotations: ownerAnnotations({ ...request, uid: "u" }) },
  spec,
});
const config = (request: typeof REQUEST, name: string) => owned(request, "ProviderConfig", name, { credentials: { source: "Secret", secretRef: { name, key: "credentials" } } });
const pool = (request: typeof REQUEST, pc: string) => owned(request, "NodePoolV3", `${request.name}-np`, { providerConfigRef: { name: pc, kind: "ProviderConfig" } });

/** The API server's view by kind, what was deleted, and how many LISTs were made. */
function fakeWrites(world: Map<string, KubeObject[]>, stuck: ReadonlySet<string> = new Set()) {
  const deleted: string[] = [];
  let lists = 0;
  const writes = {
    list: async (kind: InfraKind, namespace: string, labels: Record<string, string>) => {
      lists++;
      expect(namespace).toBe(NS);
      return (world.get(kind.kind) ?? []).filter((obj) => Object.entries(labels).every(([k, v]) => obj.metadata?.labels?.[k] === v));
    },
    delete: async (kind: InfraKind, _namespace: string, name: string) => {
      deleted.push(`${kind.kind}/${name}`);
      if (stuck.has(name)) return false;
      world.set(kind.kind, (world.get(kind.kind) ?? []).filter((obj) => obj.metadata?.name !== name));
      return true;
    },
  } as unknown as InfrastructureWrites;
  return { writes, deleted, lists: () => lists };
}

describe("SupersededProviderConfigs", () => {
  it("releases the old-named ProviderConfig and its credentials once no managed resource names it, credentials first, and leaves other clusters' alone", async () => {
    const world = new Map<string, KubeObject[]>([
      [CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "old"), config(REQUEST, "new"), config(OTHER, "theirs")]],
      [NODE_POOL_V3.kind, [pool(REQUEST, "new"), pool(OTHER, "theirs")]],
      [VPC_V1.kind, []],
    ]);
    const { writes, deleted } = fakeWrites(world);
    await new SupersededProviderConfigs().release(writes, NS, REQUEST, "u", "new", { referenced: ["new"], providerConfigs: ["old", "new"] });
    expect(deleted).toEqual(["Secret/old", "ProviderConfig/old"]);
  });

  it("keeps an old ProviderConfig a live managed resource still names, whatever the cache says", async () => {
    const world = new Map<string, KubeObject[]>([
      [CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "old"), config(REQUEST, "new")]],
      [NODE_POOL_V3.kind, [pool(REQUEST, "old")]],
    ]);
    const { writes, deleted } = fakeWrites(world);
    const superseded = new SupersededProviderConfigs();
    await superseded.release(writes, NS, REQUEST, "u", "new", { referenced: ["new"], providerConfigs: ["old", "new"] });
    expect(deleted).toEqual([]);
    world.set(NODE_POOL_V3.kind, [pool(REQUEST, "new")]);
    await superseded.release(writes, NS, REQUEST, "u", "new", { referenced: ["new"], providerConfigs: ["old", "new"] });
    expect(deleted).toEqual(["Secret/old", "ProviderConfig/old"]);
  });

  it("asks the API server nothing for a cluster whose caches show only its current config, on the first pass after a start too", async () => {
    const world = new Map<string, KubeObject[]>([[CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "new")]]]);
    const { writes, lists } = fakeWrites(world);
    const superseded = new SupersededProviderConfigs();
    await superseded.release(writes, NS, REQUEST, "u", "new", { referenced: ["new"], providerConfigs: ["new"] });
    await superseded.release(writes, NS, REQUEST, "u", "new", { referenced: ["new"], providerConfigs: [] });
    expect(lists()).toBe(0);
  });

  it("asks the API server when the caches show another config, until Crossplane lets it go, then no more", async () => {
    const world = new Map<string, KubeObject[]>([[CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "new"), config(REQUEST, "old")]]]);
    const { writes, lists } = fakeWrites(world, new Set(["old"]));
    const superseded = new SupersededProviderConfigs();
    const cached = { referenced: ["new"], providerConfigs: ["new", "old"] };
    await superseded.release(writes, NS, REQUEST, "u", "new", cached);
    const afterFirst = lists();
    expect(afterFirst).toBeGreaterThan(0);
    await superseded.release(writes, NS, REQUEST, "u", "new", cached);
    expect(lists()).toBeGreaterThan(afterFirst);

    world.set(CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "new")]);
    await superseded.release(writes, NS, REQUEST, "u", "new", cached);
    const settled = lists();
    // Settled: a cache that still shows the old config (its delete not seen yet) asks nothing more.
    await superseded.release(writes, NS, REQUEST, "u", "new", cached);
    expect(lists()).toBe(settled);
    // A cached managed resource naming another config asks again.
    await superseded.release(writes, NS, REQUEST, "u", "new", { referenced: ["new", "old"], providerConfigs: ["new"] });
    expect(lists()).toBe(settled + 1);
  });

  it("asks the API server when this process applied another config lately, though the cache does not show it yet", async () => {
    const world = new Map<string, KubeObject[]>([[CROSSPLANE_PROVIDER_CONFIG.kind, [config(REQUEST, "first"), config(REQUEST, "second")]]]);
    const { writes, deleted, lists } = fakeWrites(world);
    const superseded = new SupersededProviderConfigs();
    await superseded.release(writes, NS, REQUEST, "u", "first", { referenced: [], providerConfigs: [] });
    expect(lists()).toBe(0);
    // The tenant pointed the cluster at other credentials: the pass applied "second"; the cache has seen neither config yet.
    await superseded.release(writes, NS, REQUEST, "u", "second", { referenced: [], providerConfigs: [] });
    expect(lists()).toBeGreaterThan(0);
    expect(deleted).toEqual(["Secret/first", "ProviderConfig/first"]);
  });
});
