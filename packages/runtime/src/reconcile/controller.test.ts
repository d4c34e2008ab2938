import { afterEach, describe, expect, it } from "@jest/globals";
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { ManualClock } from "../queue/clock.js";
import { ExponentialFailureRateLimiter } from "../queue/rate-limiter.js";
import { Controller, ReconcileAbortedError, type ControllerMetrics, type ControllerOptions } from "./controller.js";
import { TerminalError, type Logger as ControllerLogger, type Reconciler, type Result } from "./reconciler.js";
import { requestKey, type Request } from "./request.js";
import { StaleObjectError } from "./writes.js";

const req = (name: string, cluster = "tenant-a"): Request => ({ cluster, namespace: "default", name });

/** Yields to the event loop until `condition` holds (reconciles run on microtasks and I/O). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

function recordingMetrics(): ControllerMetrics & { results: string[]; errors: boolean[]; panics: number } {
  const recorded = { results: [] as string[], errors: [] as boolean[], panics: 0 };
  return Object.assign(recorded, {
    registerController: () => undefined,
    queueMetrics: () => ({ add: () => undefined, depth: () => undefined, queueLatency: () => undefined, workDuration: () => undefined, retry: () => undefined }),
    recordReconcile: (_c: string, result: string) => void recorded.results.push(result),
    recordError: (_c: string, { terminal }: { terminal: boolean }) => void recorded.errors.push(terminal),
    recordPanic: () => void recorded.panics++,
    setWorkers: () => undefined,
  });
}

describe("Controller", () => {
  const stops: AbortController[] = [];
  afterEach(() => stops.splice(0).forEach((s) => s.abort()));

  function start(reconcile: Reconciler["reconcile"], extra: Partial<ControllerOptions> = {}) {
    const clock = new ManualClock();
    const metrics = recordingMetrics();
    const controller = new Controller({
      name: "test",
      reconciler: { reconcile },
      clock,
      metrics,
      rateLimiter: new ExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1_000, jitter: 0 }),
      ...extra,
    });
    const stop = new AbortController();
    stops.push(stop);
    const running = controller.start(stop.signal);
    return { controller, clock, metrics, stop, running };
  }

  it("reconciles a request once however often it was enqueued while waiting", async () => {
    const seen: string[] = [];
    let unblock: () => void = () => undefined;
    const { controller, metrics } = start(async (request) => {
      seen.push(request.name);
      if (request.name === "busy") await new Promise<void>((resolve) => (unblock = resolve));
    });
    controller.enqueue(req("busy"));
    await until(() => seen.length === 1);
    for (let i = 0; i < 3; i++) controller.enqueue(req("a"));
    unblock();
    await until(() => metrics.results.length === 2);
    expect(seen).toEqual(["busy", "a"]);
  });

  it("reconciles again after requeueAfterMs, by the queue's clock", async () => {
    let calls = 0;
    const { controller, clock, metrics } = start(async (): Promise<Result> => ({ requeueAfterMs: calls++ === 0 ? 5_000 : 0 }));
    controller.enqueue(req("a"));
    await until(() => calls === 1);
    clock.advance(4_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    clock.advance(1);
    await until(() => calls === 2);
    expect(metrics.results).toEqual(["requeue_after", "success"]);
  });

  it("retries failures with growing backoff and stops retrying on success", async () => {
    const at: number[] = [];
    const { controller, clock } = start(async () => {
      at.push(clock.now());
      if (at.length < 4) throw new Error("cloud API unavailable");
    });
    controller.enqueue(req("a"));
    await until(() => at.length === 1);
    for (const [i, delay] of [10, 20, 40].entries()) {
      clock.advance(delay);
      await until(() => at.length === i + 2);
    }
    expect(at.slice(1).map((t, i) => t - (at[i] ?? 0))).toEqual([10, 20, 40]);
    clock.advance(10_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(at).toHaveLength(4);
  });

  it("does not retry a TerminalError, and counts it as terminal", async () => {
    let calls = 0;
    const { controller, clock, metrics } = start(async () => {
      calls++;
      throw new TerminalError("spec.nodeCount must be positive");
    });
    controller.enqueue(req("a"));
    await until(() => metrics.errors.length === 1);
    clock.advance(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    expect(metrics.errors).toEqual([true]);
    expect(metrics.results).toEqual(["error"]);
  });

  it("counts a programming error as a panic and still retries it", async () => {
    const { controller, metrics } = start(async () => {
      throw new TypeError("cannot read properties of undefined");
    });
    controller.enqueue(req("a"));
    await until(() => metrics.panics === 1);
    expect(metrics.errors).toEqual([false]);
  });

  it("never runs one key twice at once, and reconciles again if it changed meanwhile", async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    let release: () => void = () => undefined;
    const { controller } = start(
      async () => {
        calls++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
      { maxConcurrentReconciles: 4 },
    );
    controller.enqueue(req("a"));
    await until(() => calls === 1);
    controller.enqueue(req("a"));
    controller.enqueue(req("a"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    release();
    await until(() => calls === 2);
    expect(maxRunning).toBe(1);
  });

  it("runs different keys in parallel up to maxConcurrentReconciles", async () => {
    let running = 0;
    let maxRunning = 0;
    const gates: (() => void)[] = [];
    const { controller } = start(
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      },
      { maxConcurrentReconciles: 2 },
    );
    for (const name of ["a", "b", "c"]) controller.enqueue(req(name, `tenant-${name}`));
    await until(() => gates.length === 2);
    expect(maxRunning).toBe(2);
    gates.splice(0).forEach((open) => open());
    await until(() => gates.length === 1);
    gates.splice(0).forEach((open) => open());
  });

  it("by default keeps a worker of 8 free for a quiet tenant while three tenants' reconciles hang", async () => {
    const seen: string[] = [];
    const { controller } = start(
      async (request, { signal }) => {
        seen.push(request.cluster);
        if (request.cluster !== "quiet") await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      },
      { maxConcurrentReconciles: 8 },
    );
    for (const tenant of ["slow-a", "slow-b", "slow-c"]) {
      for (let i = 0; i < 10; i++) controller.enqueue(req(`${i}`, tenant));
    }
    await until(() => seen.length === 7);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(7);
    controller.enqueue(req("x", "quiet"));
    await until(() => seen.includes("quiet"));
  });

  it("admits only the requests of tenants it owns, at enqueue and again before reconciling", async () => {
    const owned = new Set(["tenant-a", "tenant-b"]);
    const seen: string[] = [];
    let gate: () => void = () => undefined;
    const { controller } = start(
      async (request) => {
        seen.push(request.cluster);
        if (seen.length === 1) await new Promise<void>((resolve) => (gate = resolve));
      },
      { admit: (request) => owned.has(request.cluster) },
    );
    controller.enqueue(req("x", "tenant-c"));
    controller.enqueue(req("x", "tenant-a"));
    await until(() => seen.length === 1);
    controller.enqueue(req("x", "tenant-b"));
    owned.delete("tenant-b");
    gate();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(["tenant-a"]);
  });

  it("tells when no reconcile of a set of tenants is in flight", async () => {
    let gate: () => void = () => undefined;
    const { controller } = start(async () => new Promise<void>((resolve) => (gate = resolve)));
    controller.enqueue(req("a", "tenant-a"));
    await new Promise((resolve) => setImmediate(resolve));
    let idle = false;
    const waiting = controller.whenIdle((r) => r.cluster === "tenant-a").then(() => (idle = true));
    await expect(controller.whenIdle((r) => r.cluster === "tenant-b")).resolves.toBeUndefined();
    expect(idle).toBe(false);
    gate();
    await waiting;
    expect(idle).toBe(true);
  });

  it("finishes the reconcile in flight when stopped, with its signal aborted", async () => {
    let sawAbort = false;
    const { controller, stop, running } = start(async (_request, { signal }) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      sawAbort = signal.aborted;
    });
    controller.enqueue(req("a"));
    await until(() => controller.queue.processingCount === 1);
    stop.abort();
    await running;
    expect(sawAbort).toBe(true);
    expect(requestKey(req("a"))).toBe("tenant-a|default/a");
  });

  it("returns after drainTimeoutMs when a reconcile ignores its aborted signal", async () => {
    const { controller, stop, running } = start(() => new Promise<void>(() => undefined), { drainTimeoutMs: 50 });
    controller.enqueue(req("hung"));
    await until(() => controller.queue.processingCount === 1);
    stop.abort();
    await expect(running).resolves.toBe(false);
  });

  it("reports a clean drain when every reconcile ended", async () => {
    const { controller, stop, running } = start(async () => undefined);
    controller.enqueue(req("a"));
    await until(() => controller.queue.processingCount === 0);
    stop.abort();
    await expect(running).resolves.toBe(true);
  });

  it("aborts the signals of just the reconciles in flight that match", async () => {
    const aborted = new Map<string, unknown>();
    const { controller } = start(
      async (request, { signal }) => {
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
        aborted.set(request.cluster, signal.reason);
      },
      { maxConcurrentReconciles: 2 },
    );
    controller.enqueue(req("x", "tenant-a"));
    controller.enqueue(req("x", "tenant-b"));
    await until(() => controller.queue.processingCount === 2);
    controller.abortInFlight((r) => r.cluster === "tenant-a", "slot 3 moved to another replica");
    await until(() => aborted.size === 1);
    expect(aborted.get("tenant-a")).toBeInstanceOf(ReconcileAbortedError);
    expect(String(aborted.get("tenant-a"))).toContain("slot 3");
  });

  it("gives each reconcile a logger that names the controller, the object and the reconcile", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = (bindings: Record<string, unknown>): ControllerLogger => ({
      child: (more) => logger({ ...bindings, ...more }),
      debug: () => undefined,
      info: (obj) => void lines.push({ ...bindings, ...obj }),
      warn: () => undefined,
      error: () => undefined,
    });
    let id = "";
    const { controller, metrics } = start(
      async (_request, { log, reconcileID }) => {
        id = reconcileID;
        log.info({ step: "read" }, "reading");
      },
      { logger: logger({}) },
    );
    controller.enqueue(req("a"));
    await until(() => metrics.results.length === 1);
    expect(lines.filter((line) => "reconcileID" in line)).toEqual([{ controller: "test", cluster: "tenant-a", namespace: "default", name: "a", reconcileID: id, step: "read" }]);
  });

  it("logs when its workers start and when its first reconcile ends, in milliseconds since the process started", async () => {
    const lines: { message: string; fields: Record<string, unknown> }[] = [];
    const logger = (): ControllerLogger => ({
      child: () => logger(),
      debug: () => undefined,
      info: (fields, message) => void lines.push({ message, fields: { ...fields } }),
      warn: () => undefined,
      error: () => undefined,
    });
    const { controller, metrics } = start(async (request) => {
      if (request.name === "b") throw new Error("b fails");
    }, { logger: logger(), maxConcurrentReconciles: 2 });
    controller.enqueue(req("a"));
    controller.enqueue(req("b"));
    await until(() => metrics.results.length === 2);
    const now = performance.now();
    expect(lines.map((line) => line.message)).toEqual(["starting workers", "first reconcile finished"]);
    const [starting, first] = lines.map((line) => line.fields);
    expect(starting).toEqual({ workers: 2, sinceProcessStartMs: expect.any(Number) });
    expect(first).toEqual({ result: "success", sinceProcessStartMs: expect.any(Number) });
    const startedAt = Number(starting?.sinceProcessStartMs);
    const firstAt = Number(first?.sinceProcessStartMs);
    expect(startedAt).toBeGreaterThan(0);
    expect(firstAt).toBeGreaterThanOrEqual(startedAt);
    expect(firstAt).toBeLessThanOrEqual(Math.round(now));
  });
});

describe("Controller error logs", () => {
  it("logs stale writes at debug level until they keep coming back, other failures at once as errors", async () => {
    const levels: string[] = [];
    const logger = (): ControllerLogger => ({
      child: () => logger(),
      debug: (_obj, message) => void levels.push(`debug ${message}`),
      info: () => undefined,
      warn: () => undefined,
      error: (_obj, message) => void levels.push(`error ${message}`),
    });
    const clock = new ManualClock();
    const stale = new StaleObjectError("/api/v1/namespaces/a/configmaps/b", new HttpStatusError("PATCH", "https://infra/api/v1/namespaces/a/configmaps/b", 409, ""));
    let calls = 0;
    const controller = new Controller({
      name: "logs",
      clock,
      logger: logger(),
      rateLimiter: new ExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 10, jitter: 0 }),
      reconciler: {
        reconcile: async (request) => {
          calls++;
          if (request.name === "broken") throw new Error("broken");
          if (calls <= 5) throw stale;
        },
      },
    });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue(req("contended"));
    for (let attempt = 1; attempt <= 5; attempt++) {
      await until(() => levels.filter((line) => line.endsWith("reconcile failed")).length === attempt);
      clock.advance(10);
    }
    expect(levels.filter((line) => line.endsWith("reconcile failed"))).toEqual([
      "debug reconcile failed",
      "debug reconcile failed",
      "debug reconcile failed",
      "error reconcile failed",
      "error reconcile failed",
    ]);

    levels.length = 0;
    controller.enqueue(req("broken"));
    await until(() => levels.includes("error reconcile failed"));
    expect(levels.filter((line) => line.endsWith("reconcile failed"))).toEqual(["error reconcile failed"]);
    stop.abort();
    await running;
  });
});

describe("Controller scopes", () => {
  it("hands each reconcile its tenant's scope, and drops requests of tenants out of reach", async () => {
    const seen: string[] = [];
    const controller = new Controller<{ tenant: string; signal: AbortSignal }>({
      name: "scoped",
      scope: (request, signal) => (request.cluster === "gone" ? undefined : { tenant: request.cluster, signal }),
      reconciler: {
        reconcile: async (_request, { scope, signal }) => {
          expect(scope.signal).toBe(signal);
          seen.push(scope.tenant);
        },
      },
    });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue(req("x", "gone"));
    controller.enqueue(req("x", "tenant-a"));
    await until(() => seen.length === 1 && controller.queue.processingCount === 0);
    expect(seen).toEqual(["tenant-a"]);
    expect(controller.queue.retries(req("x", "gone"))).toBe(0);
    stop.abort();
    await running;
  });
});
