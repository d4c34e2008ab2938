/**
 * Where a managed resource stands, from its Crossplane conditions and the
 * OTC status the provider observed.
 *
 * `Ready=True` alone is not enough: upjet sets it as soon as the Terraform
 * state has an id, so a node pool that is sold out, or a cluster still
 * `Creating`, can be Ready. A resource counts as ready when Synced and Ready
 * are True for its current generation and its OTC status is healthy.
 *
 * Messages are shown to tenants: they name the kind of thing ("the control
 * plane"), never the infrastructure namespace or object names. A Failed
 * state carries the provider's message as is; the caller scrubs it.
 */
import { CLUSTER_V3, EIP_V1, KEYPAIR_V2, NODE_POOL_V3, SUBNET_V1, VPC_V1 } from "./managed-resources.js";
import { eipAddress, externalStatus, observedId, type ManagedResourceCondition, type ObservedManagedResource } from "./observed-values.js";

export type ManagedResourceStateName = "Absent" | "Pending" | "Ready" | "Failed" | "Deleting";

export interface ManagedResourceState {
  state: ManagedResourceStateName;
  /** CamelCase: Crossplane's reason where there is one. */
  reason: string;
  message: string;
  /** `status.atProvider.status`, when the provider reported one. */
  externalStatus?: string;
}

/** Node-pool phases other than the healthy `""`. */
const NODE_POOL_SOLD_OUT = "SoldOut";
const NODE_POOL_ERROR = "Error";

const WHAT: Readonly<Record<string, string>> = {
  [VPC_V1.kind]: "the VPC",
  [SUBNET_V1.kind]: "the subnet",
  [EIP_V1.kind]: "the public IP",
  [KEYPAIR_V2.kind]: "the SSH key pair",
  [CLUSTER_V3.kind]: "the control plane",
  [NODE_POOL_V3.kind]: "the node pool",
};

/** Whether the OTC side of a resource of this kind is usable, beyond Crossplane's Ready. */
const HEALTHY: Readonly<Record<string, (resource: ObservedManagedResource) => boolean>> = {
  [VPC_V1.kind]: (r) => externalStatus(r) === "OK",
  [SUBNET_V1.kind]: (r) => externalStatus(r) === "ACTIVE",
  [CLUSTER_V3.kind]: (r) => externalStatus(r) === "Available",
  // "" is CCE's normal phase; Synchronizing, Synchronized, SoldOut, Deleting and Error are not.
  [NODE_POOL_V3.kind]: (r) => (externalStatus(r) ?? "") === "",
  [EIP_V1.kind]: (r) => eipAddress(r) !== undefined,
  [KEYPAIR_V2.kind]: (r) => observedId(r) !== undefined,
};

/** What a managed resource of `kind` is, in words a tenant understands ("the control plane"); undefined for a kind not ours. */
export function describeManagedKind(kind: string | undefined): string | undefined {
  return WHAT[kind ?? ""];
}

export function managedResourceState(resource: ObservedManagedResource | undefined): ManagedResourceState {
  if (resource === undefined) return { state: "Absent", reason: "Absent", message: "not created yet" };
  const what = WHAT[resource.kind ?? ""] ?? "the resource";
  const status = externalStatus(resource);
  const state = (name: ManagedResourceStateName, reason: string, message: string): ManagedResourceState => ({
    state: name,
    reason,
    message,
    ...(status === undefined || status === "" ? {} : { externalStatus: status }),
  });
  if (resource.metadata?.deletionTimestamp !== undefined) return state("Deleting", "Deleting", `${what} is being deleted`);

  if (resource.kind === NODE_POOL_V3.kind && status === NODE_POOL_SOLD_OUT) {
    return state("Failed", "SoldOut", "the node flavor has no capacity left in the zone");
  }
  if (resource.kind === NODE_POOL_V3.kind && status === NODE_POOL_ERROR) return state("Failed", "NodePoolError", `${what} is in OTC status Error`);

  const conditions = resource.status?.conditions;
  const synced = find(conditions, "Synced");
  const ready = find(conditions, "Ready");
  const lastAsync = find(conditions, "LastAsyncOperation");
  if (synced?.status === "False") {
    if (synced.reason === "ReconcilePaused") return state("Pending", "ReconcilePaused", `reconciling ${what} is paused`);
    return state("Failed", synced.reason ?? "ReconcileError", synced.message ?? `${what} cannot be reconciled`);
  }
  if (lastAsync?.status === "False" && !servedSinceFailure(resource)) return state("Failed", lastAsync.reason ?? "AsyncOperationFailed", lastAsync.message ?? `the last operation on ${what} failed`);

  const generation = resource.metadata?.generation;
  // crossplane-runtime stamps the conditions it sets (Synced; Ready while
  // creating or deleting) with the generation it acted on, but upjet marks
  // Ready Available without one, and nothing sets status.observedGeneration:
  // a condition without a generation is as current as Synced.
  const current = (condition: ManagedResourceCondition | undefined): boolean =>
    generation === undefined || (condition?.observedGeneration ?? resource.status?.observedGeneration ?? synced?.observedGeneration) === generation;
  if (synced?.status !== "True" || !current(synced) || (ready !== undefined && !current(ready))) {
    return state("Pending", "Reconciling", `waiting for the provider to act on ${what}`);
  }
  if (ready?.status !== "True") {
    return state("Pending", ready?.reason ?? "Creating", `${what} is ${ready?.reason === "Deleting" ? "being deleted" : "being created"}${inStatus(status)}`);
  }
  if (!(HEALTHY[resource.kind ?? ""]?.(resource) ?? true)) return state("Pending", "Waiting", `waiting for ${what} to become usable${inStatus(status)}`);
  return state("Ready", "Available", `${what} is ready`);
}

/**
 * A node pool whose last apply failed but that CCE has served since: a
 * scale-up CCE had no capacity for ends upjet's wait for the pool in
 * SoldOut, and once capacity returns CCE adds the nodes on its own. Upjet
 * runs no new apply when nothing differs, so LastAsyncOperation keeps the
 * old failure; the pool in its normal phase with the node count asked for
 * is what counts then.
 */
function servedSinceFailure(resource: ObservedManagedResource): boolean {
  if (resource.kind !== NODE_POOL_V3.kind || (externalStatus(resource) ?? "") !== "") return false;
  const asked = resource.spec?.forProvider?.["initialNodeCount"];
  return typeof asked === "number" && asked === resource.status?.atProvider?.["initialNodeCount"];
}

/** Whether a NodePoolV3 is sold out: its flavor has no capacity in its zone ("random": in any zone). */
export function isSoldOut(nodePool: ObservedManagedResource | undefined): boolean {
  return externalStatus(nodePool) === NODE_POOL_SOLD_OUT;
}

function find(conditions: readonly ManagedResourceCondition[] | undefined, type: string): ManagedResourceCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

function inStatus(status: string | undefined): string {
  return status === undefined || status === "" ? "" : ` (OTC status ${status})`;
}
