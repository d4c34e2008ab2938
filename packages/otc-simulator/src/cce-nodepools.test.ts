import { afterEach, describe, expect, it } from "@jest/globals";
import type { OtcSimulatorOptions } from "./server.js";
import { availableCluster, CLUSTERS, clusterBody, createKeypair, createNetwork, nodePoolBody, startCceSimulator, TIMING, type PoolOptions } from "./cce-test.fixture.js";
import { at, pluck, PROJECT, type TestSimulator, text } from "./test-client.fixture.js";

const FLAVOR = "s3.xlarge.4";

describe("CCE node pools", () => {
  let t: TestSimulator;
  let pools: string;
  afterEach(() => t.sim.close());

  async function start(options: Partial<OtcSimulatorOptions> = {}): Promise<void> {
    t = await startCceSimulator(options);
    const network = await createNetwork(t);
    await createKeypair(t);
    pools = `${CLUSTERS}/${await availableCluster(t, network)}/nodepools`;
  }

  async function createPool(name: string, options: PoolOptions = {}): Promise<string> {
    const created = await t.call("POST", pools, { body: nodePoolBody(name, options) });
    expect(created.status).toBe(201);
    return `${pools}/${text(created.body, "metadata.uid")}`;
  }

  const status = async (path: string): Promise<unknown> => at((await t.call("GET", path)).body, "status");

  /** The zones of the pool's servers, as ECS lists them. */
  async function servers(pool: string): Promise<string[]> {
    const list = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?name=^${pool}-`);
    return (at(list.body, "servers") as unknown[]).map((server) => text(server, "OS-EXT-AZ:availability_zone"));
  }

  it("is Synchronizing, then normal with its servers in ECS (a flavor without a limit never sells out)", async () => {
    await start();
    const created = await t.call("POST", pools, { body: nodePoolBody("workers", { count: 3, az: "eu-de-02" }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "NodePool",
      metadata: { name: "workers" },
      spec: { initialNodeCount: 3, nodeTemplate: { flavor: FLAVOR, az: "eu-de-02", login: { sshKey: "ci-key" } } },
      status: { phase: "Synchronizing", currentNode: 0 },
    });
    const path = `${pools}/${text(created.body, "metadata.uid")}`;
    t.advance(TIMING.nodePoolSyncMs - 1);
    expect(await status(path)).toEqual({ phase: "Synchronizing", currentNode: 0 });
    t.advance(1);
    expect(await status(path)).toEqual({ phase: "", currentNode: 3 });

    const list = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?name=^workers-`);
    expect(at(list.body, "count")).toBe(3);
    const server = at(list.body, "servers.0");
    expect(server).toMatchObject({ status: "ACTIVE", flavor: { id: FLAVOR }, "OS-EXT-AZ:availability_zone": "eu-de-02" });
    expect(text(server, "name")).toMatch(/^workers-[a-z0-9]{5}$/);
    expect(Object.values(at(server, "addresses") as Record<string, unknown>)).toEqual([
      [expect.objectContaining({ addr: expect.stringMatching(/^10\.0\.1\.\d+$/) as unknown, "OS-EXT-IPS:type": "fixed" })],
    ]);
    expect(pluck((await t.call("GET", pools)).body, "items", "metadata.name")).toEqual(["workers"]);
  });

  it.each([
    ["an unknown flavor", { flavor: "s9.huge.8" }, "nodeTemplate.flavor"],
    ["a zone of another region", { az: "eu-nl-01" }, "nodeTemplate.az"],
    ["a key pair that does not exist", { sshKey: "nope" }, "nodeTemplate.login.sshKey"],
  ])("refuses %s with 400", async (_what, options, field) => {
    await start();
    const result = await t.call("POST", pools, { body: nodePoolBody("bad", options) });
    expect(result.status).toBe(400);
    expect(at(result.body, "message")).toContain(field);
  });

  it("takes the zones of the simulator's region, and random", async () => {
    await start({ region: "eu-nl" });
    expect(at((await t.call("POST", pools, { body: nodePoolBody("zoned", { az: "eu-nl-03" }) })).body, "spec.nodeTemplate.az")).toBe("eu-nl-03");
    expect((await t.call("POST", pools, { body: nodePoolBody("anywhere", { az: "random" }) })).status).toBe(201);
    const foreign = await t.call("POST", pools, { body: nodePoolBody("foreign", { az: "eu-de-01" }) });
    expect(foreign.status).toBe(400);
    expect(at(foreign.body, "message")).toBe("spec.nodeTemplate.az must be random or one of eu-nl-01, eu-nl-02, eu-nl-03");
  });

  it("refuses a pool on a cluster that is not Available yet, and a duplicate name", async () => {
    await start();
    await createPool("workers");
    expect((await t.call("POST", pools, { body: nodePoolBody("workers") })).status).toBe(409);
    const network = await createNetwork(t);
    const creating = await t.call("POST", CLUSTERS, { body: clusterBody(network, {}, "creating") });
    const early = await t.call("POST", `${CLUSTERS}/${text(creating.body, "metadata.uid")}/nodepools`, { body: nodePoolBody("early") });
    expect(early.status).toBe(400);
    expect(at(early.body, "message")).toMatch(/is Creating/);
  });

  it("is SoldOut without servers while the zone lacks capacity, and proceeds once capacity is set", async () => {
    await start({ capacity: { [FLAVOR]: { "eu-de-01": 1 } } });
    const path = await createPool("workers", { count: 2, az: "eu-de-01" });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "SoldOut", currentNode: 0 });
    t.advance(5 * TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "SoldOut", currentNode: 0 });
    expect(await servers("workers")).toEqual([]);

    t.sim.setCapacity(FLAVOR, "eu-de-01", 2);
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "", currentNode: 2 });
    expect(await servers("workers")).toEqual(["eu-de-01", "eu-de-01"]);
  });

  it("counts a listed flavor as sold out in zones its capacity omits", async () => {
    await start({ capacity: { [FLAVOR]: { "eu-de-01": 10 } } });
    const path = await createPool("workers", { count: 1, az: "eu-de-03" });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "SoldOut", currentNode: 0 });
  });

  it("places a random pool in the zone with the most free capacity of its flavor", async () => {
    await start({ capacity: { [FLAVOR]: { "eu-de-01": 1, "eu-de-02": 5, "eu-de-03": 3 } } });
    await createPool("first", { count: 3, az: "random" });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await servers("first")).toEqual(["eu-de-02", "eu-de-02", "eu-de-02"]);
    await createPool("second", { count: 3, az: "random" });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await servers("second")).toEqual(["eu-de-03", "eu-de-03", "eu-de-03"]);
    const third = await createPool("third", { count: 3, az: "random" });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(third)).toEqual({ phase: "SoldOut", currentNode: 0 });
  });

  it("scales with PUT: up within capacity, SoldOut beyond it keeping its servers, and down", async () => {
    await start({ capacity: { [FLAVOR]: { "eu-de-01": 3 } } });
    const path = await createPool("workers", { count: 2 });
    t.advance(TIMING.nodePoolSyncMs);
    const scale = (count: number) => t.call("PUT", path, { body: nodePoolBody("workers", { count }) });

    const up = await scale(3);
    expect(up.status).toBe(200);
    expect(at(up.body, "status")).toEqual({ phase: "Synchronizing", currentNode: 2 });
    expect(at(up.body, "spec.initialNodeCount")).toBe(3);
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "", currentNode: 3 });

    await scale(5);
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "SoldOut", currentNode: 3 });

    await scale(1);
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(path)).toEqual({ phase: "", currentNode: 1 });
    expect(await servers("workers")).toHaveLength(1);
    expect((await t.call("PUT", path, { body: { spec: {} } })).status).toBe(400);
  });

  it("deletes: Deleting, then 404 with its servers gone, freeing capacity for a SoldOut pool", async () => {
    await start({ capacity: { [FLAVOR]: { "eu-de-01": 2 } } });
    const first = await createPool("first", { count: 2 });
    t.advance(TIMING.nodePoolSyncMs);
    const second = await createPool("second", { count: 2 });
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(second)).toEqual({ phase: "SoldOut", currentNode: 0 });

    const deleting = await t.call("DELETE", first);
    expect(deleting.status).toBe(200);
    expect(at(deleting.body, "status.phase")).toBe("Deleting");
    expect((await t.call("PUT", first, { body: nodePoolBody("first", { count: 1 }) })).status).toBe(409);
    t.advance(TIMING.nodePoolSyncMs);
    expect((await t.call("GET", first)).status).toBe(404);
    expect(await servers("first")).toEqual([]);
    // The retry that was due with the deletion saw the old capacity; the next one succeeds.
    t.advance(TIMING.nodePoolSyncMs);
    expect(await status(second)).toEqual({ phase: "", currentNode: 2 });
    expect(t.sim.liveObjects()).toMatchObject({ nodePools: 1, servers: 2 });
  });
});
