import { createPublicIp } from "@edgeconnect/otc";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { DedicatedLoadBalancerDriver } from "./dedicated-driver.js";
import { EipPlanChangeError } from "./errors.js";
import { SUBNET } from "../../testing/simulated-cloud.fixture.js";
import { desired, port, startHarness, UID, theLoadBalancer, type Harness } from "./elb-test.fixture.js";

describe("DedicatedLoadBalancerDriver", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness("dedicated");
  });
  afterEach(() => h.close());

  const lb = () => theLoadBalancer(h.sim);

  it("places the LB in the default zone on the Neutron subnet and network, with the EIP attached at creation", async () => {
    await h.driver.ensure(desired("dedicated"));
    expect(lb()).toMatchObject({ availabilityZones: ["eu-de-01"], vipSubnetId: SUBNET.neutronSubnetId, virsubnetIds: [SUBNET.neutronNetworkId] });
    const created = h.sim.faults.requests.filter((request) => request.method === "POST" && request.path.endsWith("/elb/loadbalancers"));
    expect(created).toHaveLength(1);
    const [eip] = h.sim.state.eips.values();
    expect(eip?.portId).toBe(lb().vipPortId);
    // Attached by the LB create itself: no VPC bind request.
    expect(h.sim.faults.requests.filter((request) => request.method === "PUT" && request.path.includes("/publicips/"))).toEqual([]);
  });

  it("uses the configured availability zones", async () => {
    const driver = new DedicatedLoadBalancerDriver(h.client, { availabilityZones: ["eu-de-02", "eu-de-03"], pollIntervalMs: 2 });
    await driver.ensure(desired("dedicated", { eip: { kind: "none" } }));
    expect(lb().availabilityZones).toEqual(["eu-de-02", "eu-de-03"]);
  });

  it("refuses to create without a network id", async () => {
    await expect(h.driver.ensure(desired("dedicated", { networkId: undefined }))).rejects.toThrow(/network-id/);
    expect(h.sim.state.counts().loadbalancers).toBe(0);
  });

  it("reports an EIP plan change on a live LB as EipPlanChangeError after reconciling the rest, touching no EIP", async () => {
    await h.driver.ensure(desired("dedicated"));
    const eipsBefore = [...h.sim.state.eips.values()].map((eip) => ({ id: eip.id, portId: eip.portId }));
    const mark = h.mark();
    await expect(h.driver.ensure(desired("dedicated", { eip: { kind: "none" }, ports: [port("TCP", 80, 30080)] }))).rejects.toThrow(
      EipPlanChangeError,
    );
    expect(h.sim.state.listeners.size).toBe(1);
    expect([...h.sim.state.eips.values()].map((eip) => ({ id: eip.id, portId: eip.portId }))).toEqual(eipsBefore);
    expect(h.mutationsSince(mark).filter((request) => request.path.includes("/publicips"))).toEqual([]);

    const byo = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    await expect(h.driver.ensure(desired("dedicated", { eip: { kind: "byo-id", id: byo.id } }))).rejects.toThrow(/delete and recreate/);
  });

  it("reports a change from internal to public the same way", async () => {
    await h.driver.ensure(desired("dedicated", { eip: { kind: "none" } }));
    await expect(h.driver.ensure(desired("dedicated"))).rejects.toThrow(EipPlanChangeError);
    expect(h.sim.state.eips.size).toBe(0);
    expect(await h.driver.find(desired("dedicated").name, UID)).toMatchObject({ status: { ingress: [{ ip: lb().vipAddress }] } });
  });
});
