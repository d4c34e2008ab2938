/**
 * What the cloud node and node lifecycle controllers share: the workload
 * cluster, the Node cache the caller's reflector fills, the cloud, and the
 * periods k8s.io/cloud-provider's flags set.
 */
import type { RestClient } from "@edgeconnect/kcp-ts";
import type { ControllerLogger, EventRecorder, RuntimeMetrics, Store } from "@edgeconnect/runtime";
import type { InstancesV2 } from "../instances/instances.js";
import type { Node } from "../kube/objects.js";

export type NodeClient = Pick<RestClient, "get" | "request" | "delete">;

export interface NodeControllersOptions {
  /** The workload cluster. */
  readonly client: NodeClient;
  /** Filled by a Node reflector the caller owns (key = objectKey(node) = "|<name>"). */
  readonly nodes: Store<Node>;
  readonly instances: InstancesV2;
  readonly recorder: EventRecorder;
  readonly logger?: ControllerLogger;
  readonly metrics?: RuntimeMetrics;
  /** `--node-monitor-period`: how often the lifecycle controller looks at each node. Default 5 000. */
  readonly nodeMonitorPeriodMs?: number;
  /** `--node-status-update-frequency`: how often initialised nodes get addresses and labels refreshed. Default 300 000. */
  readonly nodeStatusUpdateFrequencyMs?: number;
}

export const DEFAULT_NODE_MONITOR_PERIOD_MS = 5_000;
export const DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS = 300_000;

/** Events need kind and apiVersion, which objects from a LIST lack. */
export function nodeReference(node: Node): Node {
  return { apiVersion: "v1", kind: "Node", metadata: node.metadata };
}
