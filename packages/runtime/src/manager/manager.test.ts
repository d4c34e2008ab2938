import { describe, expect, it } from "@jest/globals";
import { RuntimeMetrics } from "../observability/metrics.js";
import { Controller } from "../reconcile/controller.js";
import { runManager, type Source } from "./manager.js";

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
});
