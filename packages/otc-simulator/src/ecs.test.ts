import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, OTHER_PROJECT, pluck, PROJECT, startTestSimulator, type TestSimulator } from "./test-client.fixture.js";

describe("ECS", () => {
  let t: TestSimulator;
  const serverId = "5d0f7d0e-6c8a-4a3b-9f53-2b4f0b6c1a01";
  beforeAll(async () => {
    t = await startTestSimulator();
    t.sim.addServer({
      id: serverId,
      name: "node-1",
      flavor: "c4.large.2",
      az: "eu-de-02",
      addresses: {
        "vpc-1": [
          { addr: "192.168.0.11", type: "fixed", portId: "port-node-1" },
          { addr: "80.158.1.1", type: "floating" },
        ],
      },
    });
    t.sim.addServer({ name: "node-10", status: "SHUTOFF" });
    t.sim.addServer({ name: "nodeX1" });
    t.sim.addServer({ name: "node-1", projectId: OTHER_PROJECT.id });
  });
  afterAll(() => t.sim.close());

  it("gets a server with OTC's field names", async () => {
    const result = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/${serverId}`);
    expect(result.status).toBe(200);
    expect(at(result.body, "server")).toMatchObject({
      id: serverId,
      name: "node-1",
      status: "ACTIVE",
      flavor: { id: "c4.large.2" },
      "OS-EXT-AZ:availability_zone": "eu-de-02",
      addresses: {
        "vpc-1": [
          { version: "4", addr: "192.168.0.11", "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS:port_id": "port-node-1" },
          { version: "4", addr: "80.158.1.1", "OS-EXT-IPS:type": "floating" },
        ],
      },
    });
  });

  it("answers 404 with an ECS error body for a missing server", async () => {
    const result = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/00000000-0000-0000-0000-000000000000`);
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ error: { code: "Ecs.0114", message: expect.stringContaining("could not be found") } });
  });

  it("reports SHUTOFF servers as stopped", async () => {
    const list = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?status=SHUTOFF`);
    expect(at(list.body, "count")).toBe(1);
    expect(at(list.body, "servers.0")).toMatchObject({ name: "node-10", "OS-EXT-STS:vm_state": "stopped" });
  });

  it("matches names fuzzily, as OTC does, so clients must filter exactly", async () => {
    const list = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?name=node.1`);
    const names = pluck(list.body, "servers", "name").sort();
    expect(names).toEqual(["node-1", "node-10", "nodeX1"]);
  });

  it("pages by page number: offset 0 and 1 are the first page", async () => {
    const first = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?limit=2&offset=0`);
    const again = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?limit=2&offset=1`);
    const second = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/detail?limit=2&offset=2`);
    expect(at(first.body, "count")).toBe(3);
    expect(at(first.body, "servers")).toHaveLength(2);
    expect(at(again.body, "servers")).toEqual(at(first.body, "servers"));
    expect(at(second.body, "servers")).toHaveLength(1);
  });

  it("keeps projects apart", async () => {
    const list = await t.call("GET", `/v1/${OTHER_PROJECT.id}/cloudservers/detail`);
    expect(at(list.body, "count")).toBe(1);
    const foreign = await t.call("GET", `/v1/${OTHER_PROJECT.id}/cloudservers/${serverId}`);
    expect(foreign.status).toBe(404);
  });

  it("reflects state edits made by the test", async () => {
    const server = t.sim.state.servers.get(serverId);
    if (server === undefined) throw new Error("seeded server missing");
    server.status = "SHUTOFF";
    const result = await t.call("GET", `/v1/${PROJECT.id}/cloudservers/${serverId}`);
    expect(at(result.body, "server.status")).toBe("SHUTOFF");
    server.status = "ACTIVE";
  });
});
