/**
 * @edgeconnect/runtime: the controller runtime shared by all three systems.
 *
 * @module
 */
export { NO_QUEUE_METRICS, type QueueMetrics } from "./queue/queue-metrics.js";
