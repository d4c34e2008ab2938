import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { canonicalRequest, signature, stringToSign } from "@edgeconnect/otc";
import { parseSdkDate } from "./signature-check.js";
import { at, CREDENTIALS, PROJECT, startTestSimulator, type TestSimulator } from "./test-client.fixture.js";

describe("parseSdkDate", () => {
  it("reads YYYYMMDDTHHMMSSZ", () => {
    expect(parseSdkDate("20260301T120000Z")).toEqual(new Date("2026-03-01T12:00:00Z"));
    expect(parseSdkDate("20280229T235959Z")).toEqual(new Date("2028-02-29T23:59:59Z"));
  });

  it.each(["20260132T120000Z", "20261301T120000Z", "20260301T240000Z", "20260301T126000Z", "20260301T120060Z", "20260230T120000Z", "20260229T120000Z"])(
    "refuses the impossible %s, which Date.UTC would roll over",
    (value) => expect(parseSdkDate(value)).toBeUndefined(),
  );

  it.each(["2026-03-01T12:00:00Z", "20260301T120000", "20260301 120000Z", ""])("refuses the malformed %j", (value) => {
    expect(parseSdkDate(value)).toBeUndefined();
  });
});

describe("signature check", () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator();
  });
  afterAll(() => t.sim.close());

  const path = `/v3/projects?name=${PROJECT.name}`;

  it("accepts a correctly signed request", async () => {
    const result = await t.call("GET", path);
    expect(result.status).toBe(200);
  });

  it("rejects an unsigned request with 401 and an APIGW error body", async () => {
    const result = await t.call("GET", path, { unsigned: true });
    expect(result.status).toBe(401);
    expect(result.body).toMatchObject({ error_code: "APIGW.0301" });
    expect(at(result.body, "error_msg")).toMatch(/Authorization header is missing/);
  });

  it("rejects a wrong secret key without echoing either key", async () => {
    const result = await t.call("GET", path, { credentials: { accessKey: CREDENTIALS.accessKey, secretKey: "wrong-secret" } });
    expect(result.status).toBe(401);
    expect(at(result.body, "error_msg")).toMatch(/signature does not match/);
    const text = JSON.stringify(result.body);
    expect(text).not.toContain(CREDENTIALS.secretKey);
    expect(text).not.toContain("wrong-secret");
  });

  it("rejects an unknown access key", async () => {
    const result = await t.call("GET", path, { credentials: { accessKey: "UNKNOWNAK", secretKey: CREDENTIALS.secretKey } });
    expect(result.status).toBe(401);
    expect(at(result.body, "error_msg")).toMatch(/access key is unknown/);
  });

  it("rejects a date more than 15 minutes off the simulator clock, either way", async () => {
    const late = new Date(t.now().getTime() - 16 * 60 * 1000);
    const early = new Date(t.now().getTime() + 16 * 60 * 1000);
    for (const signedAt of [late, early]) {
      const result = await t.call("GET", path, { signedAt });
      expect(result.status).toBe(401);
      expect(at(result.body, "error_msg")).toMatch(/15 minutes/);
    }
    const withinSkew = await t.call("GET", path, { signedAt: new Date(t.now().getTime() - 14 * 60 * 1000) });
    expect(withinSkew.status).toBe(200);
  });

  it("rejects an impossible X-Sdk-Date even when the signature over it is right", async () => {
    // February 29 of 2026 rolls over to the simulator's "now", March 1, 12:00.
    const date = "20260229T120000Z";
    const url = new URL(path, t.sim.url);
    const headers = { host: url.host, "x-sdk-date": date };
    const canonical = canonicalRequest({ method: "GET", url, headers, body: "" }, ["host", "x-sdk-date"]);
    const authorization = `SDK-HMAC-SHA256 Access=${CREDENTIALS.accessKey}, SignedHeaders=host;x-sdk-date, Signature=${signature(CREDENTIALS.secretKey, stringToSign(date, canonical))}`;
    const result = await t.call("GET", path, { unsigned: true, extraHeaders: { "X-Sdk-Date": date, Authorization: authorization } });
    expect(result.status).toBe(401);
    expect(result.body).toMatchObject({ error_code: "APIGW.0301" });
    expect(at(result.body, "error_msg")).toMatch(/x-sdk-date is not a valid YYYYMMDDTHHMMSSZ date/);
  });

  it("rejects a body changed after signing", async () => {
    const body = { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 10, share_type: "PER" } };
    const result = await t.call("POST", `/v1/${PROJECT.id}/publicips`, {
      body,
      sendBody: JSON.stringify({ ...body, bandwidth: { ...body.bandwidth, size: 1000 } }),
    });
    expect(result.status).toBe(401);
    expect(at(result.body, "error_msg")).toMatch(/signature does not match/);
    expect(t.sim.state.eips.size).toBe(0);
  });

  it("rejects an X-Project-Id header that was added after signing", async () => {
    const result = await t.call("GET", "/v2.0/lbaas/loadbalancers", { extraHeaders: { "X-Project-Id": PROJECT.id } });
    expect(result.status).toBe(401);
    expect(at(result.body, "error_msg")).toMatch(/x-project-id is present but not signed/);
  });

  it("rejects a content hash header that does not match the body", async () => {
    const result = await t.call("POST", `/v1/${PROJECT.id}/publicips`, {
      body: { publicip: { type: "5_bgp" }, bandwidth: { name: "bw", size: 10, share_type: "PER" } },
      extraHeaders: { "X-Sdk-Content-Sha256": "0".repeat(64) },
    });
    expect(result.status).toBe(401);
  });

  it("rejects a malformed Authorization header", async () => {
    const result = await t.call("GET", path, { extraHeaders: { Authorization: "Bearer abc" } });
    expect(result.status).toBe(401);
  });
});
