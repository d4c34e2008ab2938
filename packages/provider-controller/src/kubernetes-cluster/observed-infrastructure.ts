/**
 * What exists on the infrastructure cluster for one KubernetesCluster, read
 * from the watch caches: the world the reconciler compares its desired
 * objects with. Only the tenant's own namespace is looked at, and only
 * objects marked as made for this KubernetesCluster.
 */
import { CLUSTER_V3, EIP_V1, KEYPAIR_V2, NODE_POOL_V3, SUBNET_V1, VPC_V1, type ManagedResource } from "@edgeconnect/provisioning";
import type { DeepReadonly, Request } from "@edgeconnect/runtime";
import type { InfrastructureCluster, InfraKind } from "../infrastructure/infrastructure-cluster.js";
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
}

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
  };
}

/** Every managed resource made for `request` in `namespace`, by kind: what teardown must see gone. */
export function ownedResources(infra: InfrastructureCluster, namespace: string, request: Request, kinds: readonly InfraKind[]): { kind: InfraKind; obj: Observed }[] {
  return kinds.flatMap((kind) =>
    infra
      .list<ManagedResource>(kind, namespace)
      .filter((obj) => ownedBy(obj, request))
      .map((obj) => ({ kind, obj })),
  );
}
