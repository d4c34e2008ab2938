import { describe, expect, it, jest } from "@jest/globals";
import { REDACTED, RELEASE_GRACE_MS, scrubText } from "@edgeconnect/redaction";
import { MAX_TOKEN_LIFETIME_MS, readIssuedToken, TokenCache, type IssuedToken } from "./iam-token.js";

const T0 = Date.UTC(2025, 4, 6, 7, 0, 0);

function deferred(): { promise: Promise<IssuedToken>; resolve: (token: IssuedToken) => void; signals: AbortSignal[]; issue: (signal: AbortSignal) => Promise<IssuedToken> } {
  let resolve: (token: IssuedToken) => void = () => undefined;
  const promise = new Promise<IssuedToken>((r) => (resolve = r));
  const signals: AbortSignal[] = [];
  const issue = (signal: AbortSignal): Promise<IssuedToken> => {
    signals.push(signal);
    return new Promise((r, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason as Error));
      void promise.then(r);
    });
  };
  return { promise, resolve, signals, issue };
}

const token = (value: string, renewAtMs = T0 + 3600_000): IssuedToken => ({ value, projectId: "p", renewAtMs });

describe("TokenCache", () => {
  it("shares one request between callers; one caller giving up ends only its own wait", async () => {
    const cache = new TokenCache();
    const iam = deferred();
    const leaving = new AbortController();
    const first = cache.get(T0, iam.issue, leaving.signal);
    const second = cache.get(T0, iam.issue, undefined);
    leaving.abort(new Error("gone"));
    await expect(first).rejects.toThrow("gone");
    expect(iam.signals[0]?.aborted).toBe(false);
    iam.resolve(token("t1"));
    expect((await second).value).toBe("t1");
    expect(iam.signals).toHaveLength(1);
    expect(cache.projectId).toBe("p");
  });

  it("ends the request when its last caller gives up, and starts afresh for the next", async () => {
    const cache = new TokenCache();
    const iam = deferred();
    const controller = new AbortController();
    const waiting = cache.get(T0, iam.issue, controller.signal);
    controller.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
    expect(iam.signals[0]?.aborted).toBe(true);
    const next = cache.get(T0, iam.issue, undefined);
    expect(iam.signals).toHaveLength(2);
    iam.resolve(token("t2"));
    expect((await next).value).toBe("t2");
  });

  it("discards only the token it is told about", async () => {
    const cache = new TokenCache();
    const t1 = token("t1");
    await cache.get(T0, async () => t1, undefined);
    cache.discard(token("other"));
    expect(await cache.get(T0, async () => token("t2"), undefined)).toBe(t1);
    cache.discard(t1);
    expect((await cache.get(T0, async () => token("t2"), undefined)).value).toBe("t2");
  });
});

describe("readIssuedToken", () => {
  const body = (token: object): string => JSON.stringify({ token });

  it("registers the token and renews by IAM's lifetime, whatever the local clock says", () => {
    const issued = readIssuedToken(
      "/v3/auth/tokens",
      201,
      "registered-token-value-123",
      body({ issued_at: new Date(T0).toISOString(), expires_at: new Date(T0 + 24 * 3600_000).toISOString(), project: { id: "p1" } }),
      // The local clock runs an hour ahead of IAM's.
      new Date(T0 + 3600_000),
    );
    expect(issued).toEqual({ value: "registered-token-value-123", projectId: "p1", renewAtMs: T0 + 3600_000 + 24 * 3600_000 - 5 * 60_000 });
    expect(scrubText("X-Auth-Token: registered-token-value-123")).toBe(`X-Auth-Token: ${REDACTED}`);
  });

  it("holds the token only while it can be valid: a day, then the grace period, then it is forgotten", () => {
    // Only the wall clock moves: the redaction registry's deadlines are on it.
    jest.useFakeTimers({ doNotFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "nextTick", "queueMicrotask", "hrtime", "performance"] });
    try {
      readIssuedToken("/v3/auth/tokens", 201, "expiring-token-value-456", body({ expires_at: new Date(T0 + 3600_000).toISOString(), project: { id: "p1" } }), new Date(T0));
      jest.setSystemTime(Date.now() + MAX_TOKEN_LIFETIME_MS + RELEASE_GRACE_MS - 1);
      expect(scrubText("expiring-token-value-456")).toBe(REDACTED);
      jest.setSystemTime(Date.now() + 1);
      expect(scrubText("expiring-token-value-456")).toBe("expiring-token-value-456");
    } finally {
      jest.useRealTimers();
    }
  });

  it("measures the lifetime from receipt when IAM gives no issued_at", () => {
    const issued = readIssuedToken("/v3/auth/tokens", 201, ["first-token-value", "second"], body({ expires_at: new Date(T0 + 3600_000).toISOString(), project: { id: "p1" } }), new Date(T0));
    expect(issued).toMatchObject({ value: "first-token-value", renewAtMs: T0 + 55 * 60_000 });
  });

  it("reports a body that is not JSON without quoting it", () => {
    expect(() => readIssuedToken("/v3/auth/tokens", 201, "token-value-abcdef", "{broken secret-ish", new Date(T0))).toThrow(
      "POST /v3/auth/tokens: HTTP 201: token answer is not JSON",
    );
  });
});
