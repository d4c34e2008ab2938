/**
 * The node's Ready condition as the lifecycle controller reads it: a node
 * without one counts as Unknown, like k8s.io/cloud-provider counts it.
 */
import type { DeepReadonly } from "@edgeconnect/runtime";
import type { Node, NodeCondition } from "../kube/objects.js";

export function readyStatus(node: DeepReadonly<Node>): NodeCondition["status"] {
  return node.status?.conditions?.find((condition) => condition.type === "Ready")?.status ?? "Unknown";
}
