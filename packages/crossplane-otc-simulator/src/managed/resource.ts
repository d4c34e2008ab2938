/**
 * The shape every managed resource (MR) of the provider shares, the names
 * Crossplane gives its annotations and finalizer, and the resources this
 * process reads and writes besides the MRs.
 */
import type { ResourcePathParts } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { Condition } from "@edgeconnect/runtime";

/** A forProvider, initProvider or atProvider block: JSON as the CRD schema allows. */
export type Parameters = Readonly<Record<string, unknown>>;

export interface ProviderConfigReference {
  readonly kind: string;
  readonly name: string;
}

export interface ManagedResource extends KubeObject {
  spec?: {
    forProvider?: Parameters;
    initProvider?: Parameters;
    managementPolicies?: string[];
    providerConfigRef?: ProviderConfigReference;
    writeConnectionSecretToRef?: { name: string };
  };
  status?: ManagedStatus;
}

export interface ManagedStatus {
  atProvider?: Parameters;
  conditions?: Condition[];
  observedGeneration?: number;
}

/** An MR kind's API coordinates, as `collectionPath` and `objectPath` of @edgeconnect/api take them. */
export interface ManagedKind extends ResourcePathParts {
  /** The provider's `.m.` groups hold namespaced MRs only. */
  readonly scope: "Namespaced";
}

export const FINALIZER = "finalizer.managedresource.crossplane.io";

export const EXTERNAL_NAME = "crossplane.io/external-name";
export const EXTERNAL_CREATE_PENDING = "crossplane.io/external-create-pending";
export const EXTERNAL_CREATE_SUCCEEDED = "crossplane.io/external-create-succeeded";
export const EXTERNAL_CREATE_FAILED = "crossplane.io/external-create-failed";
export const PAUSED = "crossplane.io/paused";

/** The label crossplane-runtime's usage tracker puts on a ProviderConfigUsage. */
export const PROVIDER_CONFIG_LABEL = "crossplane.io/provider-config";

export const PROVIDER_GROUP = "opentelekomcloud.m.crossplane.io";
export const PROVIDER_VERSION = "v1beta1";

export function apiVersionOf(kind: ManagedKind): string {
  return `${kind.group}/${kind.version}`;
}

/** The provider's own kinds that this process reads and writes besides the MRs. */
export const PROVIDER_CONFIG: ResourcePathParts = {
  group: PROVIDER_GROUP,
  version: PROVIDER_VERSION,
  kind: "ProviderConfig",
  plural: "providerconfigs",
  scope: "Namespaced",
};
export const CLUSTER_PROVIDER_CONFIG: ResourcePathParts = {
  group: PROVIDER_GROUP,
  version: PROVIDER_VERSION,
  kind: "ClusterProviderConfig",
  plural: "clusterproviderconfigs",
  scope: "Cluster",
};
export const PROVIDER_CONFIG_USAGE: ResourcePathParts = {
  group: PROVIDER_GROUP,
  version: PROVIDER_VERSION,
  kind: "ProviderConfigUsage",
  plural: "providerconfigusages",
  scope: "Namespaced",
};

/**
 * forProvider with initProvider's fields filled in where forProvider leaves
 * them out: what the provider creates with (upjet merges initProvider into
 * the create, and ignores its fields afterwards).
 */
export function createParameters(mr: ManagedResource): Parameters {
  return { ...(mr.spec?.initProvider ?? {}), ...(mr.spec?.forProvider ?? {}) };
}

/** The management policies; the CRD defaults them to `["*"]`. */
export function managementPolicies(mr: ManagedResource): readonly string[] {
  return mr.spec?.managementPolicies ?? ["*"];
}

export function allows(mr: ManagedResource, action: "Observe" | "Create" | "Update" | "Delete"): boolean {
  const policies = managementPolicies(mr);
  return policies.includes("*") || policies.includes(action);
}
