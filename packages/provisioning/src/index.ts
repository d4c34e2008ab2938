/**
 * @edgeconnect/provisioning: the provider-controller's domain logic, pure
 * functions over plain objects (no API clients): tenancy and naming on the
 * infrastructure cluster, OTC credentials, flavor matching, rendering of the
 * Crossplane OTC managed resources and reading their state back, rendering
 * Cluster API objects from a template (shared with the Cluster API cluster
 * provider) and from a ClusterAPI KubernetesCluster's template set, and the
 * KubernetesCluster status built from it.
 *
 * @module
 */
export {
  isLabelValue,
  labelValue,
  LOGICAL_CLUSTER_ANNOTATION,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  NAME_LABEL,
  NAMESPACE_LABEL,
  namespaceOwner,
  ownerAnnotations,
  ownerLabels,
  TENANT_LABEL,
  TENANT_NAMESPACE_PREFIX,
  tenantNamespace,
  UID_LABEL,
  type NamespaceOwner,
  type Owner,
  type TenantNamespace,
} from "./tenancy/tenant-namespace.js";
export { clusterObjectNames, isDnsLabel, isDnsSubdomain, kubeconfigSecretName, type ClusterObjectNames, type OtcObjectNames } from "./naming/object-names.js";
export { formatBytes, parseQuantity, QuantityError, toGiB } from "./quantity/quantity.js";
export { newerKubernetesVersionFirst, normalizeKubernetesVersion, sameKubernetesVersion } from "./version/kubernetes-version.js";
export {
  credentialFingerprint,
  credentialsText,
  MAX_CREDENTIALS_BYTES,
  MAX_CREDENTIALS_LINES,
  crossplaneCredentials,
  parseOtcCredentials,
  type AccessKeyCredentials,
  type CredentialsParseResult,
  type OtcCredentials,
  type PasswordCredentials,
} from "./credentials/credential-parsing.js";
export { MAX_SOLD_OUT, recordedSoldOut, SOLD_OUT_ANNOTATION, soldOutAnnotation } from "./flavors/sold-out-record.js";
export { accountAnnotations, accountChange, accountOf, ACCOUNT_ANNOTATIONS, recordedAccount, type CloudAccount } from "./credentials/pinned-account.js";
export {
  capabilityMisses,
  matchFlavor,
  MAX_REJECTED,
  RANDOM_ZONE,
  type FlavorChoice,
  type FlavorMatch,
  type FlavorRequest,
  type FlavorZone,
  type RejectedFlavor,
  type RequestedCapabilities,
} from "./flavors/flavor-matching.js";
export {
  CLUSTER_V3,
  CREDENTIALS_KEY,
  CROSSPLANE_CLUSTER_PROVIDER_CONFIG,
  CROSSPLANE_PROVIDER_CONFIG,
  CROSSPLANE_PROVIDER_CONFIG_USAGE,
  DEFAULT_CLUSTER_FLAVOR,
  DEFAULT_EIP_BANDWIDTH_MBIT,
  DEFAULT_SUBNET_CIDR,
  DEFAULT_SUBNET_GATEWAY,
  DEFAULT_VPC_CIDR,
  EIP_V1,
  KEYPAIR_V2,
  MANAGED_RESOURCE_KINDS,
  NODE_OS,
  NODE_POOL_V3,
  NODE_ROOT_VOLUME_GIB,
  renderCluster,
  renderCredentialsSecret,
  renderCrossplaneProviderConfig,
  renderEip,
  renderKeypair,
  renderNodePool,
  renderSubnet,
  renderVpc,
  SUBNET_V1,
  VOLUME_TYPE,
  VPC_V1,
  type ClusterForProvider,
  type ClusterInput,
  type CredentialsSecret,
  type CrossplaneProviderConfig,
  type EipForProvider,
  type EipInput,
  type GroupVersionKind,
  type KeypairForProvider,
  type KeypairInput,
  type ManagedResource,
  type ManagedResourceInput,
  type NodePoolForProvider,
  type NodePoolInput,
  type ObjectMetadata,
  type SubnetForProvider,
  type SubnetInput,
  type VpcForProvider,
  type VpcInput,
} from "./crossplane/managed-resources.js";
export {
  eipAddress,
  EXTERNAL_NAME_ANNOTATION,
  externalStatus,
  observedId,
  subnetNetworkId,
  type ManagedResourceCondition,
  type ObservedManagedResource,
} from "./crossplane/observed-values.js";
export { describeManagedKind, isSoldOut, managedResourceState, type ManagedResourceState, type ManagedResourceStateName } from "./crossplane/readiness.js";
export {
  CLUSTER_API_STEPS,
  CONDITION,
  OTC_STEPS,
  REASON,
  STEP_CONDITIONS,
  summarize,
  TERMINAL_REASONS,
  type ClusterPhase,
  type ClusterStatusSummary,
  type ClusterSteps,
  type ConditionInput,
  type ConditionStatus,
  type StepType,
} from "./status/cluster-status.js";
export { refusedChanges, type DesiredInfrastructure, type ObservedInfrastructure } from "./changes/in-place-changes.js";
export { CLUSTER_PREFERENCE, kubeconfigForTenant, kubeconfigFromClusterCert, type KubeconfigResult } from "./kubeconfig/kubeconfig.js";
export { openSshPublicKey, type RsaPublicJwk } from "./ssh/ssh-public-key.js";
export { ClusterTemplateError } from "./cluster-api/cluster-template-error.js";
export {
  BUILTIN_TEMPLATE_VARIABLES,
  CLUSTER_API_CLUSTER,
  renderClusterApiObjects,
  validateClusterTemplate,
  type ClusterApiCluster,
  type ClusterApiObjects,
  type ClusterApiObjectsInput,
  type ClusterClassTemplate,
  type ClusterTemplate,
  type ClusterTopology,
  type ContractVersionedObjectReference,
  type ObjectsTemplate,
  type RenderedResource,
  type TopologyVariable,
  type WorkerTopology,
} from "./cluster-api/cluster-template.js";
export {
  CLUSTER_API_PROGRESS_CONDITIONS,
  clusterApiReadiness,
  type ClusterApiCondition,
  type ClusterApiReadiness,
  type ClusterApiState,
  type ObservedClusterApiCluster,
} from "./cluster-api/cluster-readiness.js";
export { clusterApiKubeconfigSecret, type ClusterApiKubeconfigSecret } from "./cluster-api/kubeconfig-secret.js";
export { normalizeClusterApiVersion, type SupportedVersion } from "./cluster-api/kubernetes-version.js";
export { templateSetVersion, type TemplateSetVersion, type TemplateSetVersionRequest } from "./template-set/template-set-version.js";
export { KUBERNETES_VERSION_ANNOTATION, renderTemplateSet, type TemplateSetObjects, type TemplateSetObjectsInput } from "./template-set/template-set-objects.js";
export { shortHash } from "./hashing/short-hash.js";
export { annotationRecord } from "./records/annotation-record.js";
