import { describe, expect, it } from "@jest/globals";
import { RuntimeMetrics } from "../observability/metrics.js";
import { settlesWithin } from "../reconcile/bounded-wait.js";
import { Controller } from "../reconcile/controller.js";
import { CacheSyncTimeoutError, LeadershipLostError, runManager, waitForCacheSync, type ManagerOptions, type Source } from "./manager.js";

function fakeSource(): Source & { hasSynced: boolean; started: boolean; stopped: boolean } {
  const source = {
    hasSynced: false,
    started: false,
    stopped: false,
    start: () => {
      source.started = true;
      return new Promise<void>((resolve) => (release = resolve));
    },
    stop: () => {
      source.stopped = true;
      release();
      return Promise.resolve();
    },
  };
  let release: () => void = () => undefined;
  return source;
}

describe("runManager", () => {
  it("serves metrics and probes, is ready once sources sync, and shuts everything down", async () => {
    const metrics = new RuntimeMetrics();
    const reconciled: string[] = [];
    const controller = new Controller({
      name: "widgets",
      metrics,
      reconciler: { reconcile: async (request) => void reconciled.push(request.name) },
    });
    const source = fakeSource();
    const stop = new AbortController();
    let done = false;
    const ports = await new Promise<{ metrics: number; probes: number }>((listening) => {
      void runManager(
        {
          flags: { metricsBindAddress: "127.0.0.1:0", healthProbeBindAddress: "127.0.0.1:0" },
          metrics,
          sources: { widgets: source },
          controllers: [controller],
          onListening: listening,
        },
        stop.signal,
      ).then(() => (done = true));
    });
    const probe = (path: string) => fetch(`http://127.0.0.1:${ports.probes}${path}`);

    expect((await probe("/healthz")).status).toBe(200);
    const notReady = await probe("/readyz?verbose");
    expect(notReady.status).toBe(500);
    expect(await notReady.text()).toContain("[-]source-widgets failed: not synced yet");
    source.hasSynced = true;
    expect((await probe("/readyz")).status).toBe(200);

    controller.enqueue({ cluster: "c", namespace: "default", name: "w" });
    for (let i = 0; i < 100 && reconciled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reconciled).toEqual(["w"]);
    const exposition = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
    expect(exposition).toContain('controller_runtime_reconcile_total{controller="widgets",result="success"} 1');

    stop.abort();
    for (let i = 0; i < 100 && !done; i++) await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(true);
    expect(source.stopped).toBe(true);
    await expect(probe("/healthz")).rejects.toThrow();
  });

  const quiet = { metricsBindAddress: "0", healthProbeBindAddress: "0" };

  it("starts no reconcile before every source has synced", async () => {
    const reconciled: string[] = [];
    const controller = new Controller({ name: "gated", reconciler: { reconcile: async (request) => void reconciled.push(request.name) } });
    const nodes = fakeSource();
    const services = fakeSource();
    const stop = new AbortController();
    const run = runManager({ flags: quiet, metrics: new RuntimeMetrics(), sources: { nodes, services }, controllers: [controller] }, stop.signal);
    controller.enqueue({ cluster: "", namespace: "default", name: "svc" });
    services.hasSynced = true;
    await new Promise((r) => setTimeout(r, 300));
    expect(reconciled).toEqual([]);
    nodes.hasSynced = true;
    for (let i = 0; i < 100 && reconciled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reconciled).toEqual(["svc"]);
    stop.abort();
    await run;
  });

  it("starts the controllers without waiting for an optional source, starts and stops it, and shows it in readiness", async () => {
    const reconciled: string[] = [];
    const controller = new Controller({ name: "ungated", reconciler: { reconcile: async (request) => void reconciled.push(request.name) } });
    const nodes = fakeSource();
    const remote = fakeSource();
    const stop = new AbortController();
    const ports = await new Promise<{ metrics: number; probes: number }>((listening) => {
      void runManager(
        { flags: { metricsBindAddress: "0", healthProbeBindAddress: "127.0.0.1:0" }, metrics: new RuntimeMetrics(), sources: { nodes }, optionalSources: { remote }, controllers: [controller], onListening: listening },
        stop.signal,
      );
    });
    nodes.hasSynced = true;
    controller.enqueue({ cluster: "", namespace: "default", name: "svc" });
    for (let i = 0; i < 100 && reconciled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reconciled).toEqual(["svc"]);
    expect(remote.started).toBe(true);
    expect(await (await fetch(`http://127.0.0.1:${ports.probes}/readyz?verbose`)).text()).toContain("[-]source-remote failed: not synced yet");
    stop.abort();
    for (let i = 0; i < 100 && !remote.stopped; i++) await new Promise((r) => setTimeout(r, 10));
    expect(remote.stopped).toBe(true);
  });

  it("fails when the sources do not sync within the cache sync timeout, and stops them", async () => {
    const source = fakeSource();
    const controller = new Controller({ name: "never", reconciler: { reconcile: async () => undefined } });
    const run = runManager(
      { flags: quiet, metrics: new RuntimeMetrics(), sources: { widgets: source }, controllers: [controller], cacheSyncTimeoutMs: 200 },
      new AbortController().signal,
    );
    await expect(run).rejects.toBeInstanceOf(CacheSyncTimeoutError);
    await expect(run).rejects.toThrow("widgets");
    expect(source.stopped).toBe(true);
  });

  it("rejects as soon as the Lease is lost, without waiting for a reconcile that ignores its signal", async () => {
    let started = false;
    let finish = (): void => undefined;
    const controller = new Controller({
      name: "hung",
      drainTimeoutMs: 60_000,
      reconciler: {
        reconcile: () => {
          started = true;
          return new Promise<void>((resolve) => (finish = resolve));
        },
      },
    });
    const source = fakeSource();
    source.hasSynced = true;
    const leading = new AbortController();
    const elector: ManagerOptions["leaderElector"] = (lead) => ({ run: () => lead(leading.signal) });
    const run = runManager(
      { flags: quiet, metrics: new RuntimeMetrics(), sources: { widgets: source }, controllers: [controller], leaderElector: elector },
      new AbortController().signal,
    );
    controller.enqueue({ cluster: "", namespace: "default", name: "w" });
    for (let i = 0; i < 100 && !started; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started).toBe(true);
    leading.abort();
    // Bounded far below the drain timeout: the process must not wait for the reconcile.
    expect(await settlesWithin(run.catch(() => undefined), 2_000)).toBe(true);
    await expect(run).rejects.toBeInstanceOf(LeadershipLostError);
    expect(source.stopped).toBe(true);
    finish();
  });

  it("rejects with the controllers' own error, not a lost Lease, when they fail while leading", async () => {
    const controller = new Controller({ name: "never", reconciler: { reconcile: async () => undefined } });
    // Like the real elector, leading ends when the manager stops the elector.
    const elector: ManagerOptions["leaderElector"] = (lead) => ({ run: (stop) => lead(stop) });
    const run = runManager(
      { flags: quiet, metrics: new RuntimeMetrics(), sources: { widgets: fakeSource() }, controllers: [controller], leaderElector: elector, cacheSyncTimeoutMs: 100 },
      new AbortController().signal,
    );
    await expect(run).rejects.toBeInstanceOf(CacheSyncTimeoutError);
  });
});

describe("waitForCacheSync", () => {
  it("notices a sync within a few milliseconds: the wait is part of every start", async () => {
    let synced = false;
    const waiting = waitForCacheSync({ widgets: { get hasSynced() { return synced; } } }, new AbortController().signal);
    setTimeout(() => (synced = true), 1);
    // Timers run in the order they are due, each followed by its promise continuations: a poll due
    // within 50 ms settles the wait before this timer's callback, however late the event loop is.
    const late = new Promise<"late">((resolve) => setTimeout(resolve, 50, "late"));
    await expect(Promise.race([waiting, late])).resolves.toBe(true);
  });
});
