/**
 * What exists on the infrastructure cluster for one KubernetesCluster, read
 * from the watch caches: the world the reconciler compares its desired
 * objects with; and what is left of it, read from the API server: what
 * teardown waits for. Only the tenant's own namespace is looked at, and
 * only objects marked as made for this KubernetesCluster.
 */
import {
  CLUSTER_V3,
  CROSSPLANE_PROVIDER_CONFIG,
  EIP_V1,
  KEYPAIR_V2,
  MANAGED_RESOURCE_KINDS,
  NODE_POOL_V3,
  ownerLabels,
  SUBNET_V1,
  UID_LABEL,
  VPC_V1,
  type ManagedResource,
} from "@edgeconnect/provisioning";
import type { DeepReadonly, Request } from "@edgeconnect/runtime";
import type { InfrastructureCluster, InfrastructureWrites, InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { ownedBy } from "../infrastructure/owner.js";

export type Observed = DeepReadonly<ManagedResource>;

export interface ObservedInfrastructure {
  readonly vpc?: Observed;
  readonly subnet?: Observed;
  readonly eip?: Observed;
  readonly keypair?: Observed;
  readonly cluster?: Observed;
  /** Every node pool made for this cluster: the current one and any being replaced after a SoldOut. */
  readonly nodePools: readonly Observed[];
  /** The names of the cluster's Crossplane ProviderConfigs: the current one, and any it superseded. */
  readonly providerConfigs: readonly string[];
}

/** What the controller caches of the infrastructure cluster (our objects only): the managed resources and their ProviderConfigs. */
export const CACHED_KINDS: readonly InfraKind[] = [...MANAGED_RESOURCE_KINDS, CROSSPLANE_PROVIDER_CONFIG];

/** The managed kinds, children before parents: the order of teardown. */
export const TEARDOWN_STAGES: readonly (readonly InfraKind[])[] = [[NODE_POOL_V3], [CLUSTER_V3], [EIP_V1, KEYPAIR_V2], [SUBNET_V1], [VPC_V1]];

export function observeInfrastructure(infra: InfrastructureCluster, namespace: string, request: Request, names: { readonly [K in "vpc" | "subnet" | "eip" | "keypair" | "cluster"]: string }): ObservedInfrastructure {
  const ours = (kind: InfraKind): Observed[] => infra.list<ManagedResource>(kind, namespace).filter((obj) => ownedBy(obj, request));
  const named = (kind: InfraKind, name: string): Observed | undefined => ours(kind).find((obj) => obj.metadata?.name === name);
  const found = {
    vpc: named(VPC_V1, names.vpc),
    subnet: named(SUBNET_V1, names.subnet),
    eip: named(EIP_V1, names.eip),
    keypair: named(KEYPAIR_V2, names.keypair),
    cluster: named(CLUSTER_V3, names.cluster),
  };
  return {
    ...Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined)),
    nodePools: ours(NODE_POOL_V3),
    providerConfigs: ours(CROSSPLANE_PROVIDER_CONFIG).map((pc) => pc.metadata?.name ?? ""),
  };
}

/**
 * The labels of every object made for `request` (`ownerLabels`), but for
 * the uid: ownership is by namespace and name (see `ownedBy`).
 */
export function ownerSelector(request: Request): Record<string, string> {
  return Object.fromEntries(Object.entries(ownerLabels({ ...request, uid: "" })).filter(([key]) => key !== UID_LABEL));
}

/**
 * Every managed resource made for `request` in `namespace`, by kind, listed
 * from the API server: what teardown must see gone. Not from the caches: one
 * created just before the deletion may not be in them yet, and would be
 * left behind in the cloud.
 */
export async function ownedResources(writes: InfrastructureWrites, namespace: string, request: Request, kinds: readonly InfraKind[]): Promise<{ kind: InfraKind; obj: Observed }[]> {
  const selector = ownerSelector(request);
  const listed = await Promise.all(kinds.map(async (kind) => (await writes.list<ManagedResource>(kind, namespace, selector)).map((obj) => ({ kind, obj }))));
  // The labels may be shortened (`labelValue`) and so shared: the annotations tell.
  return listed.flat().filter(({ obj }) => ownedBy(obj, request));
}
