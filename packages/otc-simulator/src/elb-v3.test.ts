import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { at, DELAY_MS, pluck, PROJECT, startTestSimulator, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";

describe("ELB v3 (dedicated)", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  const v3 = (method: string, path: string, body?: unknown) => t.call(method, `/v3/${PROJECT.id}/elb/${path}`, { body });
  const lbBody = (extra: Record<string, unknown> = {}) => ({
    loadbalancer: { name: "lb3", vip_subnet_cidr_id: SUBNET.neutronSubnetId, availability_zone_list: ["eu-de-01"], ...extra },
  });

  it("creates an LB with a new EIP, answers with request_id, and goes ACTIVE", async () => {
    const created = await v3(
      "POST",
      "loadbalancers",
      lbBody({ publicip: { network_type: "5_bgp", bandwidth: { name: "bw-lb3", size: 10, share_type: "PER", charge_mode: "traffic" } } }),
    );
    expect(created.status).toBe(201);
    expect(at(created.body, "request_id")).toEqual(expect.any(String));
    const lb = at(created.body, "loadbalancer");
    expect(lb).toMatchObject({ provisioning_status: "PENDING_CREATE", vip_subnet_cidr_id: SUBNET.neutronSubnetId, vpc_id: SUBNET.vpcId });
    expect(at(lb, "publicips")).toEqual([
      { publicip_id: expect.any(String), publicip_address: expect.stringMatching(/^80\.158\./), ip_version: 4 },
    ]);
    const eip = t.sim.state.eips.get(text(lb, "publicips.0.publicip_id"));
    expect(eip?.status).toBe("ACTIVE");
    t.advance(DELAY_MS);
    expect(at((await v3("GET", `loadbalancers/${text(lb, "id")}`)).body, "loadbalancer.provisioning_status")).toBe("ACTIVE");

    // Deleting the LB unbinds its EIP but does not release it.
    expect((await v3("DELETE", `loadbalancers/${text(lb, "id")}`)).status).toBe(204);
    expect(eip?.status).toBe("DOWN");
    expect(t.sim.state.eips.has(eip?.id ?? "")).toBe(true);
  });

  it("requires availability zones and rejects wrong kinds of subnet ids", async () => {
    expect((await v3("POST", "loadbalancers", lbBody({ availability_zone_list: [] }))).status).toBe(400);
    const vpcSubnet = await v3("POST", "loadbalancers", lbBody({ vip_subnet_cidr_id: SUBNET.vpcSubnetId }));
    expect(vpcSubnet.status).toBe(400);
    expect(at(vpcSubnet.body, "error_msg")).toContain("VPC subnet id");
    const virsubnet = await v3("POST", "loadbalancers", lbBody({ elb_virsubnet_ids: [SUBNET.neutronSubnetId] }));
    expect(virsubnet.status).toBe(400);
    expect(at(virsubnet.body, "error_msg")).toContain(SUBNET.neutronNetworkId);
    expect((await v3("POST", "loadbalancers", lbBody({ elb_virsubnet_ids: [SUBNET.neutronNetworkId] }))).status).toBe(201);
  });

  it("lists with page_info and description filters", async () => {
    const created = await v3("POST", "loadbalancers", lbBody({ description: "kubernetes.io/service-uid=v3" }));
    const list = await v3("GET", `loadbalancers?description=${encodeURIComponent("kubernetes.io/service-uid=v3")}`);
    expect(pluck(list.body, "loadbalancers", "id")).toEqual([at(created.body, "loadbalancer.id")]);
    expect(at(list.body, "page_info")).toMatchObject({ current_count: 1, next_marker: null });
  });

  it("runs listener, pool, member and monitor with the v3 member subnet field", async () => {
    const created = await v3("POST", "loadbalancers", lbBody());
    const lbId = text(created.body, "loadbalancer.id");
    t.advance(DELAY_MS);
    const listener = await v3("POST", "listeners", { listener: { loadbalancer_id: lbId, protocol: "TCP", protocol_port: 80 } });
    expect(at(listener.body, "listener")).toMatchObject({ transparent_client_ip_enable: true, loadbalancers: [{ id: lbId }] });
    t.advance(DELAY_MS);
    const listenerId = text(listener.body, "listener.id");
    const pool = await v3("POST", "pools", { pool: { listener_id: listenerId, protocol: "TCP", lb_algorithm: "LEAST_CONNECTIONS" } });
    t.advance(DELAY_MS);
    const member = await v3("POST", `pools/${text(pool.body, "pool.id")}/members`, {
      member: { address: "192.168.0.12", protocol_port: 30080, subnet_cidr_id: SUBNET.neutronSubnetId },
    });
    expect(member.status).toBe(201);
    expect(at(member.body, "member")).toMatchObject({ subnet_cidr_id: SUBNET.neutronSubnetId, ip_version: "v4" });
    t.advance(DELAY_MS);
    const monitor = await v3("POST", "healthmonitors", {
      healthmonitor: {
        pool_id: at(pool.body, "pool.id"),
        type: "HTTP",
        delay: 5,
        timeout: 3,
        max_retries: 3,
        monitor_port: 31000,
        url_path: "/healthz",
      },
    });
    expect(monitor.status).toBe(201);
    t.advance(DELAY_MS);
    const changeType = await v3("PUT", `healthmonitors/${text(monitor.body, "healthmonitor.id")}`, { healthmonitor: { type: "TCP" } });
    expect(changeType.status).toBe(400);
    const members = await v3("GET", `pools/${text(pool.body, "pool.id")}/members`);
    expect(at(members.body, "members")).toHaveLength(1);
    expect(at(members.body, "page_info.current_count")).toBe(1);
  });
});
