/**
 * The cloud node lifecycle controller (k8s.io/cloud-provider
 * `controllers/nodelifecycle`): every `nodeMonitorPeriodMs` per node,
 *
 * - Ready: the shutdown taint goes (the instance is evidently running);
 * - NotReady or Unknown, instance gone: the Node is deleted, so its pods are
 *   rescheduled instead of waiting for a machine that will not return;
 * - NotReady or Unknown, instance shut down: the shutdown taint is added.
 *
 * "Gone" means only what InstancesV2 reports as gone (a 404, an exact-name
 * miss). When the cloud cannot answer, the reconcile fails and is retried
 * within one period; nothing is deleted on an error.
 */
import {
  Controller,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  mutableCopy,
  requestFor,
  requestKey,
  TokenBucketRateLimiter,
  type ControllerLogger,
  type EventHandlers,
  type RequestSink,
} from "@edgeconnect/runtime";
import { TAINT_SHUTDOWN, type Node } from "../kube/objects.js";
import { DEFAULT_NODE_MONITOR_PERIOD_MS, nodeReference, type NodeControllersOptions } from "./node-controllers-options.js";
import { deleteNode, updateNode } from "./node-writes.js";
import { readyStatus } from "./readiness.js";
import { SHUTDOWN_TAINT, withoutTaint, withTaint } from "./taints.js";

export const CLOUD_NODE_LIFECYCLE_CONTROLLER = "cloud-node-lifecycle";

export function cloudNodeLifecycleController(options: NodeControllersOptions): { controller: Controller; handlers: EventHandlers<Node> } {
  const periodMs = options.nodeMonitorPeriodMs ?? DEFAULT_NODE_MONITOR_PERIOD_MS;
  const log = options.logger?.child({ controller: CLOUD_NODE_LIFECYCLE_CONTROLLER });
  const controller = new Controller({
    name: CLOUD_NODE_LIFECYCLE_CONTROLLER,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    // Failures are retried no later than the next monitor period would have come, as upstream's loop does.
    rateLimiter: new MaxOfRateLimiter<string>(
      new ExponentialFailureRateLimiter<string>({ baseDelayMs: 5, maxDelayMs: periodMs }),
      new TokenBucketRateLimiter<string>({ qps: 10, burst: 100 }),
    ),
    reconciler: {
      async reconcile(request, { signal }) {
        const cached = options.nodes.get(requestKey(request));
        if (cached === undefined) return;
        // The reconcile's own copy, as controller-runtime's cache reader hands out: the cache is shared and frozen.
        const deleted = await monitorNode(options, mutableCopy(cached), log, signal);
        return deleted ? undefined : { requeueAfterMs: periodMs };
      },
    },
  });
  return { controller, handlers: readinessHandlers(controller) };
}

/** True when the node was deleted. */
async function monitorNode(options: NodeControllersOptions, node: Node, log: ControllerLogger | undefined, signal: AbortSignal): Promise<boolean> {
  const name = node.metadata?.name ?? "";
  if (readyStatus(node) === "True") {
    await updateNode(options.client, node, (current) => withoutTaint(current, TAINT_SHUTDOWN, SHUTDOWN_TAINT.effect), signal);
    return false;
  }
  const instances = options.instances.withSignal(signal);
  if (!(await instances.instanceExists(node))) {
    log?.info({ node: name }, "deleting node: its instance no longer exists");
    options.recorder.event(nodeReference(node), "Normal", "DeletingNode", `Deleting node ${name} because it does not exist in the cloud provider`);
    try {
      await deleteNode(options.client, node, signal);
    } catch (error) {
      options.recorder.event(nodeReference(node), "Warning", "DeletingNodeFailed", `Failed deleting node ${name}: ${String(error)}`);
      throw error;
    }
    return true;
  }
  if (await instances.instanceShutdown(node)) {
    await updateNode(options.client, node, (current) => withTaint(current, SHUTDOWN_TAINT), signal);
  }
  return false;
}

/** Readiness changes start a check at once; the periodic requeue covers the rest. */
function readinessHandlers(sink: RequestSink): EventHandlers<Node> {
  return {
    added: (node) => sink.enqueue(requestFor(node)),
    updated: (old, current) => {
      if (readyStatus(old) !== readyStatus(current)) sink.enqueue(requestFor(current));
    },
  };
}
