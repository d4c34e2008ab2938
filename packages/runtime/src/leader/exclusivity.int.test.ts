/**
 * Exclusivity when calls hang, on the real kube-apiserver: one replica's API
 * calls go through a proxy that stalls them (accepted, never answered), while
 * its reconciles take longer than a whole Lease. A recording reconciler
 * proves that no tenant is ever acted on by two replicas at once, counting a
 * reconcile as acting from its start until it ends or its signal aborts
 * (after an abort, every call made with the signal fails at once). A leader
 * whose renewal commits but is answered late must time it from its start.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, StallingProxy } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Controller } from "../reconcile/controller.js";
import { tenantOf, type Request } from "../reconcile/request.js";
import { LeaderElector } from "./leader-elector.js";
import { LeaseLock } from "./lease.js";
import { TenantShards } from "./tenant-shards.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
const LEASE = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 300 };
/** Longer than a whole Lease: a replica that waited for its reconciles to end before stopping would overlap. */
const RECONCILE_MS = 4_500;

interface Interval {
  readonly replica: string;
  readonly from: number;
  to: number;
}

/** Pairs of intervals of different replicas that overlap, per subject. */
function overlaps(intervals: ReadonlyMap<string, readonly Interval[]>): string[] {
  const found: string[] = [];
  for (const [subject, list] of intervals) {
    for (const [i, x] of list.entries()) {
      for (const y of list.slice(i + 1)) {
        if (x.replica !== y.replica && x.from < y.to && y.from < x.to) found.push(`${subject}: ${x.replica} and ${y.replica}`);
      }
    }
  }
  return found;
}

/** Runs `act` as one interval of `replica` on `subject`, ending it when `act` ends or `signal` aborts. */
async function recorded(log: Map<string, Interval[]>, subject: string, replica: string, signal: AbortSignal, act: () => Promise<void>): Promise<void> {
  const interval: Interval = { replica, from: performance.now(), to: Infinity };
  log.set(subject, [...(log.get(subject) ?? []), interval]);
  const end = (): void => {
    interval.to = Math.min(interval.to, performance.now());
  };
  signal.addEventListener("abort", end, { once: true });
  try {
    await act();
  } finally {
    end();
  }
}

describeInfra("exclusivity with stalled API calls (real API server, stalling proxy)", () => {
  const client = infra as RestClient;
  const namespace = `stall-${randomBytes(3).toString("hex")}`;
  const proxies: StallingProxy[] = [];

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await client.delete(`/api/v1/namespaces/${namespace}`);
  });

  /** A client for one replica whose calls (those `matches` picks) can be stalled. */
  async function stallable(matches?: (method: string) => boolean): Promise<{ client: RestClient; proxy: StallingProxy }> {
    const proxy = await StallingProxy.start({ upstream: client.server, ...(matches ? { matches } : {}) });
    proxies.push(proxy);
    return { client: client.withServer(proxy.url), proxy };
  }

  it("sharding: a stalled replica's tenants are taken over, its reconciles aborted first", async () => {
    const requests: Request[] = Array.from({ length: 16 }, (_, i) => ({ cluster: `tenant-${i}`, namespace: "default", name: "obj" }));
    const intervals = new Map<string, Interval[]>();
    const aborted = new Map<string, number>();
    const replica = (identity: string, leases: RestClient) => {
      const shards = new TenantShards({ client: leases, namespace, group: "stall", identity, slots: 8, ...LEASE });
      const controller = new Controller({
        name: `stall-${identity}`,
        maxConcurrentReconciles: 16,
        admit: shards.admit,
        reconciler: {
          reconcile: (request, { signal }) =>
            recorded(intervals, request.cluster, identity, signal, async () => {
              await sleep(RECONCILE_MS, undefined, { signal }).catch(() => aborted.set(identity, (aborted.get(identity) ?? 0) + 1));
            }),
        },
      });
      shards.serve(controller, () => requests);
      const stop = new AbortController();
      const sharded = { controller, coordinator: shards.coordinator };
      return { sharded, stop, running: Promise.all([controller.start(stop.signal), shards.run(stop.signal)]) };
    };
    const b = await stallable();
    const replicas = { a: replica("a", client), b: replica("b", b.client) };
    await eventually(() => {
      const owned = [replicas.a, replicas.b].map((r) => r.sharded.coordinator.ownedSlots().length);
      return owned.every((n) => n > 0) ? [true, owned] : [false, `slots ${owned.join("/")}`];
    });
    await eventually(() => (replicas.b.sharded.controller.queue.processingCount > 0 ? [true, undefined] : [false, "b idle"]));

    const bTenants = requests.filter((r) => replicas.b.sharded.coordinator.owns(tenantOf(r)));
    expect(bTenants.length).toBeGreaterThan(0);
    const stalledAt = performance.now();
    b.proxy.stall();
    await eventually(
      () => {
        for (const request of requests) replicas.a.sharded.controller.enqueue(request);
        const covered = bTenants.filter((r) => (intervals.get(r.cluster) ?? []).some((i) => i.replica === "a" && i.from > stalledAt));
        return covered.length === bTenants.length ? [true, undefined] : [false, `${covered.length}/${bTenants.length} tenants reconciled by a since the stall`];
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(aborted.get("b") ?? 0).toBeGreaterThan(0);
    expect(replicas.b.sharded.coordinator.ownedSlots()).toEqual([]);
    expect(overlaps(intervals)).toEqual([]);

    replicas.a.stop.abort();
    replicas.b.stop.abort();
    b.proxy.resume();
    await Promise.all([replicas.a.running, replicas.b.running]);
  });

  it("leader election: a leader whose renewals stall stops leading before another starts", async () => {
    const intervals = new Map<string, Interval[]>();
    const elector = (identity: string, leases: RestClient, stop: AbortSignal) =>
      new LeaderElector({
        lock: new LeaseLock(leases, namespace, "stall-leader"),
        identity,
        ...LEASE,
        onStartedLeading: (leading) =>
          recorded(intervals, "leader", identity, leading, async () => {
            await new Promise((resolve) => leading.addEventListener("abort", resolve, { once: true }));
          }),
      }).run(stop);
    const b = await stallable();
    const stopB = new AbortController();
    const runningB = elector("b", b.client, stopB.signal);
    await eventually(() => ((intervals.get("leader") ?? []).length > 0 ? [true, undefined] : [false, "b not leading"]));
    const stopA = new AbortController();
    const runningA = elector("a", client, stopA.signal);
    await sleep(1_000);
    b.proxy.stall();
    await eventually(() => ((intervals.get("leader") ?? []).some((i) => i.replica === "a") ? [true, undefined] : [false, "a not leading"]), {
      timeoutMs: 15_000,
    });
    const [first, second] = intervals.get("leader") ?? [];
    expect(first?.replica).toBe("b");
    expect(second?.replica).toBe("a");
    expect(overlaps(intervals)).toEqual([]);
    stopA.abort();
    stopB.abort();
    b.proxy.resume();
    await Promise.all([runningA, runningB]);
  });

  it("leader election: a renewal answered late counts from its start, so the leader stops before another starts", async () => {
    // Long enough that the late answer and the margins dwarf scheduling noise.
    const timing = { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 300 };
    const intervals = new Map<string, Interval[]>();
    const elector = (identity: string, leases: RestClient, stop: AbortSignal) =>
      new LeaderElector({
        lock: new LeaseLock(leases, namespace, "late-answer"),
        identity,
        ...timing,
        onStartedLeading: (leading) =>
          recorded(intervals, "leader", identity, leading, async () => {
            await new Promise((resolve) => leading.addEventListener("abort", resolve, { once: true }));
          }),
      }).run(stop);
    const a = await stallable((method) => method === "PUT");
    const stopA = new AbortController();
    const runningA = elector("a", a.client, stopA.signal);
    const stopB = new AbortController();
    let runningB = Promise.resolve();
    try {
      await eventually(() => ((intervals.get("leader") ?? []).length > 0 ? [true, undefined] : [false, "a not leading"]));
      runningB = elector("b", client, stopB.signal);
      await sleep(1_000);

      // a's next renewal commits; its answer comes 2.5 s later, within the
      // deadline; a's calls after it go unanswered.
      a.proxy.holdResponses();
      const heldBy = await eventually<number>(() => (a.proxy.counts.heldResponses > 0 ? [true, performance.now()] : [false, "no renewal held"]), { intervalMs: 20 });
      await sleep(2_500);
      a.proxy.stall();
      a.proxy.releaseResponses();
      await eventually(() => ((intervals.get("leader") ?? []).some((i) => i.replica === "b") ? [true, undefined] : [false, "b not leading"]), {
        timeoutMs: 15_000,
      });

      const [first, second] = intervals.get("leader") ?? [];
      expect(first?.replica).toBe("a");
      expect(second?.replica).toBe("b");
      // The renewal began before the proxy held its answer; the slack covers the timer's lateness only.
      expect(first?.to ?? Infinity).toBeLessThanOrEqual(heldBy + timing.renewDeadlineMs + 250);
      expect(overlaps(intervals)).toEqual([]);
    } finally {
      stopA.abort();
      stopB.abort();
      a.proxy.resume();
      await Promise.all([runningA, runningB]);
    }
  });
});
