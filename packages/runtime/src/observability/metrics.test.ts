import { describe, expect, it } from "@jest/globals";
import { holdSecrets, noteContainedFailure } from "@edgeconnect/redaction";
import { RECONCILE_TIME_BUCKETS, RuntimeMetrics, WORKQUEUE_DURATION_BUCKETS } from "./metrics.js";
import { OTHER_TENANT, TenantLabels } from "./tenant-labels.js";

/** Exposition lines of one metric family (samples only, no HELP/TYPE). */
function samples(text: string, name: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

/** The value of the sample of `name` whose labels are exactly `labels` (in prom-client's output order). */
function value(text: string, name: string, labels: string): number | undefined {
  const line = samples(text, name).find((sample) => sample.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("RuntimeMetrics", () => {
  it("exposes every controller-runtime and client-go metric with its labels", async () => {
    const metrics = new RuntimeMetrics();
    metrics.registerController("clusters", 4);
    metrics.recordReconcile("clusters", "success", 0.02);
    metrics.recordError("clusters", { terminal: true });
    metrics.recordPanic("clusters");
    metrics.setLeader("edgeconnect-provider", true);
    metrics.queueMetrics("clusters", "clusters").queueLatency(0.001, "aaaaaaaaaaaa");
    const text = await metrics.metrics();

    const expected: [string, string][] = [
      ["controller_runtime_reconcile_total", 'controller="clusters",result="success"'],
      ["controller_runtime_reconcile_errors_total", 'controller="clusters"'],
      ["controller_runtime_terminal_reconcile_errors_total", 'controller="clusters"'],
      ["controller_runtime_reconcile_panics_total", 'controller="clusters"'],
      ["controller_runtime_reconcile_time_seconds_bucket", 'le="0.005",controller="clusters"'],
      ["controller_runtime_reconcile_time_seconds_count", 'controller="clusters"'],
      ["controller_runtime_max_concurrent_reconciles", 'controller="clusters"'],
      ["controller_runtime_active_workers", 'controller="clusters"'],
      ["workqueue_depth", 'name="clusters",controller="clusters"'],
      ["workqueue_adds_total", 'name="clusters",controller="clusters"'],
      ["workqueue_queue_duration_seconds_bucket", 'le="1e-8",name="clusters",controller="clusters"'],
      ["workqueue_work_duration_seconds_bucket", 'le="1e-8",name="clusters",controller="clusters"'],
      ["workqueue_retries_total", 'name="clusters",controller="clusters"'],
      ["leader_election_master_status", 'name="edgeconnect-provider"'],
      ["edgeconnect_tenant_queue_duration_seconds_bucket", 'le="0.001",controller="clusters",tenant="aaaaaaaaaaaa"'],
    ];
    for (const [name, labels] of expected) {
      expect({ name, labels, value: value(text, name, labels) }).toEqual({ name, labels, value: expect.any(Number) });
    }
    expect(text).toMatch(/^# TYPE controller_runtime_reconcile_time_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE workqueue_queue_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE controller_runtime_reconcile_total counter$/m);
    expect(text).toMatch(/^# TYPE workqueue_depth gauge$/m);
    // Node's process metrics come along.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("shows how many credential values redaction holds and how many failures it contained", async () => {
    const metrics = new RuntimeMetrics();
    const held = async (): Promise<number> => Number(samples(await metrics.metrics(), "edgeconnect_redaction_held_values")[0]?.split(" ")[1]);
    const before = await held();
    holdSecrets({ tenant: "metrics-test", name: "credentials" }, ["metrics-test-value-1", "metrics-test-value-2"]);
    noteContainedFailure("event");
    expect(await held()).toBe(before + 2);
    const text = await metrics.metrics();
    expect(value(text, "edgeconnect_redaction_contained_failures_total", 'stage="event"')).toBeGreaterThanOrEqual(1);
    expect(value(text, "edgeconnect_redaction_contained_failures_total", 'stage="scrub"')).toBeGreaterThanOrEqual(0);
  });

  it("uses controller-runtime's and client-go's buckets", async () => {
    const metrics = new RuntimeMetrics();
    metrics.recordReconcile("c", "success", 1);
    metrics.queueMetrics("c", "c");
    const text = await metrics.metrics();
    const les = (name: string): string[] =>
      samples(text, `${name}_bucket`).map((line) => /le="([^"]+)"/.exec(line)?.[1] ?? "?");
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    expect(les("controller_runtime_reconcile_time_seconds")).toEqual([...RECONCILE_TIME_BUCKETS.map(String), "+Inf"]);
    expect(les("workqueue_queue_duration_seconds")).toEqual([
      "1e-8", "1e-7", "0.000001", "0.00001", "0.0001", "0.001", "0.01", "0.1", "1", "10", "+Inf",
    ]);
    expect(les("workqueue_work_duration_seconds")).toEqual([...WORKQUEUE_DURATION_BUCKETS.map(String), "+Inf"]);
  });

  it("pre-initialises a registered controller's series at zero", async () => {
    const metrics = new RuntimeMetrics();
    metrics.registerController("clusters", 3);
    const text = await metrics.metrics();
    for (const result of ["success", "error", "requeue", "requeue_after"]) {
      expect(value(text, "controller_runtime_reconcile_total", `controller="clusters",result="${result}"`)).toBe(0);
    }
    expect(value(text, "controller_runtime_reconcile_errors_total", 'controller="clusters"')).toBe(0);
    expect(value(text, "controller_runtime_terminal_reconcile_errors_total", 'controller="clusters"')).toBe(0);
    expect(value(text, "controller_runtime_reconcile_panics_total", 'controller="clusters"')).toBe(0);
    expect(value(text, "controller_runtime_max_concurrent_reconciles", 'controller="clusters"')).toBe(3);
    expect(value(text, "controller_runtime_active_workers", 'controller="clusters"')).toBe(0);
  });

  it("counts reconciles, errors, panics, workers and leadership", async () => {
    const metrics = new RuntimeMetrics();
    metrics.registerController("c", 2);
    metrics.recordReconcile("c", "success", 0.1);
    metrics.recordReconcile("c", "requeue_after", 0.2);
    metrics.recordReconcile("c", "error", 0.3);
    metrics.recordError("c", { terminal: false });
    metrics.recordReconcile("c", "error", 0.4);
    metrics.recordError("c", { terminal: true });
    metrics.recordPanic("c");
    metrics.setWorkers("c", 2);
    metrics.setLeader("lease", true);
    metrics.setLeader("lease", false);
    const text = await metrics.metrics();
    expect(value(text, "controller_runtime_reconcile_total", 'controller="c",result="success"')).toBe(1);
    expect(value(text, "controller_runtime_reconcile_total", 'controller="c",result="requeue_after"')).toBe(1);
    expect(value(text, "controller_runtime_reconcile_total", 'controller="c",result="error"')).toBe(2);
    expect(value(text, "controller_runtime_reconcile_total", 'controller="c",result="requeue"')).toBe(0);
    expect(value(text, "controller_runtime_reconcile_errors_total", 'controller="c"')).toBe(2);
    expect(value(text, "controller_runtime_terminal_reconcile_errors_total", 'controller="c"')).toBe(1);
    expect(value(text, "controller_runtime_reconcile_panics_total", 'controller="c"')).toBe(1);
    expect(value(text, "controller_runtime_reconcile_time_seconds_count", 'controller="c"')).toBe(4);
    expect(value(text, "controller_runtime_reconcile_time_seconds_sum", 'controller="c"')).toBeCloseTo(1.0);
    expect(value(text, "controller_runtime_reconcile_time_seconds_bucket", 'le="0.25",controller="c"')).toBe(2);
    expect(value(text, "controller_runtime_active_workers", 'controller="c"')).toBe(2);
    expect(value(text, "leader_election_master_status", 'name="lease"')).toBe(0);
  });

  it("updates the work queue series through the QueueMetrics hooks", async () => {
    const metrics = new RuntimeMetrics();
    const queue = metrics.queueMetrics("clusters", "clusters-queue");
    const labels = 'name="clusters-queue",controller="clusters"';
    const zero = await metrics.metrics();
    expect(value(zero, "workqueue_depth", labels)).toBe(0);
    expect(value(zero, "workqueue_adds_total", labels)).toBe(0);
    expect(value(zero, "workqueue_retries_total", labels)).toBe(0);
    expect(value(zero, "workqueue_queue_duration_seconds_count", labels)).toBe(0);
    expect(value(zero, "workqueue_work_duration_seconds_count", labels)).toBe(0);

    queue.add();
    queue.add();
    queue.add();
    queue.depth(3);
    queue.depth(2);
    queue.queueLatency(0.005, "aaaaaaaaaaaa");
    queue.queueLatency(2, "bbbbbbbbbbbb");
    queue.workDuration(0.5);
    queue.retry();
    const text = await metrics.metrics();
    expect(value(text, "workqueue_adds_total", labels)).toBe(3);
    expect(value(text, "workqueue_depth", labels)).toBe(2);
    expect(value(text, "workqueue_retries_total", labels)).toBe(1);
    expect(value(text, "workqueue_queue_duration_seconds_count", labels)).toBe(2);
    expect(value(text, "workqueue_queue_duration_seconds_sum", labels)).toBeCloseTo(2.005);
    expect(value(text, "workqueue_queue_duration_seconds_bucket", `le="0.01",${labels}`)).toBe(1);
    expect(value(text, "workqueue_work_duration_seconds_count", labels)).toBe(1);
    expect(value(text, "workqueue_work_duration_seconds_bucket", `le="1",${labels}`)).toBe(1);
    expect(value(text, "edgeconnect_tenant_queue_duration_seconds_count", 'controller="clusters",tenant="aaaaaaaaaaaa"')).toBe(1);
    expect(value(text, "edgeconnect_tenant_queue_duration_seconds_count", 'controller="clusters",tenant="bbbbbbbbbbbb"')).toBe(1);
  });

  it("keeps two instances apart", async () => {
    const first = new RuntimeMetrics();
    const second = new RuntimeMetrics();
    first.registerController("only-in-first", 1);
    expect(await first.metrics()).toContain('controller="only-in-first"');
    expect(await second.metrics()).not.toContain('controller="only-in-first"');
  });

  it("bounds the tenant label at K+1 values even with 1,000 tenants", async () => {
    const metrics = new RuntimeMetrics({ trackedTenants: 20 });
    const queue = metrics.queueMetrics("clusters", "clusters");
    for (let round = 0; round < 3; round++) {
      for (let tenant = 0; tenant < 1000; tenant++) queue.queueLatency(0.001, tenant.toString(16).padStart(12, "0"));
    }
    const text = await metrics.metrics();
    const tenants = new Set(
      samples(text, "edgeconnect_tenant_queue_duration_seconds_count").map((line) => /tenant="([^"]+)"/.exec(line)?.[1]),
    );
    expect(tenants.size).toBe(21);
    expect(tenants.has(OTHER_TENANT)).toBe(true);
    // The first 20 seen keep their own label; the other 980 share "other".
    expect(tenants.has("000000000013")).toBe(true);
    expect(tenants.has("000000000014")).toBe(false);
    expect(value(text, "edgeconnect_tenant_queue_duration_seconds_count", 'controller="clusters",tenant="other"')).toBe(980 * 3);
    expect(value(text, "edgeconnect_tenant_queue_duration_seconds_count", 'controller="clusters",tenant="000000000000"')).toBe(3);
  });
});

describe("TenantLabels", () => {
  it("admits tenants on first use until full, then answers other", () => {
    const labels = new TenantLabels(2);
    expect(labels.label("a")).toBe("a");
    expect(labels.label("b")).toBe("b");
    expect(labels.label("c")).toBe(OTHER_TENANT);
    expect(labels.label("a")).toBe("a");
    expect(labels.label("c")).toBe(OTHER_TENANT);
  });

  it("never hands out more than capacity + 1 values", () => {
    const labels = new TenantLabels(5);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(labels.label(`tenant-${i % 97}`));
    expect(seen.size).toBe(6);
  });

  it("does not let a tenant called other use up a slot", () => {
    const labels = new TenantLabels(1);
    expect(labels.label(OTHER_TENANT)).toBe(OTHER_TENANT);
    expect(labels.label("a")).toBe("a");
  });

  it("with capacity 0 labels everyone other", () => {
    expect(new TenantLabels(0).label("a")).toBe(OTHER_TENANT);
  });

  it("rejects a negative or fractional capacity", () => {
    expect(() => new TenantLabels(-1)).toThrow(RangeError);
    expect(() => new TenantLabels(1.5)).toThrow(RangeError);
  });
});
