/**
 * What a work queue reports about itself. The queue calls these hooks; the
 * observability module implements them with controller-runtime's metric
 * names (workqueue_depth, workqueue_adds_total, ...). Tenant figures go
 * through `tenant*` hooks so that label cardinality stays bounded there.
 */
export interface QueueMetrics {
  /** An item was added (deduplicated adds count too, as in client-go). */
  add(): void;
  /** Items waiting now (not counting those being processed or delayed). */
  depth(items: number): void;
  /** Seconds an item waited between being added and being handed out. */
  queueLatency(seconds: number, tenant: string): void;
  /** Seconds between handing an item out and its `done`. */
  workDuration(seconds: number): void;
  /** An item was re-added with rate limiting (a retry). */
  retry(): void;
}

/** Metrics that go nowhere: the default, and what unit tests use. */
export const NO_QUEUE_METRICS: QueueMetrics = {
  add: () => undefined,
  depth: () => undefined,
  queueLatency: () => undefined,
  workDuration: () => undefined,
  retry: () => undefined,
};
