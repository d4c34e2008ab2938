import { describe, expect, it } from "@jest/globals";
import { bindPublicIp, createPublicIp, getPublicIp, listPublicIps, releasePublicIp, unbindPublicIp } from "./eip.js";
import { TEST_PROJECT, useLoopback } from "./loopback.fixture.js";

describe("EIP", () => {
  const env = useLoopback();

  const base = `/v1/${TEST_PROJECT}/publicips`;
  const eip = { id: "e1", status: "DOWN", type: "5_bgp", public_ip_address: "80.158.1.1", ip_version: 4 };

  it("allocates a 5_bgp IPv4 EIP with dedicated bandwidth by default", async () => {
    env.loopback.reset(() => ({ body: { publicip: { ...eip, status: "PENDING_CREATE" } } }));
    expect(await createPublicIp(env.client, { bandwidth: { name: "svc-bw", size: 10 } })).toMatchObject({ id: "e1", status: "PENDING_CREATE" });
    expect(env.loopback.requests[0]?.path).toBe(base);
    expect(JSON.parse(env.loopback.requests[0]?.body ?? "")).toEqual({
      publicip: { type: "5_bgp", ip_version: 4 },
      bandwidth: { name: "svc-bw", size: 10, share_type: "PER" },
    });
  });

  it("binds to a port and unbinds with an explicit null port", async () => {
    env.loopback.reset(() => ({ body: { publicip: eip } }));
    await bindPublicIp(env.client, "e1", "vip-port");
    await unbindPublicIp(env.client, "e1");
    expect(env.loopback.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([
      `PUT ${base}/e1 {"publicip":{"port_id":"vip-port"}}`,
      `PUT ${base}/e1 {"publicip":{"port_id":null}}`,
    ]);
  });

  it("gets, lists and releases, tolerating 404", async () => {
    env.loopback.reset((r) => (r.method === "GET" && r.path === base ? { body: { publicips: [eip] } } : { status: 404, body: { code: "VPC.0504", message: "not found" } }));
    expect(await getPublicIp(env.client, "gone")).toBeUndefined();
    expect(await listPublicIps(env.client)).toEqual([eip]);
    expect(await releasePublicIp(env.client, "gone")).toBe(false);
    expect(env.loopback.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${base}/gone`, `GET ${base}?limit=200`, `DELETE ${base}/gone`]);
  });
});
