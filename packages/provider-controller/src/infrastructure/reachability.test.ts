import { describe, expect, it } from "@jest/globals";
import type { RestClient } from "@edgeconnect/kcp-ts";
import { InfrastructureReachability } from "./reachability.js";

/** An API server whose `/readyz` answers, fails, or never answers (until the probe's deadline), as told. */
function fakeServer() {
  let mode: "ok" | "fail" | "stall" = "ok";
  const paths: string[] = [];
  const client = {
    withSignal: (signal: AbortSignal) => ({
      request: (_method: string, path: string) => {
        paths.push(path);
        if (mode === "ok") return Promise.resolve("ok");
        if (mode === "fail") return Promise.reject(new Error("connect ECONNREFUSED"));
        return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));
      },
    }),
  } as unknown as Pick<RestClient, "withSignal">;
  return { client, paths, set: (next: typeof mode) => (mode = next) };
}

describe("InfrastructureReachability", () => {
  it("turns unreachable after two failed probes in a row, a stall counting as one, and reachable at the first answer", async () => {
    const server = fakeServer();
    const changes: boolean[] = [];
    const reachability = new InfrastructureReachability({ client: server.client, timeoutMs: 20, onChange: (reachable) => changes.push(reachable) });
    const signal = new AbortController().signal;
    await reachability.probe(signal);
    expect(reachability.reachable).toBe(true);

    server.set("fail");
    await reachability.probe(signal);
    expect(reachability.reachable).toBe(true);
    server.set("stall");
    await reachability.probe(signal);
    expect(reachability.reachable).toBe(false);
    const since = reachability.since;
    await reachability.probe(signal);
    expect(reachability.since).toBe(since);

    server.set("ok");
    await reachability.probe(signal);
    expect(reachability.reachable).toBe(true);
    expect(changes).toEqual([false, true]);
    expect(new Set(server.paths)).toEqual(new Set(["/readyz"]));
  });

  it("does not count a failure that one answer in between resets", async () => {
    const server = fakeServer();
    const reachability = new InfrastructureReachability({ client: server.client, timeoutMs: 20 });
    const signal = new AbortController().signal;
    for (const mode of ["fail", "ok", "fail", "ok"] as const) {
      server.set(mode);
      await reachability.probe(signal);
      expect(reachability.reachable).toBe(true);
    }
  });

  it("stops probing when its signal aborts, counting no failure for it", async () => {
    const server = fakeServer();
    server.set("stall");
    const stop = new AbortController();
    const reachability = new InfrastructureReachability({ client: server.client, timeoutMs: 60_000, intervalMs: 10 });
    const running = reachability.run(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop.abort();
    await running;
    expect(reachability.reachable).toBe(true);
  });
});
