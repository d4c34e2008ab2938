import { describe, expect, it } from "@jest/globals";
import { createListenerV3, createLoadBalancerV3, createMemberV3, deleteHealthMonitorV3, getHealthMonitorV3, listLoadBalancersV3, listPoolsV3 } from "./elb-v3.js";
import { TEST_PROJECT, useLoopback } from "./loopback.fixture.js";

describe("ELB v3", () => {
  const env = useLoopback();

  const base = `/v3/${TEST_PROJECT}/elb`;

  it("creates a dedicated load balancer with existing EIPs under the project path", async () => {
    env.loopback.reset(() => ({ status: 201, body: { request_id: "r", loadbalancer: { id: "lb", publicips: [{ publicip_id: "e1", publicip_address: "80.158.1.1", ip_version: 4 }] } } }));
    const lb = await createLoadBalancerV3(env.client, {
      name: "svc",
      description: "kubernetes.io/service-uid=u",
      availability_zone_list: ["eu-de-01"],
      vip_subnet_cidr_id: "neutron-subnet",
      elb_virsubnet_ids: ["neutron-net"],
      publicip_ids: ["e1"],
    });
    expect(lb.publicips?.[0]?.publicip_address).toBe("80.158.1.1");
    expect(env.loopback.requests[0]?.path).toBe(`${base}/loadbalancers`);
    expect(JSON.parse(env.loopback.requests[0]?.body ?? "")).toMatchObject({ loadbalancer: { publicip_ids: ["e1"], availability_zone_list: ["eu-de-01"] } });
  });

  it("lists by name and description with array filters, filtering exactly", async () => {
    env.loopback.reset(() => ({ body: { loadbalancers: [{ id: "a", name: "n", description: "d" }, { id: "b", name: "n", description: "other" }], page_info: { current_count: 2 } } }));
    expect((await listLoadBalancersV3(env.client, { name: "n", description: "d" })).map((lb) => lb.id)).toEqual(["a"]);
    expect(env.loopback.requests[0]?.url).toBe(`${base}/loadbalancers?name=n&description=d&limit=200`);
  });

  it("keeps only the pools of the load balancer asked for", async () => {
    env.loopback.reset(() => ({ body: { pools: [{ id: "p1", loadbalancers: [{ id: "lb" }] }, { id: "p2", loadbalancers: [{ id: "other" }] }], page_info: {} } }));
    expect((await listPoolsV3(env.client, "lb")).map((p) => p.id)).toEqual(["p1"]);
    expect(env.loopback.requests[0]?.query.getAll("loadbalancer_id")).toEqual(["lb"]);
  });

  it("creates listeners and members and deletes monitors at their paths", async () => {
    env.loopback.reset((r) => (r.method === "DELETE" ? { status: 204 } : { status: 201, body: { listener: { id: "l" }, member: { id: "m" } } }));
    await createListenerV3(env.client, { loadbalancer_id: "lb", protocol: "UDP", protocol_port: 53, transparent_client_ip_enable: true });
    await createMemberV3(env.client, "p1", { address: "10.0.0.5", protocol_port: 30053, subnet_cidr_id: "sub" });
    expect(await deleteHealthMonitorV3(env.client, "h1")).toBe(true);
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${base}/listeners`,
      `POST ${base}/pools/p1/members`,
      `DELETE ${base}/healthmonitors/h1`,
    ]);
  });

  it("gets one health monitor by id under the project path", async () => {
    env.loopback.reset(() => ({ body: { healthmonitor: { id: "h1", type: "HTTP" } } }));
    expect(await getHealthMonitorV3(env.client, "h1")).toMatchObject({ id: "h1", type: "HTTP" });
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}/healthmonitors/h1`]);
  });
});
