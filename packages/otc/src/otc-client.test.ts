import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { REDACTED, RELEASE_GRACE_MS, scrubText } from "@edgeconnect/redaction";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OtcApiError, OtcConfigError } from "./errors.js";
import { Loopback, SilentServer, TEST_CREDENTIALS, TEST_PROJECT, testClient, type Answer, type Handler, type RecordedRequest } from "./loopback.fixture.js";
import { OtcClient } from "./otc-client.js";
import { canonicalRequest, parseAuthorization, signature, stringToSign } from "./signing/signer.js";

const NOW = new Date(Date.UTC(2025, 4, 6, 7, 8, 9));

/** Verifies a received request the way the gateway does; returns the signed header names. */
function verify(request: RecordedRequest): string[] {
  const auth = parseAuthorization(String(request.headers.authorization));
  expect(auth?.accessKey).toBe(TEST_CREDENTIALS.accessKey);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const url = new URL(request.url, `http://${headers.host}`);
  const canonical = canonicalRequest({ method: request.method, url, headers, body: request.body }, auth?.signedHeaders ?? []);
  expect(signature(TEST_CREDENTIALS.secretKey, stringToSign(headers["x-sdk-date"] ?? "", canonical))).toBe(auth?.signature);
  return auth?.signedHeaders ?? [];
}

describe("OtcClient", () => {
  let loopback: Loopback;
  let client: OtcClient;

  beforeAll(async () => {
    loopback = await Loopback.start();
    client = loopback.client({ now: () => NOW });
  });

  afterAll(async () => {
    client.close();
    await loopback.stop();
  });

  it("holds its credentials by the holder it names while it lives, and lets them go on close", () => {
    const held = new OtcClient({ region: "eu-de", credentials: { accessKey: "HOLDERTESTAK0001", secretKey: "holder-test-secret-key-0001" }, secretHolder: { name: "otc-client-test" } });
    expect(scrubText("holder-test-secret-key-0001")).toBe(REDACTED);
    jest.useFakeTimers({ doNotFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "nextTick", "queueMicrotask", "hrtime", "performance"] });
    try {
      held.close();
      jest.setSystemTime(Date.now() + RELEASE_GRACE_MS);
      expect(scrubText("holder-test-secret-key-0001")).toBe("holder-test-secret-key-0001");
    } finally {
      jest.useRealTimers();
    }
  });

  it("sends a correctly signed, project-scoped GET with query", async () => {
    loopback.reset(() => ({ body: { ok: true } }));
    const answer = await client.request<{ ok: boolean }>("ecs", "GET", `/v1/${TEST_PROJECT}/cloudservers/detail`, {
      query: { name: "node a+b", tags: ["x", "y"], limit: 25, skipped: undefined },
    });
    expect(answer).toEqual({ ok: true });
    const [request] = loopback.requests;
    if (request === undefined) throw new Error("no request");
    expect(request.query.get("name")).toBe("node a+b");
    expect(request.query.getAll("tags")).toEqual(["x", "y"]);
    expect(request.query.has("skipped")).toBe(false);
    expect(request.headers["x-project-id"]).toBe(TEST_PROJECT);
    expect(request.headers["x-sdk-date"]).toBe("20250506T070809Z");
    expect(verify(request)).toEqual(["host", "x-project-id", "x-sdk-date"]);
  });

  it("names itself by the User-Agent it is given, and only then", async () => {
    loopback.reset(() => ({ body: {} }));
    const named = loopback.client({ now: () => NOW, userAgent: "edgeconnect-test-agent" });
    try {
      await named.request("ecs", "GET", `/v1/${TEST_PROJECT}/cloudservers/detail`);
      await client.request("ecs", "GET", `/v1/${TEST_PROJECT}/cloudservers/detail`);
    } finally {
      named.close();
    }
    const [first, second] = loopback.requests;
    expect(first?.headers["user-agent"]).toBe("edgeconnect-test-agent");
    expect(second?.headers["user-agent"]).toBeUndefined();
    if (first !== undefined) expect(verify(first)).toEqual(["host", "x-project-id", "x-sdk-date"]);
  });

  it("signs the exact JSON body bytes and content-type of a POST", async () => {
    loopback.reset(() => ({ status: 201, body: { created: 1 } }));
    await client.request("elb", "POST", "/v2.0/lbaas/loadbalancers", { body: { loadbalancer: { name: "lb-ü", description: "x" } } });
    const [request] = loopback.requests;
    if (request === undefined) throw new Error("no request");
    expect(JSON.parse(request.body)).toEqual({ loadbalancer: { name: "lb-ü", description: "x" } });
    expect(verify(request)).toEqual(["content-type", "host", "x-project-id", "x-sdk-date"]);
  });

  it("leaves X-Project-Id out of requests that are not project-scoped, and returns undefined for empty bodies", async () => {
    loopback.reset(() => ({ status: 204 }));
    expect(await client.request("iam", "DELETE", "/v3/something", { projectScoped: false })).toBeUndefined();
    const [request] = loopback.requests;
    if (request === undefined) throw new Error("no request");
    expect(request.headers["x-project-id"]).toBeUndefined();
    expect(verify(request)).toEqual(["host", "x-sdk-date"]);
  });

  it("retries 409, 429 (honouring Retry-After) and 503, re-signing each attempt, then succeeds", async () => {
    const script = [
      { status: 409, body: { error_code: "ELB.8902", error_msg: "load balancer busy" } },
      { status: 429, body: { error_code: "APIGW.0308", error_msg: "throttled" }, headers: { "retry-after": "3" } },
      { status: 503, body: "Service Unavailable" },
      { status: 200, body: { done: true } },
    ];
    loopback.reset(() => script.shift() ?? { status: 500 });
    expect(await client.request("elb", "PUT", "/v2.0/lbaas/listeners/l1", { body: { listener: {} } })).toEqual({ done: true });
    expect(loopback.requests).toHaveLength(4);
    // Equal jitter with random() = 0.5: three quarters of 500 ms, then Retry-After, then three quarters of 2 s.
    expect(loopback.sleeps).toEqual([375, 3000, 1500]);
    for (const request of loopback.requests) verify(request);
  });

  describe("a request that must not act twice (once)", () => {
    it.each<[string, { status: number; body: unknown }]>([
      ["a 500", { status: 500, body: { error_code: "CCE.01500001", error_msg: "internal error" } }],
      ["a 503", { status: 503, body: "Service Unavailable" }],
      ["a 409", { status: 409, body: { error_code: "X", error_msg: "busy" } }],
    ])("is not sent again after %s, which it may have been acted on before", async (_case, answer) => {
      loopback.reset(() => answer);
      const error = await client.request("cce", "POST", "/api/v3/projects/p/clusters/c1/clustercert", { body: { duration: 30 }, once: true }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: answer.status, retryable: true });
      expect(loopback.requests).toHaveLength(1);
    });

    it("is sent again after a 429, which the gateway answers before the service acts", async () => {
      const script = [{ status: 429, body: { error_code: "APIGW.0308", error_msg: "throttled" } }, { status: 200, body: { issued: true } }];
      loopback.reset(() => script.shift() ?? { status: 500 });
      expect(await client.request("cce", "POST", "/api/v3/projects/p/clusters/c1/clustercert", { body: { duration: 30 }, once: true })).toEqual({ issued: true });
      expect(loopback.requests).toHaveLength(2);
    });

    it("is not sent again after an attempt that timed out, whose answer may only be late", async () => {
      const silent = await SilentServer.start();
      const slow = testClient(silent.baseUrl, { retry: { attempts: 3 }, timeoutMs: 50, sleep: async () => undefined });
      const error = await slow.request("ecs", "POST", "/v1/x", { body: {}, once: true }).catch((e: unknown) => e);
      slow.close();
      const attempts = silent.sockets.length;
      await silent.stop();
      expect(String(error)).toContain("no complete answer within 50 ms");
      expect(attempts).toBe(1);
    });

    it("waits for a late answer until the caller's deadline, not the per-attempt timeout, when the caller gives one", async () => {
      // A slow CCE: cutting the attempt off at the client's timeout would lose the certificate it issued.
      let issued = 0;
      const late = createServer((_request, response) => {
        issued++;
        setTimeout(() => response.end(JSON.stringify({ issued })), 300);
      });
      await new Promise<void>((resolve) => late.listen(0, "127.0.0.1", resolve));
      const slow = testClient(`http://127.0.0.1:${(late.address() as AddressInfo).port}`, { retry: { attempts: 3 }, timeoutMs: 50, sleep: async () => undefined });
      try {
        const answer = await slow.request("cce", "POST", "/api/v3/projects/p/clusters/c1/clustercert", { body: { duration: 30 }, once: true, signal: AbortSignal.timeout(10_000) });
        expect(answer).toEqual({ issued: 1 });
        // The deadline still ends it: the caller's, with its reason.
        const error = await slow.request("cce", "POST", "/api/v3/projects/p/clusters/c1/clustercert", { body: { duration: 30 }, once: true, signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
        expect(error).toMatchObject({ name: "TimeoutError" });
        expect(issued).toBe(2);
      } finally {
        slow.close();
        late.closeAllConnections();
        await new Promise<void>((resolve) => late.close(() => resolve()));
      }
    });
  });

  it("honours an HTTP-date Retry-After", async () => {
    const later = new Date(NOW.getTime() + 7000).toUTCString();
    const script = [{ status: 429, headers: { "retry-after": later } }, { status: 200, body: {} }];
    loopback.reset(() => script.shift() ?? { status: 500 });
    await client.request("ecs", "GET", "/x");
    expect(loopback.sleeps).toEqual([7000]);
  });

  it("caps the backoff and gives up after the configured attempts with the last error", async () => {
    const capped = loopback.client({ retry: { attempts: 6, baseDelayMs: 500, maxDelayMs: 2000 } });
    loopback.reset(() => ({ status: 502, body: { error: { code: "ELB.0001", message: "bad gateway" } } }));
    const error = await capped.request("elb", "GET", "/v2.0/lbaas/pools").catch((e: unknown) => e);
    capped.close();
    expect(error).toBeInstanceOf(OtcApiError);
    expect(error).toMatchObject({ status: 502, code: "ELB.0001", otcMessage: "bad gateway", retryable: true, method: "GET", path: "/v2.0/lbaas/pools" });
    expect(loopback.requests).toHaveLength(6);
    expect(loopback.sleeps).toEqual([375, 750, 1500, 1500, 1500]);
  });

  it.each([
    [400, { NeutronError: { type: "InvalidRequest", message: "bad subnet" } }, "InvalidRequest", "bad subnet"],
    [404, { code: "ECS.0114", message: "server not found" }, "ECS.0114", "server not found"],
    [403, { error_code: "VPC.0003", error_msg: "forbidden" }, "VPC.0003", "forbidden"],
  ])("does not retry %i and reports the OTC code and message", async (status, body, code, message) => {
    loopback.reset(() => ({ status, body }));
    const error = await client.request("vpc", "GET", `/v1/${TEST_PROJECT}/publicips/p?marker=secret-marker`).catch((e: unknown) => e);
    expect(loopback.requests).toHaveLength(1);
    expect(loopback.sleeps).toEqual([]);
    expect(error).toBeInstanceOf(OtcApiError);
    expect(error).toMatchObject({ status, code, otcMessage: message, retryable: false });
    expect((error as OtcApiError).message).toBe(`GET /v1/${TEST_PROJECT}/publicips/p: HTTP ${status} ${code}: ${message}`);
  });

  it("never puts credentials, the Authorization header or the signature into errors", async () => {
    const token = { ...TEST_CREDENTIALS, securityToken: "temporary-security-token-value" };
    const tokenClient = loopback.client({ credentials: token, retry: { attempts: 2 } });
    loopback.reset(() => ({ status: 500, body: { error_code: "X", error_msg: "boom" } }));
    const error = await tokenClient.request("ecs", "GET", "/v1/p").catch((e: unknown) => e);
    tokenClient.close();
    const signatureSent = parseAuthorization(String(loopback.requests[0]?.headers.authorization))?.signature ?? "missing";
    const everything = [String(error), (error as Error).stack, JSON.stringify(error), JSON.stringify(Object.entries(error as object))].join("\n");
    for (const secret of [TEST_CREDENTIALS.secretKey, TEST_CREDENTIALS.accessKey, token.securityToken, signatureSent, "SDK-HMAC-SHA256"]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("retries network errors and reports them with status 0", async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const sleeps: number[] = [];
    const offline = new OtcClient({
      credentials: TEST_CREDENTIALS,
      region: "eu-de",
      projectId: TEST_PROJECT,
      endpoints: { ecs: `http://127.0.0.1:${port}` },
      retry: { attempts: 3 },
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
    });
    const error = await offline.request("ecs", "GET", "/v1/x").catch((e: unknown) => e);
    offline.close();
    expect(error).toMatchObject({ status: 0, retryable: true });
    expect(String(error)).toMatch(/network error: .*ECONNREFUSED/);
    expect(sleeps).toEqual([250, 500]);
  });

  it("times out an attempt that gets no answer", async () => {
    const silent = await SilentServer.start();
    const slow = testClient(silent.baseUrl, { retry: { attempts: 1 }, timeoutMs: 50 });
    const error = await slow.request("ecs", "GET", "/v1/x").catch((e: unknown) => e);
    slow.close();
    await silent.stop();
    expect(error).toMatchObject({ status: 0 });
    expect(String(error)).toContain("no complete answer within 50 ms");
  });

  it("caps a Retry-After beyond retry.maxRetryAfterMs (default a minute)", async () => {
    const throttledOnce = (): Handler => {
      const script: Answer[] = [{ status: 429, headers: { "retry-after": "100000" } }, { status: 200 }];
      return () => script.shift() ?? { status: 500 };
    };
    loopback.reset(throttledOnce());
    await client.request("ecs", "GET", "/x");
    expect(loopback.sleeps).toEqual([60_000]);

    const tighter = loopback.client({ retry: { maxRetryAfterMs: 5000 } });
    loopback.reset(throttledOnce());
    await tighter.request("ecs", "GET", "/x");
    tighter.close();
    expect(loopback.sleeps).toEqual([5000]);
  });

  describe("with an AbortSignal", () => {
    /** Aborts 50 ms from now. */
    function abortSoon(): AbortController {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      return controller;
    }

    it("ends an attempt the server never answers at once, with the signal's reason, and closes its socket", async () => {
      const silent = await SilentServer.start();
      const patient = testClient(silent.baseUrl);
      const controller = abortSoon();
      const started = performance.now();
      const error = await patient.request("ecs", "GET", "/v1/x", { signal: controller.signal }).catch((e: unknown) => e);
      const tookMs = performance.now() - started;
      await silent.allClosed();
      patient.close();
      await silent.stop();
      expect(error).toBe(controller.signal.reason);
      expect(error).toMatchObject({ name: "AbortError" });
      expect(tookMs).toBeLessThan(1000);
      // Aborted, not failed: no second attempt.
      expect(silent.sockets).toHaveLength(1);
    });

    it("stops the backoff between attempts", async () => {
      // The default sleep, a real timer of at least 30 s here.
      const waiting = loopback.client({ sleep: undefined, retry: { baseDelayMs: 60_000 } });
      loopback.reset(() => ({ status: 503 }));
      const controller = abortSoon();
      const started = performance.now();
      const error = await waiting.request("ecs", "GET", "/v1/x", { signal: controller.signal }).catch((e: unknown) => e);
      waiting.close();
      expect(error).toBe(controller.signal.reason);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(loopback.requests).toHaveLength(1);
    });

    it("stops waiting for an injected sleep that ignores the signal", async () => {
      const stuck = loopback.client({ sleep: () => new Promise<void>(() => undefined) });
      loopback.reset(() => ({ status: 503 }));
      const controller = abortSoon();
      const error = await stuck.request("ecs", "GET", "/v1/x", { signal: controller.signal }).catch((e: unknown) => e);
      stuck.close();
      expect(error).toBe(controller.signal.reason);
    });

    it("withSignal binds a signal into every call of the derived client, on the same connections", async () => {
      const silent = await SilentServer.start();
      const patient = testClient(silent.baseUrl);
      const controller = abortSoon();
      const bound = patient.withSignal(controller.signal);
      const error = await bound.request("ecs", "GET", "/v1/x").catch((e: unknown) => e);
      expect(error).toBe(controller.signal.reason);
      await expect(bound.request("ecs", "GET", "/v1/y")).rejects.toBe(controller.signal.reason);
      await silent.allClosed();
      patient.close();
      await silent.stop();
      expect(silent.sockets).toHaveLength(1);
    });

    it("sends nothing when the signal is already aborted", async () => {
      loopback.reset(() => ({ status: 200, body: {} }));
      const reason = new Error("reconcile timed out");
      await expect(client.request("ecs", "GET", "/v1/x", { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      expect(loopback.requests).toHaveLength(0);
    });
  });

  it("refuses project-scoped requests without a project ID", async () => {
    const unscoped = loopback.client({ projectId: undefined });
    await expect(unscoped.request("ecs", "GET", "/v1/x")).rejects.toBeInstanceOf(OtcConfigError);
    unscoped.close();
  });

  it("rejects a bad retry configuration", () => {
    expect(() => loopback.client({ retry: { attempts: 0 } })).toThrow(OtcConfigError);
  });
});
