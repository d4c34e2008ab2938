import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CREDENTIALS, DELAY_MS, PROJECT, startTestSimulator, SUBNET, type TestSimulator, text } from "./test-client.fixture.js";

describe("faults and the request log", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  const projects = `/v3/projects?name=${PROJECT.name}`;

  it("answers injected failures to matching requests only, then recovers", async () => {
    t.sim.faults.failNext({ method: "GET", pathPrefix: "/v3/projects" }, 500, 2);
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`)).status).toBe(200);
    const first = await t.call("GET", projects);
    expect(first.status).toBe(500);
    expect(first.body).toMatchObject({ error_code: "SIM.FAULT" });
    expect((await t.call("GET", projects)).status).toBe(500);
    expect((await t.call("GET", projects)).status).toBe(200);
  });

  it("lets a request take effect before answering the injected failure", async () => {
    const before = t.sim.state.eips.size;
    t.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: `/v1/${PROJECT.id}/publicips` }, 500);
    const body = { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 5, share_type: "PER" } };
    const lost = await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body });
    expect(lost.status).toBe(500);
    expect(t.sim.state.eips.size).toBe(before + 1);
    expect((await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body })).status).toBe(200);
    expect(t.sim.state.eips.size).toBe(before + 2);
  });

  it("answers a refused request as usual even when a fault after effect is pending", async () => {
    t.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: `/v1/${PROJECT.id}/publicips` }, 500);
    const invalid = await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body: { publicip: {} } });
    expect(invalid.status).toBe(400);
    t.sim.faults.clear();
  });

  it("matches a path by its suffix, below ids", async () => {
    t.sim.faults.failNext({ method: "GET", pathSuffix: "/publicips" }, 502);
    expect((await t.call("GET", projects)).status).toBe(200);
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`)).status).toBe(502);
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`)).status).toBe(200);
  });

  it("uses a custom failure body", async () => {
    t.sim.faults.failNext({}, 503, 1, { error_msg: "maintenance", error_code: "APIGW.0503" });
    const result = await t.call("GET", projects);
    expect(result).toEqual({ status: 503, body: { error_msg: "maintenance", error_code: "APIGW.0503" } });
  });

  it("still checks signatures before injected faults", async () => {
    t.sim.faults.failNext({}, 500);
    expect((await t.call("GET", projects, { unsigned: true })).status).toBe(401);
    expect((await t.call("GET", projects)).status).toBe(500);
  });

  it("deals a fault scoped to a User-Agent to that client only, and logs which answers were injected", async () => {
    const before = t.sim.faults.requests.length;
    t.sim.faults.failNext({ method: "GET", pathPrefix: "/v3/projects", agent: "edgeconnect-test" }, 429);
    t.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: `/v1/${PROJECT.id}/publicips`, agent: "edgeconnect-test" }, 500);
    const body = { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 5, share_type: "PER" } };
    // Another program's requests pass the armed faults by.
    expect((await t.call("GET", projects)).status).toBe(200);
    expect((await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body })).status).toBe(200);
    const agent = { "User-Agent": "edgeconnect-test" };
    expect((await t.call("GET", projects, { extraHeaders: agent })).status).toBe(429);
    expect((await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body, extraHeaders: agent })).status).toBe(500);
    expect((await t.call("GET", projects, { extraHeaders: agent })).status).toBe(200);
    expect(t.sim.faults.requests.slice(before).map(({ status, agent: from, fault }) => ({ status, agent: from, fault }))).toEqual([
      { status: 200, agent: "node", fault: undefined },
      { status: 200, agent: "node", fault: undefined },
      { status: 429, agent: "edgeconnect-test", fault: "before" },
      { status: 500, agent: "edgeconnect-test", fault: "after" },
      { status: 200, agent: "edgeconnect-test", fault: undefined },
    ]);
  });

  it("answers a share of the matching requests, drawn from the given source, until cleared", async () => {
    // Draws of 0.1, 0.9, 0.1, …: every other matching request falls below 0.5.
    let draws = 0;
    const random = (): number => (draws++ % 2 === 0 ? 0.1 : 0.9);
    t.sim.faults.failShare({ method: "GET", pathPrefix: "/v3/projects" }, 500, 0.5, { random });
    // A request the match does not name draws nothing.
    expect((await t.call("GET", `/v1/${PROJECT.id}/publicips`)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.call("GET", projects)).status);
    expect(statuses).toEqual([500, 200, 500, 200, 500, 200]);
    expect(draws).toBe(6);
    t.sim.faults.clear();
    expect((await t.call("GET", projects)).status).toBe(200);
  });

  it("lets a share of the matching requests take effect before answering the injected failure", async () => {
    const before = t.sim.state.eips.size;
    t.sim.faults.failShare({ method: "POST", pathPrefix: `/v1/${PROJECT.id}/publicips` }, 500, 1, { random: () => 0.5, phase: "after" });
    const body = { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 5, share_type: "PER" } };
    expect((await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body })).status).toBe(500);
    expect((await t.call("POST", `/v1/${PROJECT.id}/publicips`, { body })).status).toBe(500);
    expect(t.sim.state.eips.size).toBe(before + 2);
    t.sim.faults.clear();
    expect(() => t.sim.faults.failShare({}, 500, 0, { random: Math.random })).toThrow("(0, 1]");
  });

  it("delays matching requests until cleared", async () => {
    t.sim.faults.delay({ pathPrefix: "/v3/projects" }, 150);
    const started = Date.now();
    expect((await t.call("GET", projects)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    t.sim.faults.clear();
    t.sim.faults.failNext({}, 500);
    t.sim.faults.clear();
    expect((await t.call("GET", projects)).status).toBe(200);
  });

  it("keeps an LB busy on demand: 409 until the spell passes", async () => {
    const created = await t.call("POST", "/v2.0/lbaas/loadbalancers", {
      body: { loadbalancer: { name: "lb", vip_subnet_id: SUBNET.neutronSubnetId } },
      project: PROJECT.id,
    });
    const lbId = text(created.body, "loadbalancer.id");
    t.advance(DELAY_MS);
    t.sim.faults.busy(lbId, 5000);
    expect(t.sim.state.loadbalancers.get(lbId)?.provisioningStatus).toBe("PENDING_UPDATE");
    const listener = { listener: { loadbalancer_id: lbId, protocol: "TCP", protocol_port: 80 } };
    expect((await t.call("POST", "/v2.0/lbaas/listeners", { body: listener, project: PROJECT.id })).status).toBe(409);
    t.advance(5000);
    expect((await t.call("POST", "/v2.0/lbaas/listeners", { body: listener, project: PROJECT.id })).status).toBe(201);
  });

  it("logs method, path, query, status, caller and User-Agent of every request", async () => {
    const before = t.sim.faults.requests.length;
    await t.call("GET", `/v1/${PROJECT.id}/cloudservers/missing`);
    await t.call("GET", projects, { unsigned: true });
    expect(t.sim.faults.requests.slice(before)).toEqual([
      { method: "GET", path: `/v1/${PROJECT.id}/cloudservers/missing`, query: "", status: 404, caller: { user: `access-key:${CREDENTIALS.accessKey}` }, agent: "node" },
      // Refused before anyone was authenticated: no caller.
      { method: "GET", path: "/v3/projects", query: `?name=${PROJECT.name}`, status: 401, agent: "node" },
    ]);
  });
});
