import { describe, expect, it } from "@jest/globals";
import {
  MAX_ERROR_BODY_CHARS,
  REDACTED,
  controllerLogger,
  createLogger,
  reconcileLogger,
  serializeError,
  type Logger,
} from "./logger.js";

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

  it("redacts tokens, passwords, credentials, kubeconfigs and Secret data", () => {
    const { log, lines, text } = memoryLogger();
    log.info(
      {
        token: "tok-top",
        user: { name: "alice", token: "tok-nested", password: "pw-nested" },
        password: "pw-top",
        bearerToken: "bearer-top",
        config: { bearerToken: "bearer-nested" },
        credentials: { accessKey: "ak-nested", secretKey: "sk-nested" },
        secretKey: "sk-top",
        accessKey: "ak-top",
        kubeconfig: "apiVersion: v1\nusers: [{user: {token: kc-top}}]",
        tenant: { kubeconfig: "kc-nested" },
        "client-key-data": "ckd-top",
        auth: { "client-key-data": "ckd-nested" },
        req: { method: "GET", headers: { authorization: "Bearer hdr-lower", accept: "application/json" } },
        headers: { Authorization: "Bearer hdr-upper" },
      },
      "credentials",
    );
    log.info({ kind: "Secret", metadata: { name: "s" }, data: { key: "ZGF0YS10b3A=" }, stringData: { key: "sd-top" } }, "secret");
    log.info({ secret: { data: { key: "ZGF0YS1uZXN0ZWQ=" } }, object: { stringData: { key: "sd-nested" } } }, "nested");
    log.info({ event: { type: "ADDED", object: { kind: "Secret", data: { key: "ZXZlbnQ=" } } } }, "event");

    for (const secret of [
      "tok-top", "tok-nested", "pw-top", "pw-nested", "bearer-top", "bearer-nested", "ak-top", "ak-nested",
      "sk-top", "sk-nested", "kc-top", "kc-nested", "ckd-top", "ckd-nested", "hdr-lower", "hdr-upper",
      "ZGF0YS10b3A=", "sd-top", "ZGF0YS1uZXN0ZWQ=", "sd-nested", "ZXZlbnQ=",
    ]) {
      expect(text()).not.toContain(secret);
    }
    const [credentials, secret, nested, event] = lines();
    expect(credentials).toMatchObject({
      token: REDACTED,
      user: { name: "alice", token: REDACTED, password: REDACTED },
      kubeconfig: REDACTED,
      tenant: { kubeconfig: REDACTED },
      "client-key-data": REDACTED,
      req: { method: "GET", headers: { authorization: REDACTED, accept: "application/json" } },
      headers: { Authorization: REDACTED },
    });
    expect(secret).toMatchObject({ kind: "Secret", metadata: { name: "s" }, data: REDACTED, stringData: REDACTED });
    expect(nested).toMatchObject({ secret: { data: REDACTED }, object: { stringData: REDACTED } });
    expect(event).toMatchObject({ event: { type: "ADDED", object: { kind: "Secret", data: REDACTED } } });
  });

  it("redacts secrets bound to child loggers", () => {
    const { log, text } = memoryLogger();
    log.child({ token: "child-token" }).info("x");
    expect(text()).not.toContain("child-token");
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
    expect(serialized.cause?.cause?.message).toBe("outer");
    expect(JSON.stringify(serialized).length).toBeLessThan(10_000);
  });

  it("handles thrown non-errors", () => {
    expect(serializeError("plain")).toEqual({ message: "plain" });
    expect(serializeError(undefined)).toEqual({ message: "undefined" });
    expect(serializeError({ status: 500, headers: { authorization: "Bearer leak" } })).toEqual({ message: "(no message)", status: 500 });
  });
});

describe("child loggers", () => {
  it("carry controller-runtime's field names plus kcp's cluster", () => {
    const { log, lines } = memoryLogger();
    const controllerLog = controllerLogger(log, { controller: "kubernetescluster", group: "platform.edgeconnect.eu", kind: "KubernetesCluster" });
    const reconcileLog = reconcileLogger(controllerLog, { cluster: "2t9926j97luva3ox", namespace: "default", name: "c1", reconcileID: "3f1e" });
    controllerLog.info("starting");
    reconcileLog.info("reconciling");
    const [controllerLine, reconcileLine] = lines();
    expect(controllerLine).toMatchObject({ controller: "kubernetescluster", controllerGroup: "platform.edgeconnect.eu", controllerKind: "KubernetesCluster" });
    expect(reconcileLine).toMatchObject({
      controller: "kubernetescluster",
      controllerGroup: "platform.edgeconnect.eu",
      controllerKind: "KubernetesCluster",
      cluster: "2t9926j97luva3ox",
      namespace: "default",
      name: "c1",
      reconcileID: "3f1e",
      msg: "reconciling",
    });
  });

  it("leave out group and kind when not given", () => {
    const { log, lines } = memoryLogger();
    controllerLogger(log, { controller: "secrets" }).info("x");
    const [line] = lines();
    expect(line).toEqual({ level: "info", time: expect.any(String), controller: "secrets", msg: "x" });
  });
});
