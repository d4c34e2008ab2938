import { createPublicIp, getPublicIp } from "@edgeconnect/otc";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { eipAlias } from "./eips.js";
import { desired, startHarness, UID, theLoadBalancer, type Harness } from "./elb-test.fixture.js";

describe("SharedLoadBalancerDriver EIP plan changes on a live LB", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness("shared");
  });
  afterEach(() => h.close());

  const lb = () => theLoadBalancer(h.sim);

  it("releases its own EIP when the Service turns internal, and allocates a new one when it turns public again", async () => {
    await h.driver.ensure(desired("shared"));
    const [owned] = h.sim.state.eips.keys();
    const internal = await h.driver.ensure(desired("shared", { eip: { kind: "none" } }));
    expect(internal).toEqual({ ingress: [{ ip: lb().vipAddress }] });
    expect(h.sim.state.eips.size).toBe(0);
    expect(await h.driver.find(desired("shared").name, UID)).toMatchObject({ status: internal });

    const mark = h.mark();
    await h.driver.ensure(desired("shared", { eip: { kind: "none" } }));
    expect(h.mutationsSince(mark)).toEqual([]);

    const public_ = await h.driver.ensure(desired("shared"));
    const [fresh] = h.sim.state.eips.values();
    expect(fresh).toMatchObject({ alias: eipAlias(UID), portId: lb().vipPortId });
    expect(fresh?.id).not.toBe(owned);
    expect(public_).toEqual({ ingress: [{ ip: fresh?.publicIpAddress }] });
  });

  it("swaps its own EIP for a BYO one (releasing its own) and back (only unbinding the BYO one)", async () => {
    await h.driver.ensure(desired("shared"));
    const [owned] = h.sim.state.eips.keys();
    const byo = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    await h.driver.ensure(desired("shared", { eip: { kind: "byo-id", id: byo.id } }));
    expect(h.sim.state.eips.has(owned ?? "")).toBe(false);
    expect(h.sim.state.eips.get(byo.id)?.portId).toBe(lb().vipPortId);

    await h.driver.ensure(desired("shared"));
    expect(await getPublicIp(h.client, byo.id)).toMatchObject({ status: "DOWN", port_id: null });
    const bound = [...h.sim.state.eips.values()].filter((eip) => eip.portId === lb().vipPortId);
    expect(bound.map((eip) => eip.alias)).toEqual([eipAlias(UID)]);
  });

  it("moves from one BYO EIP to another without releasing either", async () => {
    const first = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    const second = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    await h.driver.ensure(desired("shared", { eip: { kind: "byo-id", id: first.id } }));
    const status = await h.driver.ensure(desired("shared", { eip: { kind: "byo-address", address: second.public_ip_address } }));
    expect(status).toEqual({ ingress: [{ ip: second.public_ip_address }] });
    expect(h.sim.state.eips.get(first.id)?.portId).toBeUndefined();
    expect(h.sim.state.eips.get(second.id)?.portId).toBe(lb().vipPortId);
    expect(h.sim.state.eips.size).toBe(2);
  });
});
