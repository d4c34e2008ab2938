import { afterAll, beforeEach, describe, expect, it } from "@jest/globals";
import { at, DELAY_MS, pluck, PROJECT, startTestSimulator, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";

describe("ELB v2 (shared)", () => {
  let t: TestSimulator;
  const opened: TestSimulator[] = [];
  beforeEach(async () => {
    t = await startTestSimulator();
    opened.push(t);
  });
  afterAll(async () => {
    await Promise.all(opened.map((sim) => sim.sim.close()));
  });

  const v2 = (method: string, path: string, body?: unknown) => t.call(method, `/v2.0/lbaas/${path}`, { body, project: PROJECT.id });

  async function activeLb(description = "kubernetes.io/service-uid=abc"): Promise<string> {
    const created = await v2("POST", "loadbalancers", { loadbalancer: { name: "lb", description, vip_subnet_id: SUBNET.neutronSubnetId } });
    expect(created.status).toBe(201);
    t.advance(DELAY_MS);
    return text(created.body, "loadbalancer.id");
  }

  const tcpMonitorOn = (poolId: string) => ({ pool_id: poolId, type: "TCP", delay: 5, timeout: 3, max_retries: 3 });

  it("creates an LB in PENDING_CREATE that becomes ACTIVE after the transition delay", async () => {
    const created = await v2("POST", "loadbalancers", { loadbalancer: { name: "lb", vip_subnet_id: SUBNET.neutronSubnetId } });
    expect(created.status).toBe(201);
    const lb = at(created.body, "loadbalancer");
    expect(lb).toMatchObject({ provisioning_status: "PENDING_CREATE", vip_subnet_id: SUBNET.neutronSubnetId, vip_address: "192.168.0.10" });
    expect(at(lb, "vip_port_id")).toEqual(expect.any(String));
    const lbId = text(lb, "id");
    t.advance(DELAY_MS - 1);
    expect(at((await v2("GET", `loadbalancers/${lbId}`)).body, "loadbalancer.provisioning_status")).toBe("PENDING_CREATE");
    t.advance(1);
    const active = await v2("GET", `loadbalancers/${lbId}`);
    expect(at(active.body, "loadbalancer")).toMatchObject({ provisioning_status: "ACTIVE", operating_status: "ONLINE" });
  });

  it("rejects a VPC subnet id as vip_subnet_id, saying which id it wants", async () => {
    const result = await v2("POST", "loadbalancers", { loadbalancer: { name: "lb", vip_subnet_id: SUBNET.vpcSubnetId } });
    expect(result.status).toBe(400);
    expect(at(result.body, "error_msg")).toContain("is a VPC subnet id");
    expect(at(result.body, "error_msg")).toContain(SUBNET.neutronSubnetId);
    expect(t.sim.state.loadbalancers.size).toBe(0);
  });

  it("requires the X-Project-Id header", async () => {
    const result = await t.call("GET", "/v2.0/lbaas/loadbalancers");
    expect(result.status).toBe(400);
    expect(at(result.body, "error_msg")).toMatch(/X-Project-Id/);
  });

  it("answers 409 while the LB is busy, then accepts the change", async () => {
    const created = await v2("POST", "loadbalancers", { loadbalancer: { name: "lb", vip_subnet_id: SUBNET.neutronSubnetId } });
    const lbId = text(created.body, "loadbalancer.id");
    const listener = { listener: { loadbalancer_id: lbId, protocol: "TCP", protocol_port: 80, name: "l80" } };
    const early = await v2("POST", "listeners", listener);
    expect(early.status).toBe(409);
    expect(at(early.body, "error_msg")).toMatch(/PENDING_CREATE/);
    t.advance(DELAY_MS);
    const ok = await v2("POST", "listeners", listener);
    expect(ok.status).toBe(201);
    // Each change puts the LB back into PENDING_UPDATE for a moment.
    expect(at((await v2("GET", `loadbalancers/${lbId}`)).body, "loadbalancer.provisioning_status")).toBe("PENDING_UPDATE");
    const second = await v2("POST", "listeners", { listener: { ...listener.listener, protocol_port: 81 } });
    expect(second.status).toBe(409);
    t.advance(DELAY_MS);
    expect((await v2("POST", "listeners", { listener: { ...listener.listener, protocol_port: 81 } })).status).toBe(201);
  });

  it("builds listener → pool → member → monitor and tears it down bottom-up", async () => {
    const lbId = await activeLb();
    const listener = await v2("POST", "listeners", { listener: { loadbalancer_id: lbId, protocol: "TCP", protocol_port: 443 } });
    expect(listener.status).toBe(201);
    t.advance(DELAY_MS);
    const listenerId = text(listener.body, "listener.id");
    const pool = await v2("POST", "pools", { pool: { listener_id: listenerId, protocol: "TCP", lb_algorithm: "ROUND_ROBIN" } });
    expect(pool.status).toBe(201);
    const poolId = text(pool.body, "pool.id");
    expect(at((await v2("GET", `listeners/${text(listener.body, "listener.id")}`)).body, "listener.default_pool_id")).toBe(poolId);
    t.advance(DELAY_MS);
    const member = await v2("POST", `pools/${poolId}/members`, {
      member: { address: "192.168.0.11", protocol_port: 30443, subnet_id: SUBNET.neutronSubnetId, name: "node-1" },
    });
    expect(member.status).toBe(201);
    expect(at(member.body, "member")).toMatchObject({
      address: "192.168.0.11",
      protocol_port: 30443,
      subnet_id: SUBNET.neutronSubnetId,
      weight: 1,
    });
    t.advance(DELAY_MS);
    const monitor = await v2("POST", "healthmonitors", { healthmonitor: tcpMonitorOn(poolId) });
    expect(monitor.status).toBe(201);
    const monitorId = text(monitor.body, "healthmonitor.id");
    const memberId = text(member.body, "member.id");
    expect(at((await v2("GET", `pools/${poolId}`)).body, "pool")).toMatchObject({ healthmonitor_id: monitorId, members: [{ id: memberId }] });
    const tree = await v2("GET", `loadbalancers/${lbId}/statuses`);
    expect(at(tree.body, "statuses.loadbalancer.listeners.0.pools.0")).toMatchObject({
      id: poolId,
      healthmonitor: { id: monitorId, type: "TCP" },
      members: [{ id: memberId, address: "192.168.0.11", operating_status: "ONLINE" }],
    });
    t.advance(DELAY_MS);

    // Out of order: the listener still has its pool, the LB its listener.
    expect((await v2("DELETE", `listeners/${text(listener.body, "listener.id")}`)).status).toBe(409);
    expect((await v2("DELETE", `loadbalancers/${lbId}`)).status).toBe(409);
    expect((await v2("DELETE", `pools/${poolId}`)).status).toBe(409);

    const bottomUp = [
      `healthmonitors/${monitorId}`,
      `pools/${poolId}/members/${memberId}`,
      `pools/${poolId}`,
      `listeners/${listenerId}`,
      `loadbalancers/${lbId}`,
    ];
    for (const path of bottomUp) {
      expect([path, (await v2("DELETE", path)).status]).toEqual([path, 204]);
      t.advance(DELAY_MS);
    }
    const state = t.sim.state;
    expect([state.loadbalancers.size, state.listeners.size, state.pools.size, state.members.size, state.monitors.size]).toEqual([0, 0, 0, 0, 0]);
  });

  it("checks protocols and member subnets", async () => {
    const lbId = await activeLb();
    const listener = await v2("POST", "listeners", { listener: { loadbalancer_id: lbId, protocol: "UDP", protocol_port: 53 } });
    t.advance(DELAY_MS);
    const udpListenerId = text(listener.body, "listener.id");
    const wrongPool = await v2("POST", "pools", { pool: { listener_id: udpListenerId, protocol: "TCP", lb_algorithm: "ROUND_ROBIN" } });
    expect(wrongPool.status).toBe(400);
    const pool = await v2("POST", "pools", { pool: { listener_id: udpListenerId, protocol: "UDP", lb_algorithm: "ROUND_ROBIN" } });
    t.advance(DELAY_MS);
    const poolId = text(pool.body, "pool.id");
    const tcpMonitor = await v2("POST", "healthmonitors", { healthmonitor: tcpMonitorOn(poolId) });
    expect(tcpMonitor.status).toBe(400);
    expect(at(tcpMonitor.body, "error_msg")).toMatch(/UDP_CONNECT/);
    const vpcSubnetMember = await v2("POST", `pools/${poolId}/members`, {
      member: { address: "192.168.0.11", protocol_port: 30053, subnet_id: SUBNET.vpcSubnetId },
    });
    expect(vpcSubnetMember.status).toBe(400);
    expect(at(vpcSubnetMember.body, "error_msg")).toContain("VPC subnet id");
    const noSubnet = await v2("POST", `pools/${poolId}/members`, { member: { address: "192.168.0.11", protocol_port: 30053 } });
    expect(noSubnet.status).toBe(400);
  });

  it("filters LBs by description (ownership) and pages with markers", async () => {
    const mine = await activeLb("kubernetes.io/service-uid=mine");
    await activeLb("kubernetes.io/service-uid=theirs");
    const filtered = await v2("GET", `loadbalancers?description=${encodeURIComponent("kubernetes.io/service-uid=mine")}`);
    expect(pluck(filtered.body, "loadbalancers", "id")).toEqual([mine]);
    const page = await v2("GET", "loadbalancers?limit=1");
    expect(at(page.body, "loadbalancers")).toHaveLength(1);
    expect(at(page.body, "loadbalancers_links")).toEqual([{ rel: "next", href: expect.stringContaining(`marker=${mine}`) }]);
    const rest = await v2("GET", `loadbalancers?limit=1&marker=${mine}`);
    expect(at(rest.body, "loadbalancers")).toHaveLength(1);
    expect(at(rest.body, "loadbalancers_links")).toEqual([]);
  });

  it("does not show v2 LBs through the v3 API", async () => {
    const lbId = await activeLb();
    expect((await t.call("GET", `/v3/${PROJECT.id}/elb/loadbalancers/${lbId}`)).status).toBe(404);
  });
});
