/**
 * The Crossplane OTC managed resources (namespaced, provider
 * `opentelekomcloud/provider-opentelekomcloud`) one KubernetesCluster is made
 * of, as plain objects ready for server-side apply into the tenant namespace.
 *
 * Every cross-resource id is a literal (`vpcId`, `subnetId`, `clusterId`,
 * `keyPair`), never a `*Ref`/`*Selector`: Crossplane does not resolve
 * references while a resource is being deleted, and a spec that is complete
 * on its own needs no referenced resource to be ready first. The controller
 * reads the ids from the status of the resources it created before.
 */
import { crossplaneCredentials, type OtcCredentials } from "../credentials/credential-parsing.js";
import { normalizeKubernetesVersion } from "../version/kubernetes-version.js";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource (plural) in URL paths. */
  readonly plural: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
}

function gvk(group: string, version: string, kind: string, plural: string, namespaced = true): GroupVersionKind {
  return { group, version, kind, plural, apiVersion: `${group}/${version}`, namespaced };
}

const VPC_GROUP = "vpc.opentelekomcloud.m.crossplane.io";
const CCE_GROUP = "cce.opentelekomcloud.m.crossplane.io";
const COMPUTE_GROUP = "compute.opentelekomcloud.m.crossplane.io";
const PROVIDER_GROUP = "opentelekomcloud.m.crossplane.io";

export const VPC_V1 = gvk(VPC_GROUP, "v1alpha1", "VpcV1", "vpcv1s");
export const SUBNET_V1 = gvk(VPC_GROUP, "v1alpha1", "SubnetV1", "subnetv1s");
export const EIP_V1 = gvk(VPC_GROUP, "v1alpha1", "EIPV1", "eipv1s");
export const KEYPAIR_V2 = gvk(COMPUTE_GROUP, "v1alpha1", "KeypairV2", "keypairv2s");
export const CLUSTER_V3 = gvk(CCE_GROUP, "v1alpha1", "ClusterV3", "clusterv3s");
export const NODE_POOL_V3 = gvk(CCE_GROUP, "v1alpha1", "NodePoolV3", "nodepoolv3s");
/** Crossplane's ProviderConfig (not ours of platform.edgeconnect.eu): namespaced, used by the managed resources next to it. */
export const CROSSPLANE_PROVIDER_CONFIG = gvk(PROVIDER_GROUP, "v1beta1", "ProviderConfig", "providerconfigs");
export const CROSSPLANE_CLUSTER_PROVIDER_CONFIG = gvk(PROVIDER_GROUP, "v1beta1", "ClusterProviderConfig", "clusterproviderconfigs", false);
export const CROSSPLANE_PROVIDER_CONFIG_USAGE = gvk(PROVIDER_GROUP, "v1beta1", "ProviderConfigUsage", "providerconfigusages");

/** The managed resource kinds, children before parents: the order to delete them in (create in reverse). */
export const MANAGED_RESOURCE_KINDS: readonly GroupVersionKind[] = [NODE_POOL_V3, CLUSTER_V3, KEYPAIR_V2, EIP_V1, SUBNET_V1, VPC_V1];

/** Defaults of the network created when the tenant brings none. */
export const DEFAULT_VPC_CIDR = "192.168.0.0/16";
export const DEFAULT_SUBNET_CIDR = "192.168.0.0/24";
export const DEFAULT_SUBNET_GATEWAY = "192.168.0.1";
export const DEFAULT_EIP_BANDWIDTH_MBIT = 10;
/** Single master, up to 50 nodes. */
export const DEFAULT_CLUSTER_FLAVOR = "cce.s1.small";
export const NODE_OS = "HCE OS 2.0";
export const NODE_ROOT_VOLUME_GIB = 50;
export const VOLUME_TYPE = "SSD";
/** The key in the credentials Secret, as `secretRef.key` names it. */
export const CREDENTIALS_KEY = "credentials";

/**
 * Type aliases rather than interfaces for the objects rendered here, so
 * that they are assignable to clients' index-signature object types.
 */
export type ObjectMetadata = {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
};

/** A managed resource as rendered, and (with the optional parts) as read back. */
export type ManagedResource<ForProvider = Record<string, unknown>> = {
  apiVersion: string;
  kind: string;
  metadata: ObjectMetadata & { uid?: string; generation?: number; resourceVersion?: string; deletionTimestamp?: string };
  spec: { forProvider: ForProvider; providerConfigRef: { kind: "ProviderConfig"; name: string } };
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string; observedGeneration?: number; lastTransitionTime?: string }[];
    atProvider?: Record<string, unknown>;
  };
};

/** What every managed resource is rendered with. */
export interface ManagedResourceInput {
  metadata: ObjectMetadata;
  /** The namespaced Crossplane ProviderConfig in the same namespace. */
  providerConfigName: string;
  /** The object's name in OTC. */
  name: string;
}

/** Region of the OTC project, from the credentials. */
interface Regional {
  region: string;
}

export interface VpcForProvider {
  name: string;
  cidr: string;
  region: string;
}

export interface VpcInput extends ManagedResourceInput, Regional {
  cidr?: string;
}

export function renderVpc(input: VpcInput): ManagedResource<VpcForProvider> {
  return managedResource(VPC_V1, input, { name: input.name, cidr: input.cidr ?? DEFAULT_VPC_CIDR, region: input.region });
}

export interface SubnetForProvider {
  name: string;
  cidr: string;
  gatewayIp: string;
  vpcId: string;
  availabilityZone?: string;
  region: string;
}

export interface SubnetInput extends ManagedResourceInput, Regional {
  /** The VPC's id (`status.atProvider.id` of the VpcV1), or the tenant's `spec.vpcID`. */
  vpcId: string;
  cidr?: string;
  gatewayIp?: string;
  availabilityZone?: string;
}

export function renderSubnet(input: SubnetInput): ManagedResource<SubnetForProvider> {
  return managedResource(SUBNET_V1, input, {
    name: input.name,
    cidr: input.cidr ?? DEFAULT_SUBNET_CIDR,
    gatewayIp: input.gatewayIp ?? DEFAULT_SUBNET_GATEWAY,
    vpcId: input.vpcId,
    ...(input.availabilityZone === undefined ? {} : { availabilityZone: input.availabilityZone }),
    region: input.region,
  });
}

export interface EipForProvider {
  publicip: { type: string; name: string }[];
  bandwidth: { name: string; shareType: "PER"; size: number; chargeMode: "traffic" }[];
  region: string;
}

export interface EipInput extends ManagedResourceInput, Regional {
  bandwidthMbit?: number;
}

/** The public IP the CCE API server is reached at. */
export function renderEip(input: EipInput): ManagedResource<EipForProvider> {
  return managedResource(EIP_V1, input, {
    publicip: [{ type: "5_bgp", name: input.name }],
    bandwidth: [{ name: input.name, shareType: "PER", size: input.bandwidthMbit ?? DEFAULT_EIP_BANDWIDTH_MBIT, chargeMode: "traffic" }],
    region: input.region,
  });
}

export interface KeypairForProvider {
  name: string;
  publicKey: string;
  region: string;
}

export interface KeypairInput extends ManagedResourceInput, Regional {
  /** OpenSSH form (`ssh-rsa AAAA…`). Always given: without one OTC generates a key pair and the private key lands in the resource's status. */
  publicKey: string;
}

export function renderKeypair(input: KeypairInput): ManagedResource<KeypairForProvider> {
  return managedResource(KEYPAIR_V2, input, { name: input.name, publicKey: input.publicKey, region: input.region });
}

type DeleteOption = "true" | "try" | "false";

export interface ClusterForProvider {
  name: string;
  clusterType: "VirtualMachine";
  flavorId: string;
  clusterVersion: string;
  containerNetworkType: "vpc-router";
  authenticationMode: "rbac";
  vpcId: string;
  subnetId: string;
  eip: string;
  masters?: { availabilityZone: string }[];
  ignoreCertificateUsersData: true;
  deleteEvs: DeleteOption;
  deleteNet: DeleteOption;
  deleteObs: DeleteOption;
  deleteSfs: DeleteOption;
  deleteEfs: DeleteOption;
  region: string;
}

export interface ClusterInput extends ManagedResourceInput, Regional {
  vpcId: string;
  /** The subnet's NETWORK id (SubnetV1 `status.atProvider.networkId`, or the tenant's `spec.subnetID`): what CCE calls the subnet id. */
  subnetNetworkId: string;
  /** The EIP's address (not its id). */
  eipAddress: string;
  /** `spec.kubernetes.version`; `1.31` and `v1.31` alike. */
  kubernetesVersion: string;
  /** `spec.availableZone`: the control plane's zone. */
  availableZone?: string;
  flavorId?: string;
}

/** Throws for a Kubernetes version not of the form `vX.Y[.Z][-rN]` (the CRD admits no other). */
export function renderCluster(input: ClusterInput): ManagedResource<ClusterForProvider> {
  const clusterVersion = normalizeKubernetesVersion(input.kubernetesVersion);
  if (clusterVersion === undefined) throw new TypeError(`Kubernetes version ${JSON.stringify(input.kubernetesVersion)} is not of the form vX.Y[.Z][-rN]`);
  return managedResource(CLUSTER_V3, input, {
    name: input.name,
    clusterType: "VirtualMachine",
    flavorId: input.flavorId ?? DEFAULT_CLUSTER_FLAVOR,
    clusterVersion,
    containerNetworkType: "vpc-router",
    authenticationMode: "rbac",
    vpcId: input.vpcId,
    subnetId: input.subnetNetworkId,
    eip: input.eipAddress,
    ...(input.availableZone === undefined ? {} : { masters: [{ availabilityZone: input.availableZone }] }),
    // The kubeconfig is fetched through clustercert; otherwise the client key would sit in this resource's status.
    ignoreCertificateUsersData: true,
    // "try": deleting the cluster also removes the volumes and load balancers its workloads left, where it can.
    deleteEvs: "try",
    deleteNet: "try",
    deleteObs: "try",
    deleteSfs: "try",
    deleteEfs: "try",
    region: input.region,
  });
}

export interface NodePoolForProvider {
  name: string;
  clusterId: string;
  flavor: string;
  initialNodeCount: number;
  availabilityZone: string;
  keyPair: string;
  os: string;
  runtime: "containerd";
  rootVolume: { size: number; volumetype: string }[];
  dataVolumes: { size: number; volumetype: string }[];
}

/** No region: the provider's NodePoolV3 has none (the pool lives where its cluster does). */
export interface NodePoolInput extends ManagedResourceInput {
  /** The CCE cluster id (ClusterV3 `status.atProvider.id`). */
  clusterId: string;
  /** The key pair's name in OTC. */
  keypairName: string;
  flavor: string;
  nodeCount: number;
  /** A zone or `random`. */
  availabilityZone: string;
  /** `spec.nodeDiskSize` in GiB (`toGiB`): the data volume of each node. */
  nodeDiskGiB: number;
}

export function renderNodePool(input: NodePoolInput): ManagedResource<NodePoolForProvider> {
  return managedResource(NODE_POOL_V3, input, {
    name: input.name,
    clusterId: input.clusterId,
    flavor: input.flavor,
    initialNodeCount: input.nodeCount,
    availabilityZone: input.availabilityZone,
    keyPair: input.keypairName,
    os: NODE_OS,
    runtime: "containerd",
    rootVolume: [{ size: NODE_ROOT_VOLUME_GIB, volumetype: VOLUME_TYPE }],
    dataVolumes: [{ size: input.nodeDiskGiB, volumetype: VOLUME_TYPE }],
  });
}

function managedResource<F>(kind: GroupVersionKind, input: ManagedResourceInput, forProvider: F): ManagedResource<F> {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: copyMetadata(input.metadata),
    spec: { forProvider, providerConfigRef: { kind: "ProviderConfig", name: input.providerConfigName } },
  };
}

function copyMetadata(input: ObjectMetadata): ObjectMetadata {
  return {
    name: input.name,
    namespace: input.namespace,
    labels: { ...input.labels },
    ...(input.annotations === undefined ? {} : { annotations: { ...input.annotations } }),
  };
}

export type CrossplaneProviderConfig = {
  apiVersion: string;
  kind: "ProviderConfig";
  metadata: ObjectMetadata;
  spec: { credentials: { source: "Secret"; secretRef: { namespace: string; name: string; key: string } } };
};

/** A namespaced Crossplane ProviderConfig whose credentials are the Secret `secretName` in the same namespace. */
export function renderCrossplaneProviderConfig(metadata: ObjectMetadata, secretName: string): CrossplaneProviderConfig;
export function renderCrossplaneProviderConfig(namespace: string, name: string, secretName: string, labels?: Record<string, string>): CrossplaneProviderConfig;
export function renderCrossplaneProviderConfig(...args: [ObjectMetadata, string] | [string, string, string, Record<string, string>?]): CrossplaneProviderConfig {
  const [metadata, secretName] = positional(args) ? [{ namespace: args[0], name: args[1], labels: args[3] ?? {} }, args[2]] : args;
  return {
    apiVersion: CROSSPLANE_PROVIDER_CONFIG.apiVersion,
    kind: "ProviderConfig",
    metadata: copyMetadata(metadata),
    spec: { credentials: { source: "Secret", secretRef: { namespace: metadata.namespace, name: secretName, key: CREDENTIALS_KEY } } },
  };
}

export type CredentialsSecret = {
  apiVersion: "v1";
  kind: "Secret";
  metadata: ObjectMetadata;
  type: "Opaque";
  data: Record<string, string>;
};

/**
 * The Secret the ProviderConfig points at: key `credentials` holds the JSON
 * of `crossplaneCredentials`. As `data` (base64), not `stringData`, so the
 * applied object compares equal to the one read back.
 */
export function renderCredentialsSecret(metadata: ObjectMetadata, credentials: OtcCredentials): CredentialsSecret;
export function renderCredentialsSecret(namespace: string, name: string, credentials: OtcCredentials, labels: Record<string, string>): CredentialsSecret;
export function renderCredentialsSecret(...args: [ObjectMetadata, OtcCredentials] | [string, string, OtcCredentials, Record<string, string>]): CredentialsSecret {
  const [metadata, credentials] = positional(args) ? [{ namespace: args[0], name: args[1], labels: args[3] }, args[2]] : args;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: copyMetadata(metadata),
    type: "Opaque",
    data: { [CREDENTIALS_KEY]: Buffer.from(JSON.stringify(crossplaneCredentials(credentials))).toString("base64") },
  };
}

/** The `(namespace, name, …)` form of the two functions above, as opposed to the `(metadata, …)` form. */
function positional<T extends [string, string, ...unknown[]]>(args: T | [ObjectMetadata, ...unknown[]]): args is T {
  return typeof args[0] === "string";
}
