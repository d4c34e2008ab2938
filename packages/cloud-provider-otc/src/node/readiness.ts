/**
 * The node's Ready condition as the lifecycle controller reads it: a node
 * without one counts as Unknown, like k8s.io/cloud-provider counts it.
 */
import type { Node, NodeCondition } from "../kube/objects.js";

export function readyStatus(node: Node): NodeCondition["status"] {
  return node.status?.conditions?.find((condition) => condition.type === "Ready")?.status ?? "Unknown";
}
