import { describe, expect, it } from "@jest/globals";
import {
  createHealthMonitorV2,
  createListenerV2,
  createLoadBalancerV2,
  createMemberV2,
  createPoolV2,
  deleteLoadBalancerV2,
  deleteMemberV2,
  getHealthMonitorV2,
  getLoadBalancerV2,
  listLoadBalancersV2,
  listMembersV2,
  updateHealthMonitorV2,
  updatePoolV2,
} from "./elb-v2.js";
import { useLoopback, TEST_PROJECT, type RecordedRequest } from "./loopback.fixture.js";

const call = (r: RecordedRequest | undefined) => `${r?.method} ${r?.url}`;

describe("ELB v2", () => {
  const env = useLoopback();

  it("creates a load balancer with the wrapped body and X-Project-Id", async () => {
    env.loopback.reset((r) => ({ status: 201, body: { loadbalancer: { id: "lb1", ...(JSON.parse(r.body) as { loadbalancer: object }).loadbalancer } } }));
    const lb = await createLoadBalancerV2(env.client, { name: "svc", description: "kubernetes.io/service-uid=u1", vip_subnet_id: "sub" });
    expect(lb).toMatchObject({ id: "lb1", name: "svc" });
    const [request] = env.loopback.requests;
    expect(call(request)).toBe("POST /v2.0/lbaas/loadbalancers");
    expect(request?.headers["x-project-id"]).toBe(TEST_PROJECT);
    expect(JSON.parse(request?.body ?? "")).toEqual({ loadbalancer: { name: "svc", description: "kubernetes.io/service-uid=u1", vip_subnet_id: "sub" } });
  });

  it("gets (404 → undefined), lists by description (exact) and deletes (404 → false)", async () => {
    env.loopback.reset(() => ({ status: 404, body: { NeutronError: { type: "LoadBalancerNotFound", message: "x" } } }));
    expect(await getLoadBalancerV2(env.client, "lb1")).toBeUndefined();
    expect(await deleteLoadBalancerV2(env.client, "lb1")).toBe(false);
    env.loopback.reset(() => ({ body: { loadbalancers: [{ id: "a", description: "mine" }, { id: "b", description: "mine-too" }], loadbalancers_links: [] } }));
    expect((await listLoadBalancersV2(env.client, { description: "mine" })).map((lb) => lb.id)).toEqual(["a"]);
    expect(env.loopback.requests[0]?.query.get("description")).toBe("mine");
    env.loopback.reset(() => ({ status: 204 }));
    expect(await deleteLoadBalancerV2(env.client, "lb1")).toBe(true);
    expect(call(env.loopback.requests[0])).toBe("DELETE /v2.0/lbaas/loadbalancers/lb1");
  });

  it("gets one health monitor by id (what a pool's healthmonitor_id names), 404 → undefined", async () => {
    env.loopback.reset((r) => (r.path.endsWith("/h1") ? { body: { healthmonitor: { id: "h1", type: "TCP" } } } : { status: 404, body: { NeutronError: { type: "EntityNotFound", message: "Healthmonitor h2 could not be found" } } }));
    expect(await getHealthMonitorV2(env.client, "h1")).toMatchObject({ id: "h1", type: "TCP" });
    expect(await getHealthMonitorV2(env.client, "h2")).toBeUndefined();
    expect(env.loopback.requests.map(call)).toEqual(["GET /v2.0/lbaas/healthmonitors/h1", "GET /v2.0/lbaas/healthmonitors/h2"]);
  });

  it("creates listeners, pools, members and monitors at their paths", async () => {
    env.loopback.reset((r) => {
      const [key] = Object.keys(JSON.parse(r.body) as object);
      return { status: 201, body: { [key ?? "none"]: { id: "new" } } };
    });
    await createListenerV2(env.client, { loadbalancer_id: "lb", protocol: "TCP", protocol_port: 80 });
    await createPoolV2(env.client, { listener_id: "l", protocol: "TCP", lb_algorithm: "ROUND_ROBIN" });
    await createMemberV2(env.client, "pool/1", { address: "10.0.0.5", protocol_port: 30080, subnet_id: "sub" });
    await createHealthMonitorV2(env.client, { pool_id: "p", type: "TCP", delay: 5, timeout: 3, max_retries: 3 });
    expect(env.loopback.requests.map(call)).toEqual([
      "POST /v2.0/lbaas/listeners",
      "POST /v2.0/lbaas/pools",
      "POST /v2.0/lbaas/pools/pool%2F1/members",
      "POST /v2.0/lbaas/healthmonitors",
    ]);
    expect(JSON.parse(env.loopback.requests[2]?.body ?? "")).toEqual({ member: { address: "10.0.0.5", protocol_port: 30080, subnet_id: "sub" } });
  });

  it("updates, lists and deletes children", async () => {
    env.loopback.reset((r) => {
      if (r.method === "DELETE") return { status: 204 };
      if (r.path.endsWith("/members")) return { body: { members: [{ id: "m1" }], members_links: [] } };
      const [key] = Object.keys(JSON.parse(r.body) as object);
      return { body: { [key ?? "none"]: { id: "x" } } };
    });
    await updatePoolV2(env.client, "p1", { lb_algorithm: "SOURCE_IP", session_persistence: null });
    await updateHealthMonitorV2(env.client, "h1", { delay: 10 });
    expect((await listMembersV2(env.client, "p1")).map((m) => m.id)).toEqual(["m1"]);
    expect(await deleteMemberV2(env.client, "p1", "m1")).toBe(true);
    expect(env.loopback.requests.map(call)).toEqual([
      "PUT /v2.0/lbaas/pools/p1",
      "PUT /v2.0/lbaas/healthmonitors/h1",
      "GET /v2.0/lbaas/pools/p1/members?limit=200",
      "DELETE /v2.0/lbaas/pools/p1/members/m1",
    ]);
    expect(JSON.parse(env.loopback.requests[0]?.body ?? "")).toEqual({ pool: { lb_algorithm: "SOURCE_IP", session_persistence: null } });
  });
});
