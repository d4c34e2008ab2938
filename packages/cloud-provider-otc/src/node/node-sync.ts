/**
 * What the cloud node controller writes, computed from the Node and the
 * instance's metadata, without I/O. Follows k8s.io/cloud-provider's
 * `syncNode` and `updateNodeAddress`:
 *
 * - spec.providerID is set only while empty: it is immutable once set, and
 *   a kubelet-provided one wins.
 * - instance-type, zone and region labels, each with its beta twin, and only
 *   for values the cloud knows.
 * - the uninitialized taint goes in the same update, so that a node becomes
 *   schedulable only with its providerID and labels in place.
 * - addresses: the cloud's, plus the kubelet's Hostname if the cloud has
 *   none, ordered for the provided node IP; left alone when the cloud
 *   returned no address at all.
 */
import type { InstanceMetadata } from "../instances/instances.js";
import { preferProvidedNodeIp } from "../instances/node-addresses.js";
import {
  ANNOTATION_PROVIDED_NODE_IP,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  TAINT_UNINITIALIZED,
  type Node,
  type NodeAddress,
} from "../kube/objects.js";
import { withoutTaint } from "./taints.js";

export function cloudLabels(metadata: InstanceMetadata): Record<string, string> {
  const labels: Record<string, string> = {};
  const pairs: [string, string, string][] = [
    [LABEL_INSTANCE_TYPE, LABEL_INSTANCE_TYPE_BETA, metadata.instanceType],
    [LABEL_ZONE, LABEL_ZONE_BETA, metadata.zone],
    [LABEL_REGION, LABEL_REGION_BETA, metadata.region],
  ];
  for (const [key, betaKey, value] of pairs) {
    if (value === "") continue;
    labels[key] = value;
    labels[betaKey] = value;
  }
  return labels;
}

/** `node` with providerID, labels and no uninitialized taint; undefined when nothing has to change. */
export function syncedNode(node: Node, metadata: InstanceMetadata): Node | undefined {
  let changed = false;
  let next: Node = node;
  if ((node.spec?.providerID ?? "") === "" && metadata.providerId !== "") {
    next = { ...next, spec: { ...next.spec, providerID: metadata.providerId } };
    changed = true;
  }
  const labels = { ...node.metadata?.labels };
  for (const [key, value] of Object.entries(cloudLabels(metadata))) {
    if (labels[key] === value) continue;
    labels[key] = value;
    changed = true;
  }
  next = { ...next, metadata: { ...next.metadata, labels } };
  const untainted = withoutTaint(next, TAINT_UNINITIALIZED);
  return untainted ?? (changed ? next : undefined);
}

/** The addresses the node should report, or undefined when the cloud gave none (then the kubelet's stay). */
export function desiredAddresses(node: Node, metadata: InstanceMetadata): NodeAddress[] | undefined {
  if (metadata.addresses.length === 0) return undefined;
  const addresses = [...metadata.addresses];
  if (!addresses.some((address) => address.type === "Hostname")) {
    addresses.push(...(node.status?.addresses ?? []).filter((address) => address.type === "Hostname"));
  }
  return preferProvidedNodeIp(addresses, node.metadata?.annotations?.[ANNOTATION_PROVIDED_NODE_IP]);
}

/** Order counts: consumers take the first InternalIP. */
export function sameAddresses(a: readonly NodeAddress[] | undefined, b: readonly NodeAddress[]): boolean {
  const current = a ?? [];
  return current.length === b.length && current.every((address, i) => address.type === b[i]?.type && address.address === b[i]?.address);
}
