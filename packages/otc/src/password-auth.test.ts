import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { REDACTED } from "@edgeconnect/redaction";
import { OtcApiError, OtcConfigError } from "./errors.js";
import { validateCredentials } from "./iam.js";
import {
  Loopback,
  SilentServer,
  TEST_CREDENTIALS,
  TEST_PASSWORD,
  TEST_PROJECT,
  TOKEN_PROJECT,
  isTokenRequest,
  testClient,
  tokenAnswer,
  type Handler,
  type RecordedRequest,
} from "./loopback.fixture.js";
import type { OtcClient } from "./otc-client.js";

const T0 = new Date(Date.UTC(2025, 4, 6, 7, 0, 0));
const IAM_401 = {
  status: 401,
  body: { error: { code: 401, message: "The request you have made requires authentication.", title: "Unauthorized" } },
};

/** IAM issues `tok-1`, `tok-2`, ... valid for `lifetimeMs`; services answer 200 to a known token, 401 to any other. */
function cloud(clock: () => Date, options: { lifetimeMs?: number; revoked?: Set<string> } = {}): Handler {
  let issued = 0;
  return (request) => {
    if (isTokenRequest(request)) return tokenAnswer(`tok-${++issued}`, clock(), options.lifetimeMs);
    const token = String(request.headers["x-auth-token"]);
    const known = /^tok-\d+$/.test(token) && !(options.revoked?.has(token) ?? false);
    return known ? { body: { token } } : { status: 401, body: { error_code: "APIGW.0301", error_msg: "Incorrect IAM authentication information" } };
  };
}

const summary = (requests: readonly RecordedRequest[]): string[] =>
  requests.map((r) => (isTokenRequest(r) ? "token" : `${r.method} ${r.path} ${String(r.headers["x-auth-token"])}`));

describe("password (IAM token) authentication", () => {
  let loopback: Loopback;
  let now: Date;
  const clock = (): Date => now;
  /** A password client without a configured project, on a fixed clock the test moves. */
  const passwordClient = (): OtcClient => loopback.client({ credentials: TEST_PASSWORD, projectId: undefined, now: clock });

  beforeAll(async () => {
    loopback = await Loopback.start();
  });

  afterAll(async () => {
    await loopback.stop();
  });

  it("gets a project-scoped token with the user's password and sends it instead of a signature", async () => {
    now = T0;
    loopback.reset(cloud(clock));
    const client = passwordClient();
    expect(await client.request("ecs", "GET", "/v1/p/cloudservers/detail")).toEqual({ token: "tok-1" });
    client.close();
    const [token, call] = loopback.requests;
    expect(token?.headers["content-type"]).toBe("application/json;charset=UTF-8");
    expect(token?.headers.authorization).toBeUndefined();
    expect(token?.headers["x-auth-token"]).toBeUndefined();
    expect(JSON.parse(token?.body ?? "")).toEqual({
      auth: {
        identity: {
          methods: ["password"],
          password: { user: { name: "test-user", password: TEST_PASSWORD.password, domain: { name: "OTC-TEST-DOMAIN" } } },
        },
        scope: { project: { name: "eu-de_test" } },
      },
    });
    expect(call?.headers["x-auth-token"]).toBe("tok-1");
    for (const header of ["authorization", "x-sdk-date", "x-project-id"]) expect(call?.headers[header]).toBeUndefined();
  });

  it("reuses the token, and takes the token's project as the project ID when none is configured", async () => {
    now = T0;
    loopback.reset(cloud(clock));
    const client = passwordClient();
    expect(() => client.projectId).toThrow(OtcConfigError);
    await client.request("ecs", "GET", "/a");
    await client.request("vpc", "GET", "/b");
    expect(client.projectId).toBe(TOKEN_PROJECT);
    const configured = loopback.client({ credentials: TEST_PASSWORD, projectId: TEST_PROJECT, now: clock });
    expect(configured.projectId).toBe(TEST_PROJECT);
    client.close();
    configured.close();
    expect(summary(loopback.requests)).toEqual(["token", "GET /a tok-1", "GET /b tok-1"]);
  });

  it("renews the token five minutes before it expires, by the injected clock", async () => {
    now = T0;
    loopback.reset(cloud(clock, { lifetimeMs: 3600_000 }));
    const client = passwordClient();
    await client.request("ecs", "GET", "/a");
    now = new Date(T0.getTime() + 55 * 60_000 - 1);
    await client.request("ecs", "GET", "/b");
    now = new Date(T0.getTime() + 55 * 60_000);
    await client.request("ecs", "GET", "/c");
    client.close();
    expect(summary(loopback.requests)).toEqual(["token", "GET /a tok-1", "GET /b tok-1", "token", "GET /c tok-2"]);
  });

  it("renews a short-lived token half-way through its life", async () => {
    now = T0;
    loopback.reset(cloud(clock, { lifetimeMs: 4 * 60_000 }));
    const client = passwordClient();
    await client.request("ecs", "GET", "/a");
    now = new Date(T0.getTime() + 2 * 60_000 - 1);
    await client.request("ecs", "GET", "/b");
    now = new Date(T0.getTime() + 2 * 60_000);
    await client.request("ecs", "GET", "/c");
    client.close();
    expect(summary(loopback.requests)).toEqual(["token", "GET /a tok-1", "GET /b tok-1", "token", "GET /c tok-2"]);
  });

  it("asks IAM once for concurrent calls, and shares the token with withSignal and withProjectId clients", async () => {
    now = T0;
    loopback.reset(cloud(clock));
    const client = passwordClient();
    const bound = client.withSignal(new AbortController().signal);
    const other = client.withProjectId(TEST_PROJECT);
    await Promise.all([client, bound, other, client, bound].map((c, i) => c.request("ecs", "GET", `/${i}`)));
    await other.request("ecs", "GET", "/later");
    client.close();
    other.close();
    expect(loopback.requests.filter(isTokenRequest)).toHaveLength(1);
    expect(loopback.requests.filter((r) => !isTokenRequest(r)).every((r) => r.headers["x-auth-token"] === "tok-1")).toBe(true);
    expect(bound.projectId).toBe(TOKEN_PROJECT);
  });

  it("renews once on a 401 and resends, without using up an attempt", async () => {
    now = T0;
    const revoked = new Set<string>();
    loopback.reset(cloud(clock, { revoked }));
    const client = loopback.client({ credentials: TEST_PASSWORD, now: clock, retry: { attempts: 1 } });
    await client.request("ecs", "GET", "/a");
    revoked.add("tok-1");
    expect(await client.request("ecs", "GET", "/b")).toEqual({ token: "tok-2" });
    client.close();
    expect(summary(loopback.requests)).toEqual(["token", "GET /a tok-1", "GET /b tok-1", "token", "GET /b tok-2"]);
    expect(loopback.sleeps).toEqual([]);
  });

  it("renews only once for concurrent 401s of the same token", async () => {
    now = T0;
    const revoked = new Set<string>();
    loopback.reset(cloud(clock, { revoked }));
    const client = passwordClient();
    await client.request("ecs", "GET", "/a");
    revoked.add("tok-1");
    await Promise.all([1, 2, 3].map((i) => client.request("ecs", "GET", `/${i}`)));
    client.close();
    expect(loopback.requests.filter(isTokenRequest)).toHaveLength(2);
  });

  it("gives up with the service's 401 when a fresh token is refused too", async () => {
    now = T0;
    loopback.reset((request) => (isTokenRequest(request) ? tokenAnswer("tok-x", T0) : { status: 401, body: { error_code: "APIGW.0307", error_msg: "token expired" } }));
    const client = passwordClient();
    const error = await client.request("ecs", "GET", "/a").catch((e: unknown) => e);
    client.close();
    expect(error).toMatchObject({ status: 401, code: "APIGW.0307", otcMessage: "token expired" });
    expect(summary(loopback.requests)).toEqual(["token", "GET /a tok-x", "token", "GET /a tok-x"]);
  });

  it("reports IAM's refusal as an OtcApiError 401 with IAM's message, never with the password", async () => {
    loopback.reset(() => IAM_401);
    const client = passwordClient();
    const error = await client.request("ecs", "GET", "/a").catch((e: unknown) => e);
    client.close();
    expect(error).toBeInstanceOf(OtcApiError);
    expect(error).toMatchObject({ status: 401, code: "401", otcMessage: "The request you have made requires authentication.", retryable: false });
    expect((error as OtcApiError).message).toBe("POST /v3/auth/tokens: HTTP 401 401: The request you have made requires authentication.");
    const everything = [String(error), (error as Error).stack, JSON.stringify(error), JSON.stringify(Object.entries(error as object))].join("\n");
    expect(everything).not.toContain(TEST_PASSWORD.password);
    // Not retried, and no service call without a token.
    expect(summary(loopback.requests)).toEqual(["token"]);
  });

  it("keeps the password and the token out of errors that quote them", async () => {
    now = T0;
    loopback.reset((request) =>
      isTokenRequest(request)
        ? tokenAnswer("token-value-0123456789", T0)
        : { status: 400, body: { error_code: "X", error_msg: `bad token ${String(request.headers["x-auth-token"])} for password ${TEST_PASSWORD.password}` } },
    );
    const client = passwordClient();
    const error = await client.request("ecs", "GET", "/a").catch((e: unknown) => e);
    client.close();
    expect((error as OtcApiError).otcMessage).toBe(`bad token ${REDACTED} for password ${REDACTED}`);
  });

  it.each([
    ["no X-Subject-Token", { status: 201, body: tokenAnswer("t", T0).body }, "token answer has no X-Subject-Token header"],
    ["no project", { ...tokenAnswer("tok-9", T0), body: { token: { expires_at: T0.toISOString() } } }, 'token answer has no "token.project.id"'],
    ["no expiry", { ...tokenAnswer("tok-9", T0), body: { token: { project: { id: "p" } } } }, 'token answer has no valid "token.expires_at"'],
  ])("reports a token answer with %s as a contract breach", async (_, answer, message) => {
    loopback.reset(() => answer);
    const client = passwordClient();
    await expect(client.request("ecs", "GET", "/a")).rejects.toMatchObject({ name: "OtcApiError", otcMessage: message });
    client.close();
  });

  it("rejects empty password credentials by field name, at construction", () => {
    expect(() => testClient(loopback.baseUrl, { credentials: { ...TEST_PASSWORD, domainName: "" } })).toThrow(
      new OtcConfigError("password credentials: domainName is empty"),
    );
  });

  it("authenticate() is for password credentials only", async () => {
    const aksk = loopback.client({ credentials: TEST_CREDENTIALS });
    await expect(aksk.authenticate()).rejects.toBeInstanceOf(OtcConfigError);
    aksk.close();
  });

  it("keeps AK/SK credentials with or without kind working as before", async () => {
    loopback.reset(() => ({ body: {} }));
    for (const credentials of [TEST_CREDENTIALS, { ...TEST_CREDENTIALS, kind: "accessKey" as const }]) {
      const client = loopback.client({ credentials });
      expect(client.authMode).toBe("accessKey");
      await client.request("ecs", "GET", "/a");
      client.close();
    }
    expect(loopback.requests.map((r) => [String(r.headers.authorization).startsWith("SDK-HMAC-SHA256 "), r.headers["x-project-id"]])).toEqual([
      [true, TEST_PROJECT],
      [true, TEST_PROJECT],
    ]);
  });

  describe("with an AbortSignal", () => {
    it("ends a token request IAM never answers at once, and closes its socket", async () => {
      const silent = await SilentServer.start();
      const client = testClient(silent.baseUrl, { credentials: TEST_PASSWORD });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const started = performance.now();
      const error = await client.request("ecs", "GET", "/a", { signal: controller.signal }).catch((e: unknown) => e);
      expect(error).toBe(controller.signal.reason);
      expect(performance.now() - started).toBeLessThan(1000);
      // The last caller left, so the token request was ended too.
      await silent.allClosed();
      client.close();
      await silent.stop();
      expect(silent.sockets).toHaveLength(1);
    });

    it("validateCredentials passes its signal to the token request", async () => {
      loopback.reset(cloud(clock));
      const reason = new Error("stopped");
      const client = passwordClient();
      await expect(validateCredentials(client, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      client.close();
      expect(loopback.requests).toHaveLength(0);
    });
  });
});
