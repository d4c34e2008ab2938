/**
 * The runtime's Prometheus metrics. Names, labels and buckets are those of
 * controller-runtime and client-go (controller_runtime_*, workqueue_*,
 * leader_election_master_status), so dashboards and alerts written for Go
 * controllers work unchanged. The additions are a per-tenant queue latency
 * whose `tenant` label is bounded (see tenant-labels.ts), and redaction's
 * held values and contained failures.
 *
 * Each RuntimeMetrics owns its own Registry rather than prom-client's global
 * one: two instances (two managers in a test, say) never collide over a
 * metric name, and /metrics shows exactly what this runtime registered.
 */
import { CONTAINED_FAILURE_STAGES, containedFailures, heldSecretCount } from "@edgeconnect/redaction";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { QueueMetrics } from "../queue/queue-metrics.js";
import { DEFAULT_TRACKED_TENANTS, TenantLabels } from "./tenant-labels.js";

/** How a reconcile ended, as controller-runtime labels `result`. */
export const RECONCILE_RESULTS = ["success", "error", "requeue", "requeue_after"] as const;
export type ReconcileResult = (typeof RECONCILE_RESULTS)[number];

/** controller-runtime's buckets for controller_runtime_reconcile_time_seconds. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * client-go's work queue buckets: 10ns to 10s by powers of ten. Written out
 * because computing them by repeated multiplication gives values such as
 * 1.0000000000000002e-7 in the `le` labels.
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

export interface RuntimeMetricsOptions {
  /** Tenants with a `tenant` label of their own; the rest are "other". Default 20. */
  trackedTenants?: number;
}

type QueueLabel = "name" | "controller";

export class RuntimeMetrics {
  /** Everything this runtime exposes, Node's process metrics included. */
  readonly registry = new Registry();
  readonly #tenants: TenantLabels;

  readonly #reconcileTotal: Counter<"controller" | "result">;
  readonly #reconcileErrors: Counter<"controller">;
  readonly #terminalReconcileErrors: Counter<"controller">;
  readonly #reconcilePanics: Counter<"controller">;
  readonly #reconcileTime: Histogram<"controller">;
  readonly #maxConcurrentReconciles: Gauge<"controller">;
  readonly #activeWorkers: Gauge<"controller">;
  readonly #queueDepth: Gauge<QueueLabel>;
  readonly #queueAdds: Counter<QueueLabel>;
  readonly #queueDuration: Histogram<QueueLabel>;
  readonly #workDuration: Histogram<QueueLabel>;
  readonly #queueRetries: Counter<QueueLabel>;
  readonly #leader: Gauge<"name">;
  readonly #tenantQueueDuration: Histogram<"controller" | "tenant">;

  constructor(options: RuntimeMetricsOptions = {}) {
    this.#tenants = new TenantLabels(options.trackedTenants ?? DEFAULT_TRACKED_TENANTS);
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];

    this.#reconcileTotal = new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.#reconcileErrors = new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#terminalReconcileErrors = new Counter({
      name: "controller_runtime_terminal_reconcile_errors_total",
      help: "Total number of terminal reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#reconcilePanics = new Counter({
      name: "controller_runtime_reconcile_panics_total",
      help: "Total number of reconciliation panics per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#reconcileTime = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: [...RECONCILE_TIME_BUCKETS],
      registers,
    });
    this.#maxConcurrentReconciles = new Gauge({
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#activeWorkers = new Gauge({
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#queueDepth = new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: ["name", "controller"],
      registers,
    });
    this.#queueAdds = new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name", "controller"],
      registers,
    });
    this.#queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name", "controller"],
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers,
    });
    this.#workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames: ["name", "controller"],
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers,
    });
    this.#queueRetries = new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name", "controller"],
      registers,
    });
    this.#leader = new Gauge({
      name: "leader_election_master_status",
      help: "Whether this process is the leader (1) or not (0) of the named lease",
      labelNames: ["name"],
      registers,
    });
    // Same buckets as workqueue_queue_duration_seconds so the per-tenant
    // figures can be compared with (and summed to) the queue-wide ones.
    this.#tenantQueueDuration = new Histogram({
      name: "edgeconnect_tenant_queue_duration_seconds",
      help: 'How long in seconds a tenant\'s item waits in the work queue; tenants beyond the tracked ones are "other"',
      labelNames: ["controller", "tenant"],
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers,
    });
    // Read when scraped: the redaction registry is the process's, not this runtime's.
    new Gauge({
      name: "edgeconnect_redaction_held_values",
      help: "Credential values held for redaction (each searched for in every log line, error and Event)",
      registers,
      collect() {
        this.set(heldSecretCount());
      },
    });
    new Counter({
      name: "edgeconnect_redaction_contained_failures_total",
      help: "Failures contained while registering, scrubbing, logging or writing an Event, by stage; the offending value is never shown",
      labelNames: ["stage"],
      registers,
      collect() {
        this.reset();
        for (const stage of CONTAINED_FAILURE_STAGES) this.inc({ stage }, containedFailures().get(stage) ?? 0);
      },
    });
  }

  /** Content-Type of `metrics()`' text, for the HTTP response. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Creates a controller's series at zero, as controller-runtime does when a
   * controller is built: `rate()` and absence alerts then see the controller
   * before its first reconcile, error or panic.
   */
  registerController(controller: string, maxConcurrentReconciles: number): void {
    for (const result of RECONCILE_RESULTS) this.#reconcileTotal.inc({ controller, result }, 0);
    this.#reconcileErrors.inc({ controller }, 0);
    this.#terminalReconcileErrors.inc({ controller }, 0);
    this.#reconcilePanics.inc({ controller }, 0);
    this.#maxConcurrentReconciles.set({ controller }, maxConcurrentReconciles);
    this.#activeWorkers.set({ controller }, 0);
  }

  /**
   * One finished reconcile: its outcome and how long it took. A failed
   * reconcile is recorded here with "error" and also with `recordError`,
   * which keeps the error counters.
   */
  recordReconcile(controller: string, result: ReconcileResult, seconds: number): void {
    this.#reconcileTotal.inc({ controller, result });
    this.#reconcileTime.observe({ controller }, seconds);
  }

  /** A reconcile returned an error; a terminal one is not retried and is counted on its own too. */
  recordError(controller: string, { terminal }: { terminal: boolean }): void {
    this.#reconcileErrors.inc({ controller });
    if (terminal) this.#terminalReconcileErrors.inc({ controller });
  }

  /** A reconcile threw unexpectedly (controller-runtime's "panic"). */
  recordPanic(controller: string): void {
    this.#reconcilePanics.inc({ controller });
  }

  /** Workers busy reconciling right now. */
  setWorkers(controller: string, active: number): void {
    this.#activeWorkers.set({ controller }, active);
  }

  /** Whether this process holds the lease `name`. */
  setLeader(name: string, isLeader: boolean): void {
    this.#leader.set({ name }, isLeader ? 1 : 0);
  }

  /**
   * The hooks a controller's work queue reports through. The queue's series
   * exist (at zero) from here on, as client-go's do once a queue is made.
   */
  queueMetrics(controller: string, name: string): QueueMetrics {
    const labels = { name, controller };
    const depth = this.#queueDepth.labels(labels);
    const adds = this.#queueAdds.labels(labels);
    const queueDuration = this.#queueDuration.labels(labels);
    const workDuration = this.#workDuration.labels(labels);
    const retries = this.#queueRetries.labels(labels);
    depth.set(0);
    adds.inc(0);
    retries.inc(0);
    this.#queueDuration.zero(labels);
    this.#workDuration.zero(labels);
    return {
      add: () => adds.inc(),
      depth: (items) => depth.set(items),
      queueLatency: (seconds, tenant) => {
        queueDuration.observe(seconds);
        this.#tenantQueueDuration.observe({ controller, tenant: this.#tenants.label(tenant) }, seconds);
      },
      workDuration: (seconds) => workDuration.observe(seconds),
      retry: () => retries.inc(),
    };
  }
}
