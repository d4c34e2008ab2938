import { describe, expect, it } from "@jest/globals";
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { RuntimeMetrics } from "@edgeconnect/runtime";
import { ProviderMetrics, STUCK_TEARDOWN_MS } from "./provider-metrics.js";

type Cluster = KubernetesCluster & KubeObject;

const NOW = Date.parse("2026-03-01T12:00:00Z");
const iso = (ms: number): string => new Date(ms).toISOString();

function cluster(uid: string, options: { phase?: "Pending" | "Provisioning" | "Ready" | "Failed" | "Deleting"; ready?: boolean; type?: "OTC" | "ClusterAPI"; createdMs?: number; deletedMs?: number } = {}): Cluster {
  return {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "KubernetesCluster",
    metadata: {
      name: uid,
      namespace: "default",
      uid,
      creationTimestamp: iso(options.createdMs ?? NOW - 600_000),
      ...(options.deletedMs === undefined ? {} : { deletionTimestamp: iso(options.deletedMs) }),
    },
    spec: { providerRef: { type: options.type ?? "OTC", configRef: { name: "otc" } }, machineCapabilitiesRef: { name: "m" } } as never,
    status: {
      ...(options.phase === undefined ? {} : { phase: options.phase }),
      conditions: options.ready === undefined ? [] : [{ type: "Ready", status: options.ready ? "True" : "False", reason: "R", message: "", lastTransitionTime: iso(NOW) }],
    },
  };
}

/** One sample as prom-client holds it: a gauge by its name, a histogram's by `_bucket`, `_count` or `_sum`. */
async function sample(metrics: RuntimeMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const base = name.replace(/_(bucket|count|sum)$/, "");
  const metric = await metrics.registry.getSingleMetric(base)?.get();
  return metric?.values.find((v) => ((v as { metricName?: string }).metricName ?? base) === name && Object.entries(labels).every(([key, label]) => String(v.labels[key]) === label))?.value;
}

describe("ProviderMetrics", () => {
  it("counts clusters by phase and provider type when scraped, zeros included", async () => {
    const metrics = new RuntimeMetrics();
    let clusters: Cluster[] = [cluster("a", { phase: "Ready" }), cluster("b", { phase: "Ready" }), cluster("c", { phase: "Provisioning", type: "ClusterAPI" }), cluster("d")];
    new ProviderMetrics({ metrics, clusters: () => clusters, now: () => NOW });
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Ready", provider: "OTC" })).toBe(2);
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Provisioning", provider: "ClusterAPI" })).toBe(1);
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Pending", provider: "OTC" })).toBe(1);
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Failed", provider: "OTC" })).toBe(0);

    clusters = [cluster("a", { phase: "Failed" })];
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Ready", provider: "OTC" })).toBe(0);
    expect(await sample(metrics, "edgeconnect_kubernetes_clusters", { phase: "Failed", provider: "OTC" })).toBe(1);
  });

  it("counts teardowns in progress and those running longer than 30 minutes as stuck", async () => {
    const metrics = new RuntimeMetrics();
    const clusters = [
      cluster("fresh", { phase: "Deleting", deletedMs: NOW - 60_000 }),
      cluster("old", { phase: "Deleting", deletedMs: NOW - STUCK_TEARDOWN_MS - 1 }),
      cluster("live", { phase: "Ready" }),
    ];
    new ProviderMetrics({ metrics, clusters: () => clusters, now: () => NOW });
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardowns", { state: "in_progress" })).toBe(2);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardowns", { state: "stuck" })).toBe(1);
  });

  it("counts the teardowns waiting on a resource by its kind and Crossplane's reason, until they wait on nothing or the cluster is gone", async () => {
    const metrics = new RuntimeMetrics();
    const gone = cluster("gone", { phase: "Deleting", deletedMs: NOW - 60_000 });
    const provider = new ProviderMetrics({ metrics, clusters: () => [], now: () => NOW });
    provider.teardownBlocked("uid-a", { kind: "NodePoolV3", reason: "ReconcileError" });
    provider.teardownBlocked("uid-b", { kind: "NodePoolV3", reason: "ReconcileError" });
    provider.teardownBlocked(gone.metadata?.uid ?? "", { kind: "ProviderConfig" });
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardown_blocked", { kind: "NodePoolV3", reason: "ReconcileError" })).toBe(2);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardown_blocked", { kind: "ProviderConfig", reason: "" })).toBe(1);
    provider.teardownBlocked("uid-a", undefined);
    provider.clusterHandlers().deleted?.(gone);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardown_blocked", { kind: "NodePoolV3", reason: "ReconcileError" })).toBe(1);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_teardown_blocked", { kind: "ProviderConfig", reason: "" })).toBeUndefined();
  });

  it("observes the time to Ready once, on the update that turns Ready true, not for clusters Ready at start or recovering", async () => {
    const metrics = new RuntimeMetrics();
    const subject = new ProviderMetrics({ metrics, clusters: () => [], now: () => NOW });
    const handlers = subject.clusterHandlers();
    const provisioning = cluster("new", { phase: "Provisioning", ready: false, createdMs: NOW - 420_000 });
    const ready = cluster("new", { phase: "Ready", ready: true, createdMs: NOW - 420_000 });
    handlers.added?.(provisioning);
    handlers.updated?.(provisioning, ready);
    // A status write that keeps Ready true, a fall back and a recovery: no second observation.
    handlers.updated?.(ready, ready);
    handlers.updated?.(ready, provisioning);
    handlers.updated?.(provisioning, ready);
    // Ready when the controller started, then flapping: it was not seen turning Ready for the first time.
    const before = cluster("before", { phase: "Ready", ready: true, createdMs: NOW - 86_400_000 });
    handlers.added?.(before);
    handlers.updated?.(before, cluster("before", { phase: "Failed", ready: false }));
    handlers.updated?.(cluster("before", { phase: "Failed", ready: false }), before);

    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_time_to_ready_seconds_count", { provider: "OTC" })).toBe(1);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_time_to_ready_seconds_sum", { provider: "OTC" })).toBe(420);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_time_to_ready_seconds_bucket", { provider: "OTC", le: "300" })).toBe(0);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_time_to_ready_seconds_bucket", { provider: "OTC", le: "600" })).toBe(1);

    // A deleted cluster is forgotten, so the set does not grow with clusters long gone.
    handlers.deleted?.(ready);
    handlers.updated?.(provisioning, ready);
    expect(await sample(metrics, "edgeconnect_kubernetes_cluster_time_to_ready_seconds_count", { provider: "OTC" })).toBe(2);
  });

  it("records OTC calls by operation and result with their latency", async () => {
    const metrics = new RuntimeMetrics();
    const subject = new ProviderMetrics({ metrics, clusters: () => [] });
    subject.otcCall("iam_validate", "ok", 0.2);
    subject.otcCall("iam_validate", "ok", 0.4);
    subject.otcCall("iam_validate", "rejected", 0.1);
    subject.otcCall("cce_cluster_cert", "timeout", 20);
    expect(await sample(metrics, "edgeconnect_otc_call_duration_seconds_count", { operation: "iam_validate", result: "ok" })).toBe(2);
    expect(await sample(metrics, "edgeconnect_otc_call_duration_seconds_sum", { operation: "iam_validate", result: "ok" })).toBeCloseTo(0.6);
    expect(await sample(metrics, "edgeconnect_otc_call_duration_seconds_count", { operation: "iam_validate", result: "rejected" })).toBe(1);
    expect(await sample(metrics, "edgeconnect_otc_call_duration_seconds_count", { operation: "cce_cluster_cert", result: "timeout" })).toBe(1);
  });

  it("replaces the orphan counts with each audit's finding", async () => {
    const metrics = new RuntimeMetrics();
    const subject = new ProviderMetrics({ metrics, clusters: () => [] });
    subject.setOrphans(new Map([["VpcV1", 1], ["Namespace", 1]]));
    expect(await sample(metrics, "edgeconnect_orphaned_infrastructure", { kind: "VpcV1" })).toBe(1);
    subject.setOrphans(new Map([["VpcV1", 0], ["Namespace", 0]]));
    expect(await sample(metrics, "edgeconnect_orphaned_infrastructure", { kind: "VpcV1" })).toBe(0);
    expect(await metrics.metrics()).toContain('edgeconnect_orphaned_infrastructure{kind="Namespace"} 0');
  });
});
