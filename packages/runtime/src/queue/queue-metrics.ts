/**
 * What a work queue reports about itself. The queue calls these hooks; the
 * observability module implements them with controller-runtime's metric
 * names (workqueue_depth, workqueue_adds_total, ...). Tenant figures go
 * through `tenant*` hooks so that label cardinality stays bounded there.
 */
export interface QueueMetrics {
  /**
   * A key was added that was not already waiting: one in processing counts,
   * an add folded into a waiting key does not (client-go's
   * workqueue_adds_total). A delayed add counts when it falls due.
   */
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
