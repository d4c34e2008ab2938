import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, DELAY_MS, pluck, PROJECT, startTestSimulator, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";

describe("EIP", () => {
  let t: TestSimulator;
  let vipPortId: string;
  let otherPortId: string;
  beforeAll(async () => {
    t = await startTestSimulator();
    const lb = await t.call("POST", "/v2.0/lbaas/loadbalancers", {
      body: { loadbalancer: { name: "lb", vip_subnet_id: SUBNET.neutronSubnetId } },
      project: PROJECT.id,
    });
    vipPortId = text(lb.body, "loadbalancer.vip_port_id");
    const server = t.sim.addServer({ name: "node-1", addresses: { vpc: [{ addr: "192.168.0.11", type: "fixed", portId: "port-node-1" }] } });
    otherPortId = server.addresses.vpc?.[0]?.portId ?? "";
  });
  afterAll(() => t.sim.close());

  const eips = `/v1/${PROJECT.id}/publicips`;
  const assignBody = {
    publicip: { type: "5_bgp", ip_version: 4 },
    bandwidth: { name: "bw-test", size: 10, share_type: "PER", charge_mode: "traffic" },
  };

  it("runs create → bind → second bind rejected → unbind → delete", async () => {
    const created = await t.call("POST", eips, { body: assignBody });
    expect(created.status).toBe(200);
    const id = text(created.body, "publicip.id");
    expect(at(created.body, "publicip")).toMatchObject({ status: "PENDING_CREATE", type: "5_bgp", bandwidth_size: 10, port_id: null });

    const tooEarly = await t.call("PUT", `${eips}/${id}`, { body: { publicip: { port_id: vipPortId } } });
    expect(tooEarly.status).toBe(409);
    t.advance(DELAY_MS);
    expect(at((await t.call("GET", `${eips}/${id}`)).body, "publicip.status")).toBe("DOWN");

    const bound = await t.call("PUT", `${eips}/${id}`, { body: { publicip: { port_id: vipPortId } } });
    expect(bound.status).toBe(200);
    expect(at(bound.body, "publicip")).toMatchObject({ status: "ACTIVE", port_id: vipPortId, private_ip_address: "192.168.0.10" });

    const again = await t.call("PUT", `${eips}/${id}`, { body: { publicip: { port_id: otherPortId } } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error_code: "VPC.0409", error_msg: expect.stringContaining("already bound") });

    expect((await t.call("DELETE", `${eips}/${id}`)).status).toBe(409);

    const unbound = await t.call("PUT", `${eips}/${id}`, { body: { publicip: { port_id: null } } });
    expect(unbound.status).toBe(200);
    expect(at(unbound.body, "publicip")).toMatchObject({ status: "DOWN", port_id: null });

    expect((await t.call("DELETE", `${eips}/${id}`)).status).toBe(204);
    expect((await t.call("GET", `${eips}/${id}`)).status).toBe(404);
  });

  it("refuses a second EIP on a port that already has one, and unknown ports", async () => {
    const first = await t.call("POST", eips, { body: assignBody });
    const second = await t.call("POST", eips, { body: assignBody });
    t.advance(DELAY_MS);
    const bind = async (eip: unknown, portId: string) =>
      (await t.call("PUT", `${eips}/${text(eip, "publicip.id")}`, { body: { publicip: { port_id: portId } } })).status;
    expect(await bind(first.body, otherPortId)).toBe(200);
    expect(await bind(second.body, otherPortId)).toBe(409);
    expect(await bind(second.body, "no-such-port")).toBe(404);
    const list = await t.call("GET", eips);
    expect(pluck(list.body, "publicips", "status").sort()).toEqual(["ACTIVE", "DOWN"]);
  });

  it("validates the assign body", async () => {
    const badName = await t.call("POST", eips, { body: { ...assignBody, bandwidth: { ...assignBody.bandwidth, name: "bad name!" } } });
    expect(badName.status).toBe(400);
    expect((await t.call("POST", eips, { body: { publicip: { type: "5_bgp" } } })).status).toBe(400);
  });
});
