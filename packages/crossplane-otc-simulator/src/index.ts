/**
 * @edgeconnect/crossplane-otc-simulator: test support, not for production.
 * A process (`crossplane-otc-simulator`, see main.ts) that plays Crossplane's
 * OTC provider, provider-opentelekomcloud, on an infrastructure
 * kube-apiserver: it reconciles the provider's namespaced managed resources
 * (VpcV1, SubnetV1, EIPV1, KeypairV2, ClusterV3, NodePoolV3) against the OTC
 * API as upjet and crossplane-runtime do (conditions, finalizer, external
 * name and creation annotations, ProviderConfigUsage tracking, ForceNew
 * refusals, deletion retries), through `@edgeconnect/otc`. Also our copies
 * of the provider's CRDs, and the field manager to install them with.
 *
 * @module
 */
export { CRD_FIELD_MANAGER, crdManifests, crdObjects, type CustomResourceDefinition } from "./crds.js";
export { FlagError, parseSimulatorFlags, USAGE, type SimulatorFlags } from "./cli/flags.js";
export { FIELD_MANAGER, missingCrds, runProvider, type ProviderOptions } from "./provider.js";
export { CLUSTER_V3, EIP_V1, EXTERNAL_KINDS, KEYPAIR_V2, NODE_POOL_V3, SUBNET_V1, VPC_V1 } from "./external/index.js";
export {
  ASYNC_OPERATION,
  LAST_ASYNC_OPERATION,
  READY,
  SYNCED,
} from "./managed/conditions.js";
export { clientOptions, CredentialsError, parseCredentials, type CredentialValues } from "./managed/credentials.js";
export {
  EXTERNAL_CREATE_FAILED,
  EXTERNAL_CREATE_PENDING,
  EXTERNAL_CREATE_SUCCEEDED,
  EXTERNAL_NAME,
  FINALIZER,
  PAUSED,
  PROVIDER_CONFIG_LABEL,
  PROVIDER_GROUP,
  PROVIDER_VERSION,
  type ManagedKind,
  type ManagedResource,
  type Parameters,
} from "./managed/resource.js";
