/**
 * Leader election against the real kube-apiserver of the test environment:
 * one leader at a time, a graceful hand-over, and a take-over from a leader
 * that went dark without ever overlapping with it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { LeaderElector } from "./leader-elector.js";
import { LeaseLock, type LeaseClient } from "./lease.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;

interface Replica {
  elector: LeaderElector;
  stop: AbortController;
  running: Promise<void>;
  periods: { started: number; stopped?: number }[];
  dark: { value: boolean };
}

describeInfra("LeaderElector on a real API server", () => {
  const client = infra as RestClient;
  const namespace = `leader-${randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`);
  });

  function replica(identity: string, lease: string): Replica {
    const dark = { value: false };
    // A client that can be cut off, as a partitioned or hung replica would be.
    const guarded: LeaseClient = {
      get: (...args) => (dark.value ? Promise.reject(new Error("partitioned")) : client.get(...args)),
      create: (...args) => (dark.value ? Promise.reject(new Error("partitioned")) : client.create(...args)),
      replace: (...args) => (dark.value ? Promise.reject(new Error("partitioned")) : client.replace(...args)),
      list: (...args) => (dark.value ? Promise.reject(new Error("partitioned")) : client.list(...args)),
    };
    const periods: Replica["periods"] = [];
    const elector = new LeaderElector({
      lock: new LeaseLock(guarded, namespace, lease),
      identity,
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 250,
      onStartedLeading: (signal) => {
        const period: { started: number; stopped?: number } = { started: Date.now() };
        periods.push(period);
        return new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => {
            period.stopped = Date.now();
            resolve();
          }),
        );
      },
    });
    const stop = new AbortController();
    return { elector, stop, running: elector.run(stop.signal), periods, dark };
  }

  const leaders = (replicas: Replica[]): Replica[] => replicas.filter((r) => r.elector.isLeader);

  it("elects exactly one leader and hands over at once on graceful shutdown", async () => {
    const replicas = [replica("a", "graceful"), replica("b", "graceful")];
    const first = await eventually<Replica>(() => {
      const current = leaders(replicas);
      return current.length === 1 && current[0] ? [true, current[0]] : [false, `${current.length} leaders`];
    });
    for (let i = 0; i < 8; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(leaders(replicas)).toEqual([first]);
    }
    const other = replicas.find((r) => r !== first);
    const stoppedAt = Date.now();
    first.stop.abort();
    await first.running;
    await eventually(() => (other?.elector.isLeader ? [true, undefined] : [false, "no new leader"]), { intervalMs: 50 });
    // Released, not expired: well under one lease duration.
    expect(Date.now() - stoppedAt).toBeLessThan(2_500);
    other?.stop.abort();
    await other?.running;
  });

  it("takes over from a leader that went dark, without overlapping with it", async () => {
    const replicas = [replica("a", "dark"), replica("b", "dark")];
    const first = await eventually<Replica>(() => {
      const current = leaders(replicas);
      return current.length === 1 && current[0] ? [true, current[0]] : [false, `${current.length} leaders`];
    });
    const other = replicas.find((r) => r !== first);
    if (other === undefined) throw new Error("no second replica");
    const wentDark = Date.now();
    first.dark.value = true;
    await eventually(() => (other.elector.isLeader ? [true, undefined] : [false, "not yet"]), { timeoutMs: 15_000, intervalMs: 50 });
    const takeover = Date.now() - wentDark;
    expect(takeover).toBeLessThan(2 * 3_000 + 1_000);
    const darkPeriod = first.periods[0];
    const newPeriod = other.periods[0];
    expect(darkPeriod?.stopped).toBeDefined();
    expect(darkPeriod?.stopped ?? Infinity).toBeLessThanOrEqual(newPeriod?.started ?? 0);
    for (const r of replicas) r.stop.abort();
    await Promise.all(replicas.map((r) => r.running));
  });
});
