/**
 * What a platform team alerts on, beside the runtime's controller metrics:
 * clusters by phase, how long ordering a cluster takes, teardowns that do
 * not finish, how OTC and IAM answer, and infrastructure whose cluster is
 * gone (the orphan audit).
 *
 * No label carries a tenant, a name or anything a tenant chose: phase,
 * provider type, OTC operation and result, and kind are closed sets, so the
 * series count does not grow with tenants.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { isConditionTrue, type DeepReadonly, type EventHandlers, type RuntimeMetrics } from "@edgeconnect/runtime";
import { Gauge, Histogram } from "prom-client";

type Cluster = DeepReadonly<KubernetesCluster & KubeObject>;

/** The OTC and IAM calls the controller makes (otc-gateway.ts). */
export type OtcOperation = "iam_validate" | "cce_cluster_cert";
/** `rejected`: IAM refused the credentials; `timeout`: the call's own deadline passed. */
export type OtcCallResult = "ok" | "rejected" | "error" | "timeout";

/** What the OTC gateway reports of each call. */
export interface OtcCallObserver {
  otcCall(operation: OtcOperation, result: OtcCallResult, seconds: number): void;
}

/** What a teardown reports of the resource it waits on (teardown.ts), for counting by kind and Crossplane's reason. */
export interface TeardownObserver {
  /** `blocker` undefined: the cluster's teardown waits on nothing (any more). */
  teardownBlocked(uid: string, blocker: { readonly kind: string; readonly reason?: string } | undefined): void;
}

/** A teardown running longer than this is counted as stuck. */
export const STUCK_TEARDOWN_MS = 30 * 60_000;

/** Ordering a cluster takes minutes (CCE) to an hour (node pools in a busy region). */
export const TIME_TO_READY_BUCKETS: readonly number[] = [30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200];
/** IAM and CCE answer in tens of milliseconds to seconds; the default deadline is 20 s. */
export const OTC_CALL_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

const PHASES = ["Pending", "Provisioning", "Ready", "Failed", "Deleting"] as const;
const PROVIDER_TYPES = ["OTC", "ClusterAPI"] as const;

export interface ProviderMetricsOptions {
  readonly metrics: RuntimeMetrics;
  /** The KubernetesClusters in the controller's view, read at scrape time. */
  readonly clusters: () => readonly Cluster[];
  /** Wall-clock time in ms; tests set it. */
  readonly now?: () => number;
}

export class ProviderMetrics implements OtcCallObserver, TeardownObserver {
  private readonly now: () => number;
  private readonly timeToReady: Histogram<"provider">;
  private readonly otcCalls: Histogram<"operation" | "result">;
  private readonly orphans: Gauge<"kind">;
  /**
   * Uids of clusters seen Ready in this process: a cluster that was Ready
   * when the controller started, or that falls back and recovers, has no
   * time to Ready to report.
   */
  private readonly seenReady = new Set<string>();
  /** What each waiting teardown waits on, by cluster uid: as many entries as clusters being deleted. */
  private readonly blocked = new Map<string, { readonly kind: string; readonly reason: string }>();

  constructor(options: ProviderMetricsOptions) {
    this.now = options.now ?? Date.now;
    const registers = [options.metrics.registry];
    const { clusters } = options;
    const now = this.now;
    new Gauge({
      name: "edgeconnect_kubernetes_clusters",
      help: "KubernetesClusters in this controller's view by phase and provider type",
      labelNames: ["phase", "provider"],
      registers,
      collect() {
        this.reset();
        // Every known combination is exported, zeros included, so an alert on a phase sees 0 rather than no series.
        for (const phase of PHASES) for (const provider of PROVIDER_TYPES) this.set({ phase, provider }, 0);
        for (const kc of clusters()) this.inc({ phase: kc.status?.phase ?? "Pending", provider: kc.spec?.providerRef.type ?? "OTC" });
      },
    });
    new Gauge({
      name: "edgeconnect_kubernetes_cluster_teardowns",
      help: "KubernetesClusters being deleted; stuck: for longer than 30 minutes",
      labelNames: ["state"],
      registers,
      collect() {
        const deleting = clusters().flatMap((kc) => {
          const since = Date.parse(kc.metadata?.deletionTimestamp ?? "");
          return Number.isNaN(since) ? [] : [since];
        });
        const at = now();
        this.set({ state: "in_progress" }, deleting.length);
        this.set({ state: "stuck" }, deleting.filter((since) => at - since > STUCK_TEARDOWN_MS).length);
      },
    });
    const blocked = this.blocked;
    new Gauge({
      name: "edgeconnect_kubernetes_cluster_teardown_blocked",
      help: "KubernetesCluster teardowns waiting on a resource, by its kind and the reason of its Synced or Ready condition",
      labelNames: ["kind", "reason"],
      registers,
      collect() {
        this.reset();
        for (const { kind, reason } of blocked.values()) this.inc({ kind, reason });
      },
    });
    this.timeToReady = new Histogram({
      name: "edgeconnect_kubernetes_cluster_time_to_ready_seconds",
      help: "Time from a KubernetesCluster's creation to the controller seeing it Ready for the first time",
      labelNames: ["provider"],
      buckets: [...TIME_TO_READY_BUCKETS],
      registers,
    });
    this.otcCalls = new Histogram({
      name: "edgeconnect_otc_call_duration_seconds",
      help: "OTC and IAM calls by operation and result, queueing per credential set included",
      labelNames: ["operation", "result"],
      buckets: [...OTC_CALL_BUCKETS],
      registers,
    });
    this.orphans = new Gauge({
      name: "edgeconnect_orphaned_infrastructure",
      help: "Objects on the infrastructure cluster whose KubernetesCluster is confirmed gone, by kind, as of the last orphan audit",
      labelNames: ["kind"],
      registers,
    });
  }

  /** Handlers for the KubernetesCluster resource: time to Ready is observed on the update that turns Ready true. */
  clusterHandlers(): EventHandlers<KubernetesCluster & KubeObject> {
    return {
      added: (kc) => {
        if (isReady(kc)) this.seenReady.add(uidOf(kc));
      },
      updated: (old, current) => {
        const uid = uidOf(current);
        if (isReady(old) || !isReady(current) || this.seenReady.has(uid)) return;
        this.seenReady.add(uid);
        const created = Date.parse(current.metadata?.creationTimestamp ?? "");
        if (Number.isNaN(created)) return;
        this.timeToReady.observe({ provider: current.spec?.providerRef.type ?? "OTC" }, Math.max(0, (this.now() - created) / 1000));
      },
      deleted: (kc) => {
        this.seenReady.delete(uidOf(kc));
        this.blocked.delete(uidOf(kc));
      },
    };
  }

  teardownBlocked(uid: string, blocker: { readonly kind: string; readonly reason?: string } | undefined): void {
    if (blocker === undefined) this.blocked.delete(uid);
    else this.blocked.set(uid, { kind: blocker.kind, reason: blocker.reason ?? "" });
  }

  otcCall(operation: OtcOperation, result: OtcCallResult, seconds: number): void {
    this.otcCalls.observe({ operation, result }, seconds);
  }

  /** The orphan audit's finding: every kind it looks at, zeros included, replacing the last finding. */
  setOrphans(counts: ReadonlyMap<string, number>): void {
    this.orphans.reset();
    for (const [kind, count] of counts) this.orphans.set({ kind }, count);
  }
}

function isReady(kc: Cluster): boolean {
  return isConditionTrue(kc.status?.conditions, "Ready");
}

function uidOf(kc: Cluster): string {
  return kc.metadata?.uid ?? "";
}
