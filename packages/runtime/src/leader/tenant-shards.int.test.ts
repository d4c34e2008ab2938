/**
 * Two replicas share tenants through slot Leases on the real kube-apiserver:
 * every tenant gets reconciled, never by both replicas at once, and the
 * tenants of a replica that goes dark are taken over within two lease
 * durations.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { Controller } from "../reconcile/controller.js";
import { tenantOf, type Request } from "../reconcile/request.js";
import type { ShardLeaseClient } from "./shard-coordinator.js";
import { TenantShards } from "./tenant-shards.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
const LEASE_MS = 3_000;

describeInfra("sharded controllers on a real API server", () => {
  const client = infra as RestClient;
  const namespace = `shards-${randomBytes(3).toString("hex")}`;
  const requests: Request[] = Array.from({ length: 200 }, (_, i) => ({ cluster: `tenant-${i}`, namespace: "default", name: "obj" }));
  const inFlight = new Map<string, string>();
  const overlaps: string[] = [];
  const reconciledBy = new Map<string, Set<string>>();
  const lastReconciled = new Map<string, { replica: string; at: number }>();

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`);
  });

  function replica(identity: string) {
    const dark = { value: false };
    const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => (...args: A): Promise<R> =>
      dark.value ? Promise.reject(new Error("partitioned")) : call(...args);
    const leases: ShardLeaseClient = {
      get: guard((...args: Parameters<RestClient["get"]>) => client.get(...args)),
      create: guard((...args: Parameters<RestClient["create"]>) => client.create(...args)),
      replace: guard((...args: Parameters<RestClient["replace"]>) => client.replace(...args)),
      list: guard((...args: Parameters<RestClient["list"]>) => client.list(...args)),
      delete: guard((...args: Parameters<RestClient["delete"]>) => client.delete(...args)),
    };
    const shards = new TenantShards({
      client: leases,
      namespace,
      group: "widgets",
      identity,
      slots: 8,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 300,
    });
    const controller = new Controller({
      name: `widgets-${identity}`,
      maxConcurrentReconciles: 4,
      admit: shards.admit,
      reconciler: {
        reconcile: async (request) => {
          const tenant = request.cluster;
          const other = inFlight.get(tenant);
          if (other !== undefined) overlaps.push(`${tenant}: ${identity} while ${other}`);
          inFlight.set(tenant, identity);
          await new Promise((resolve) => setTimeout(resolve, 20));
          inFlight.delete(tenant);
          const by = reconciledBy.get(tenant) ?? new Set();
          by.add(identity);
          reconciledBy.set(tenant, by);
          lastReconciled.set(tenant, { replica: identity, at: Date.now() });
        },
      },
    });
    shards.serve(controller, () => requests);
    const stop = new AbortController();
    const sharded = { controller, coordinator: shards.coordinator };
    return { sharded, dark, stop, running: Promise.all([controller.start(stop.signal), shards.run(stop.signal)]) };
  }

  it("reconciles every tenant, splits them, and never runs a tenant on both replicas at once", async () => {
    const replicas = [replica("a"), replica("b")];
    await eventually(() => (lastReconciled.size === requests.length ? [true, undefined] : [false, `${lastReconciled.size} tenants`]), {
      timeoutMs: 30_000,
    });
    await eventually<number[]>(() => {
      const owned = replicas.map((r) => r.sharded.coordinator.ownedSlots().length);
      return owned.every((n) => n > 0) && owned.reduce((x, y) => x + y) === 8 ? [true, owned] : [false, `slots ${owned.join("/")}`];
    });
    for (const request of requests) for (const r of replicas) r.sharded.controller.enqueue(request);
    const since = Date.now();
    await eventually(() =>
      requests.every((r) => (lastReconciled.get(r.cluster)?.at ?? 0) >= since) ? [true, undefined] : [false, "second round pending"],
    );
    const byReplica = new Map<string, number>();
    for (const request of requests) {
      const owner = lastReconciled.get(request.cluster)?.replica ?? "";
      byReplica.set(owner, (byReplica.get(owner) ?? 0) + 1);
      // Each tenant is reconciled only where its slot lives.
      expect(replicas.filter((r) => r.sharded.coordinator.owns(tenantOf(request)))).toHaveLength(1);
    }
    expect([...byReplica.keys()].sort()).toEqual(["a", "b"]);
    expect(overlaps).toEqual([]);

    const [a, b] = replicas;
    if (a === undefined || b === undefined) throw new Error("no replicas");
    const bTenants = requests.filter((r) => lastReconciled.get(r.cluster)?.replica === "b");
    const wentDark = Date.now();
    b.dark.value = true;
    await eventually(
      () => {
        const taken = bTenants.filter((r) => {
          const last = lastReconciled.get(r.cluster);
          return last?.replica === "a" && last.at > wentDark;
        });
        return taken.length === bTenants.length ? [true, undefined] : [false, `${taken.length}/${bTenants.length} taken over`];
      },
      { timeoutMs: 4 * LEASE_MS, intervalMs: 50 },
    );
    expect(Date.now() - wentDark).toBeLessThan(2 * LEASE_MS + 1_000);
    expect(overlaps).toEqual([]);
    for (const r of replicas) r.stop.abort();
    await Promise.all(replicas.map((r) => r.running));
  });
});
