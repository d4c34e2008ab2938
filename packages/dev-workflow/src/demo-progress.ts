/**
 * What `make demo-up` waits for and prints, from the managed resources of
 * the demo cluster on the Crossplane cluster: VpcV1, SubnetV1 and ClusterV3
 * Synced and Ready, and the worker NodePoolV3 Synced (as the seed's demo-up
 * does), with a warning that says what to change when a node pool is SoldOut.
 */
import { CLUSTER_V3, isSoldOut, NODE_POOL_V3, SUBNET_V1, VPC_V1, type GroupVersionKind, type ObservedManagedResource } from "@edgeconnect/provisioning";

/** The kinds demo-up waits for, in the order they are made. */
export const DEMO_UP_KINDS: readonly GroupVersionKind[] = [VPC_V1, SUBNET_V1, CLUSTER_V3, NODE_POOL_V3];

export interface ObservedNodePool extends ObservedManagedResource {
  spec?: { forProvider?: { flavor?: string; availabilityZone?: string } };
}

export interface DemoObservation {
  /** Kinds the cluster does not need: VpcV1 and SubnetV1 when the spec names a vpcID and a subnetID. */
  readonly notNeeded: ReadonlySet<string>;
  /** The managed resources of the cluster, by kind. */
  readonly resources: ReadonlyMap<string, readonly ObservedNodePool[]>;
}

export interface DemoProgress {
  /** One line for the state of every kind, e.g. `VpcV1 Synced Ready · ClusterV3 Synced, not Ready (Creating)`. */
  readonly summary: string;
  readonly done: boolean;
  /** One warning per SoldOut node pool, saying what to change. */
  readonly soldOut: readonly string[];
}

/** Whether condition `type` is True on the resource. */
function isTrue(resource: ObservedManagedResource, type: string): boolean {
  return resource.status?.conditions?.some((condition) => condition.type === type && condition.status === "True") === true;
}

function conditionReason(resource: ObservedManagedResource, type: string): string | undefined {
  return resource.status?.conditions?.find((condition) => condition.type === type)?.reason;
}

/** `Synced Ready`, or what is missing and why. */
function describe(resource: ObservedManagedResource, wanted: readonly string[]): { text: string; met: boolean } {
  const missing = wanted.filter((type) => !isTrue(resource, type));
  if (missing.length === 0) return { text: wanted.join(" "), met: true };
  const met = wanted.filter((type) => isTrue(resource, type));
  const why = missing.map((type) => conditionReason(resource, type)).filter((reason) => reason !== undefined);
  return { text: `${[...met, ...missing.map((type) => `not ${type}`)].join(", ")}${why.length > 0 ? ` (${why.join(", ")})` : ""}`, met: false };
}

export function demoProgress(observation: DemoObservation, clusterFile: string): DemoProgress {
  const parts: string[] = [];
  const soldOut: string[] = [];
  let done = true;
  for (const kind of DEMO_UP_KINDS) {
    if (observation.notNeeded.has(kind.kind)) continue;
    const wanted = kind === NODE_POOL_V3 ? ["Synced"] : ["Synced", "Ready"];
    const items = observation.resources.get(kind.kind) ?? [];
    if (items.length === 0) {
      parts.push(`${kind.kind} not created yet`);
      done = false;
      continue;
    }
    for (const item of items) {
      const { text, met } = describe(item, wanted);
      parts.push(`${kind.kind}${items.length > 1 ? ` ${item.metadata?.name ?? ""}` : ""} ${text}`);
      done &&= met;
      if (kind === NODE_POOL_V3 && isSoldOut(item)) {
        const flavor = item.spec?.forProvider?.flavor ?? "its flavor";
        const zone = item.spec?.forProvider?.availabilityZone ?? "its zone";
        soldOut.push(
          `NodePoolV3 ${item.metadata?.name ?? ""} is SoldOut: OTC has no capacity for ${flavor} in ${zone === "random" ? "any zone" : zone}. ` +
            `In ${clusterFile} set spec.nodeAvailableZone: random, or pick another spec.nodeFlavor (e.g. s3.xlarge.4, c4.xlarge.4), ` +
            `or lower spec.nodeCount; then run make demo-apply-cluster again.`,
        );
      }
    }
  }
  return { summary: parts.join(" · "), done: done && soldOut.length === 0, soldOut };
}
