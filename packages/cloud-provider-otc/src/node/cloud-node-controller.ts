/**
 * The cloud node controller (k8s.io/cloud-provider `controllers/node`):
 * initialises nodes a kubelet registered with `--cloud-provider=external`,
 * then keeps their addresses and labels in step with the cloud.
 *
 * A node with the uninitialized taint gets providerID, labels and taint
 * removal in one update, then its addresses, then the event `Synced`. If the
 * cloud has no instance for it, the node stays tainted (unschedulable) and
 * is retried with backoff: better a node that waits than one that runs
 * without identity. Initialised nodes are refreshed every
 * `nodeStatusUpdateFrequencyMs`; an instance that vanished is left to the
 * lifecycle controller.
 */
import {
  Controller,
  mutableCopy,
  requestFor,
  requestKey,
  type ControllerLogger,
  type DeepReadonly,
  type EventHandlers,
  type RequestSink,
} from "@edgeconnect/runtime";
import { ProvidedNodeIpError } from "../instances/node-addresses.js";
import { ANNOTATION_PROVIDED_NODE_IP, TAINT_UNINITIALIZED, type Node } from "../kube/objects.js";
import { DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS, nodeReference, type NodeControllersOptions } from "./node-controllers-options.js";
import { desiredAddresses, sameAddresses, syncedNode } from "./node-sync.js";
import { patchNodeAddresses, updateNode } from "./node-writes.js";
import { hasTaint } from "./taints.js";

export const CLOUD_NODE_CONTROLLER = "cloud-node";

export function cloudNodeController(options: NodeControllersOptions): { controller: Controller; handlers: EventHandlers<Node> } {
  const refreshMs = options.nodeStatusUpdateFrequencyMs ?? DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS;
  const log = options.logger?.child({ controller: CLOUD_NODE_CONTROLLER });
  const controller = new Controller({
    name: CLOUD_NODE_CONTROLLER,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    reconciler: {
      async reconcile(request, { signal }) {
        const cached = options.nodes.get(requestKey(request));
        if (cached === undefined) return;
        // The reconcile's own copy, as controller-runtime's cache reader hands out: the cache is shared and frozen.
        const node = mutableCopy(cached);
        try {
          await syncNode(options, node, log, signal);
        } catch (error) {
          if (error instanceof ProvidedNodeIpError) {
            options.recorder.event(nodeReference(node), "Warning", "InvalidProvidedNodeIP", `${ANNOTATION_PROVIDED_NODE_IP}: ${error.message}`);
          }
          throw error;
        }
        return { requeueAfterMs: refreshMs };
      },
    },
  });
  return { controller, handlers: syncHandlers(controller) };
}

async function syncNode(options: NodeControllersOptions, node: Node, log: ControllerLogger | undefined, signal: AbortSignal): Promise<void> {
  const name = node.metadata?.name ?? "";
  const uninitialised = hasTaint(node, TAINT_UNINITIALIZED);
  const metadata = await options.instances.withSignal(signal).instanceMetadata(node);
  if (metadata === undefined) {
    // An initialised node whose instance vanished is the lifecycle controller's to judge.
    if (!uninitialised) return;
    options.recorder.event(
      nodeReference(node),
      "Warning",
      "InstanceNotFound",
      "No ECS server has this node's providerID or exactly its name; the node stays uninitialized",
    );
    throw new Error(`no instance found for node ${name}: it stays uninitialized`);
  }
  // Load balancers and the lifecycle controller need the providerID: no node goes schedulable without one.
  if ((node.spec?.providerID ?? "") === "" && metadata.providerId === "") {
    throw new Error(`the cloud gave no providerID for node ${name}`);
  }
  // Checked before the taint goes: an unusable provided node IP must keep the node unschedulable.
  desiredAddresses(node, metadata);
  const written = await updateNode(options.client, node, (current) => syncedNode(current, metadata), signal);
  const addresses = desiredAddresses(written, metadata);
  if (addresses !== undefined && !sameAddresses(written.status?.addresses, addresses)) {
    await patchNodeAddresses(options.client, name, addresses, signal);
  }
  if (uninitialised) {
    log?.info({ node: name, providerID: written.spec?.providerID }, "initialised node");
    options.recorder.event(nodeReference(written), "Normal", "Synced", "Node synced successfully");
  }
}

/**
 * Reconciles on what this controller reads: the taints, providerID, labels,
 * provided node IP and addresses. Condition heartbeats alone do not count.
 */
function syncHandlers(sink: RequestSink): EventHandlers<Node> {
  const relevant = (node: DeepReadonly<Node>): string =>
    JSON.stringify([
      node.spec?.providerID,
      node.spec?.taints,
      node.metadata?.labels,
      node.metadata?.annotations?.[ANNOTATION_PROVIDED_NODE_IP],
      node.status?.addresses,
    ]);
  return {
    added: (node) => sink.enqueue(requestFor(node)),
    updated: (old, current) => {
      if (relevant(old) !== relevant(current)) sink.enqueue(requestFor(current));
    },
  };
}
