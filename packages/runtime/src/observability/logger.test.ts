import { describe, expect, it } from "@jest/globals";
import { CIRCULAR, containedFailures, registerSecret } from "@edgeconnect/redaction";
import {
  MAX_ERROR_BODY_CHARS,
  REDACTED,
  createLogger,
  serializeError,
} from "./logger.js";
import type { Logger } from "pino";

/** A logger writing into memory, and the parsed lines it wrote. */
function memoryLogger(level = "info"): { log: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const log = createLogger({ level, destination: { write: (chunk: string) => void chunks.push(chunk) } });
  return {
    log,
    text: () => chunks.join(""),
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe("createLogger", () => {
  it("writes JSON lines with an ISO time, a textual level and no pid/hostname", () => {
    const { log, lines } = memoryLogger();
    log.info({ answer: 42 }, "hello");
    const [line] = lines();
    expect(line).toEqual({ level: "info", time: expect.any(String), answer: 42, msg: "hello" });
    expect(new Date(line?.time as string).toISOString()).toBe(line?.time);
  });

  it("honours the level", () => {
    const { log, lines } = memoryLogger("warn");
    log.info("dropped");
    log.warn("kept");
    expect(lines().map((line) => line.msg)).toEqual(["kept"]);
  });

  it("defaults the level to $LOG_LEVEL", () => {
    const before = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = "debug";
    try {
      expect(createLogger({ destination: { write: () => undefined } }).level).toBe("debug");
    } finally {
      if (before === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = before;
    }
  });

  it("redacts every sensitive key name, at the top and nested", () => {
    const names = [
      "authorization", "Authorization", "token", "tokens", "bearerToken", "password", "passwd", "secret", "secretKey",
      "secret_key", "sk", "accessKey", "access_key", "ak", "securityToken", "security_token", "x-auth-token",
      "X-Subject-Token", "x-security-token", "cookie", "set-cookie", "kubeconfig", "client-key-data", "privateKey",
      "data", "stringData", "credentials",
    ];
    const { log, lines, text } = memoryLogger();
    names.forEach((name, i) => log.info({ [name]: `top-${i}-value`, nested: { [name]: `nested-${i}-value` } }, name));
    for (const [i, line] of lines().entries()) {
      expect(line).toMatchObject({ [names[i] ?? ""]: REDACTED, nested: { [names[i] ?? ""]: REDACTED } });
    }
    expect(lines()).toHaveLength(names.length);
    expect(text()).not.toMatch(/(top|nested)-\d+-value/);
  });

  it("keeps near misses and the rest of an object readable", () => {
    const { log, lines } = memoryLogger();
    log.info({ task: "t", desk: "d", askFor: "a", tokenExpiry: "2030-01-01T00:00:00Z", metadata: { name: "s" }, tokens: 3 }, "x");
    expect(lines()[0]).toMatchObject({ task: "t", desk: "d", askFor: "a", tokenExpiry: "2030-01-01T00:00:00Z", metadata: { name: "s" }, tokens: 3 });
  });

  it("redacts at any depth and inside arrays", () => {
    const { log, lines, text } = memoryLogger();
    log.info({ a: { b: { c: { d: { e: { token: "tok-depth-5" } } } } }, users: [{ name: "u", user: { password: "pw-in-array" } }] }, "deep");
    log.info({ event: { type: "ADDED", object: { kind: "Secret", data: { key: "ZXZlbnQ=" } } } }, "event");
    expect(text()).not.toMatch(/tok-depth-5|pw-in-array|ZXZlbnQ=/);
    const [deep, event] = lines();
    expect(deep).toMatchObject({ a: { b: { c: { d: { e: { token: REDACTED } } } } }, users: [{ name: "u", user: { password: REDACTED } }] });
    expect(event).toMatchObject({ event: { type: "ADDED", object: { kind: "Secret", data: REDACTED } } });
  });

  it("scrubs registered credentials from messages, interpolation, errors under any key, causes and bodies", () => {
    const token = "logger-fake-token-0001";
    registerSecret(token);
    const { log, lines, text } = memoryLogger();
    const echoed = Object.assign(new Error(`GET /api: HTTP 401: ${token}`), { status: 401, body: `{"echo":"${token}"}` });
    const wrapped = new Error("reconcile failed", { cause: echoed });
    log.info(`message with ${token}`);
    log.info("interpolated %s and %j", token, { config: { token: "interpolated-key" } });
    log.error({ err: wrapped }, "under err");
    log.error({ e: echoed }, "under e");
    log.error({ failure: echoed, list: [echoed] }, "under failure");
    log.error(echoed);
    log.error({ err: echoed });
    expect(text()).not.toContain(token);
    expect(text()).not.toContain("interpolated-key");
    const [message, interpolated, underErr, underE, underFailure, bare, messageless] = lines();
    expect(message?.msg).toBe(`message with ${REDACTED}`);
    expect(interpolated?.msg).toBe(`interpolated ${REDACTED} and {"config":{"token":"${REDACTED}"}}`);
    expect(underErr?.err).toMatchObject({
      message: "reconcile failed",
      cause: { status: 401, message: `GET /api: HTTP 401: ${REDACTED}`, body: `{"echo":"${REDACTED}"}` },
    });
    expect(underE?.e).toMatchObject({ message: `GET /api: HTTP 401: ${REDACTED}`, status: 401, body: `{"echo":"${REDACTED}"}` });
    expect(underFailure).toMatchObject({ failure: { status: 401 }, list: [{ status: 401 }] });
    expect(bare).toMatchObject({ msg: `GET /api: HTTP 401: ${REDACTED}`, err: { status: 401 } });
    expect(messageless?.msg).toBe(`GET /api: HTTP 401: ${REDACTED}`);
  });

  it("redacts bearer tokens anywhere, registered or not", () => {
    const { log, text } = memoryLogger();
    log.info({ curl: "curl -H 'Authorization: Bearer unregistered-bearer-0001' https://kcp" }, "Bearer unregistered-bearer-0002");
    expect(text()).not.toMatch(/unregistered-bearer/);
  });

  it("redacts child loggers' bindings, grandchildren's, and credentials registered after binding", () => {
    const { log, text } = memoryLogger();
    const late = "registered-after-binding";
    const child = log.child({ token: "child-token", note: late });
    registerSecret(late);
    child.info("x");
    child.child({ nested: { password: "grandchild-password" } }).info("y");
    expect(text()).not.toMatch(/child-token|registered-after-binding|grandchild-password/);
  });

  it("redacts credentials no one registered, by their shape: kubeconfig lines in a field, a message and as the message, causes, URL queries", () => {
    const kubeconfig = "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: shape-token-never-registered\n    client-key-data: c2hhcGUta2V5LW5ldmVyLXJlZ2lzdGVyZWQ=\n";
    const { log, text } = memoryLogger();
    log.info({ detail: kubeconfig }, "in a field");
    log.info(`in a message: ${kubeconfig}`);
    log.info(kubeconfig);
    log.error({ err: new Error("outer", { cause: new Error("middle", { cause: { response: `token: shape-cause-token-1234\n`, text: kubeconfig } }) }) }, "cause");
    log.error(new Error("request failed", { cause: new Error(`GET https://vw/clusters/*?watch=1&token=shape-query-token-1 failed`) }));
    log.warn("fetch https://kcp.example/clusters/root?token=shape-query-token-2");
    log.error({ err: new Error("GET https://kcp.example/?token=shape-query-token-3 failed") });
    log.error(new Error("GET https://kcp.example/?token=shape-query-token-4 failed"));
    // In a nested cause's message, and so in its stack, which repeats it; and in an AggregateError's errors.
    log.error({ err: new Error("outer", { cause: new Error("middle", { cause: new Error("upstream said token=shape-cause-token-5 for alice") }) }) }, "nested");
    log.error({ err: new AggregateError([new Error("refused password=shape-cause-token-6")], "several failed") }, "aggregate");
    expect(text()).not.toMatch(/shape-token-never-registered|c2hhcGUta2V5|shape-cause-token|shape-query-token/);
    expect(text()).toContain(`token: ${REDACTED}`);
  });

  it("binds what names a reconcile as it is, and scrubs any other binding, or a named one that is not a plain value", () => {
    const { log, lines, text } = memoryLogger();
    log.child({ controller: "kc", cluster: "2x7a", namespace: "default", name: "my-cluster", reconcileID: "r-1" }).info("plain");
    log.child({ name: { password: "nested-under-a-safe-name" }, reconcileID: "r-2" }).info("object");
    log.child({ cluster: "2x7a", token: "token-beside-safe-keys" }).info("mixed");
    expect(lines()[0]).toMatchObject({ controller: "kc", cluster: "2x7a", namespace: "default", name: "my-cluster", reconcileID: "r-1" });
    expect(text()).not.toMatch(/nested-under-a-safe-name|token-beside-safe-keys/);
  });

  it("never throws: a value that breaks serialising loses its line, which says so without the value, and is counted", () => {
    const { log, lines, text } = memoryLogger();
    const before = containedFailures().get("log") ?? 0;
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap-message-hostile-0001");
        },
      },
    );
    expect(() => log.info(hostile, "hostile")).not.toThrow();
    expect(() => log.info({ value: { get secret(): string { throw new Error("getter-message-hostile-0002"); } } }, "getter")).not.toThrow();
    expect(() => log.child(hostile as Record<string, unknown>).info("after a hostile child")).not.toThrow();
    expect(text()).not.toMatch(/hostile-000/);
    expect(lines().map((line) => line.msg)).toEqual(expect.arrayContaining(["a log line could not be written", "getter", "after a hostile child"]));
    expect(containedFailures().get("log") ?? 0).toBeGreaterThan(before);
  });

  it("serializes errors through serializeError", () => {
    const { log, lines } = memoryLogger();
    const err = Object.assign(new Error("boom"), { request: { headers: { authorization: "Bearer leak" } } });
    log.error({ err }, "failed");
    const [line] = lines();
    expect(line?.err).toEqual({ name: "Error", message: "boom", stack: expect.stringContaining("boom") });
  });
});

describe("serializeError", () => {
  it("keeps name, message, stack, status, reason and code, and nothing else", () => {
    const err = Object.assign(new Error("GET /api: HTTP 404: not found"), {
      name: "HttpStatusError",
      status: 404,
      reason: "NotFound",
      code: "E_HTTP",
      url: "https://kcp/api",
      headers: { authorization: "Bearer leak" },
      request: { headers: { authorization: "Bearer leak" } },
    });
    const serialized = serializeError(err);
    expect(serialized).toEqual({
      name: "HttpStatusError",
      message: "GET /api: HTTP 404: not found",
      stack: expect.any(String),
      status: 404,
      reason: "NotFound",
      code: "E_HTTP",
    });
    expect(JSON.stringify(serialized)).not.toContain("leak");
  });

  it("cuts bodies to 500 characters, ellipsis included", () => {
    const body = "x".repeat(MAX_ERROR_BODY_CHARS) + "TAIL";
    const serialized = serializeError(Object.assign(new Error("bad"), { body }));
    expect(serialized.body).toBe(`${"x".repeat(MAX_ERROR_BODY_CHARS - 1)}…`);
    expect(serialized.body).toHaveLength(MAX_ERROR_BODY_CHARS);
    expect(serializeError(Object.assign(new Error("bad"), { body: "short" })).body).toBe("short");
  });

  it("follows causes a bounded number of levels", () => {
    const cyclic = new Error("outer");
    cyclic.cause = new Error("inner", { cause: cyclic });
    const serialized = serializeError(cyclic);
    expect(serialized.cause?.message).toBe("inner");
    expect(serialized.cause?.cause?.message).toBe(CIRCULAR);
    expect(JSON.stringify(serialized).length).toBeLessThan(10_000);
  });

  it("handles thrown non-errors", () => {
    expect(serializeError("plain")).toEqual({ message: "plain" });
    expect(serializeError(undefined)).toEqual({ message: "undefined" });
    expect(serializeError({ status: 500, headers: { authorization: "Bearer leak" } })).toEqual({ message: "(no message)", status: 500 });
  });
});
