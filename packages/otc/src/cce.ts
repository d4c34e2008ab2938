/**
 * CCE (Cloud Container Engine) v3: Kubernetes clusters, their node pools,
 * the EIP that makes a cluster's API server public, and the kubeconfig of
 * a client certificate. CCE's objects are Kubernetes-style
 * (`{kind, apiVersion, metadata, spec, status}`, sent and answered
 * unwrapped) and asynchronous: a cluster goes from Creating to Available, a
 * node pool from Synchronizing to the empty (normal) phase, and deletions
 * show Deleting until the object answers 404.
 */
import { holdSecrets, registerSecret, type SecretHolder } from "@edgeconnect/redaction";
import { OtcApiError } from "./errors.js";
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { createResource, deleteResource, getResource, updateResource, type ResourceType } from "./resource.js";

/** Unknown values are possible in newer API versions. */
export type CceClusterPhase =
  | "Creating"
  | "Available"
  | "Unavailable"
  | "ScalingUp"
  | "ScalingDown"
  | "Upgrading"
  | "Deleting"
  | "Empty"
  | "Error"
  | (string & {});

/** `""` is the normal phase; SoldOut means the flavor has no capacity in the zone(s). Unknown values are possible. */
export type CceNodePoolPhase = "" | "Synchronizing" | "Synchronized" | "SoldOut" | "Deleting" | "Error" | (string & {});

export interface CceMetadata {
  readonly uid: string;
  readonly name: string;
  readonly creationTimestamp?: string;
  readonly updateTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface NewCceMetadata {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface CceClusterSpec {
  /** `VirtualMachine` (ECS nodes) or `BareMetal`. */
  readonly type: "VirtualMachine" | "BareMetal" | (string & {});
  /** e.g. `cce.s1.small` (one master, up to 50 nodes), `cce.s2.small` (three masters). */
  readonly flavor: string;
  /** `vX.Y[.Z[-rN]]`; CCE's latest when absent. */
  readonly version?: string;
  readonly description?: string;
  readonly hostNetwork: {
    readonly vpc: string;
    /** The subnet's network ID (`neutron_network_id`, equal to the VPC API's subnet `id`). */
    readonly subnet: string;
    /**
     * The nodes' default security group; CCE makes one when absent. Spelt
     * with a capital S, as CCE's API reference (creating_a_cluster,
     * HostNetwork) and its SDKs' `json:"SecurityGroup"` tag spell it: CCE
     * ignores `securityGroup`.
     */
    readonly SecurityGroup?: string;
  };
  readonly containerNetwork: {
    readonly mode: "overlay_l2" | "vpc-router" | "eni" | "underlay_ipvlan" | (string & {});
    readonly cidr?: string;
  };
  /** Default `rbac`. */
  readonly authentication?: { readonly mode: "rbac" | "authenticating_proxy" | (string & {}) };
  /** One entry per master (HA flavors) to spread them over zones. */
  readonly masters?: readonly { readonly availabilityZone: string }[];
  readonly kubernetesSvcIpRange?: string;
  readonly kubeProxyMode?: "iptables" | "ipvs";
  readonly billingMode?: number;
  readonly extendParam?: Readonly<Record<string, string>>;
}

export interface CceClusterEndpoint {
  /** e.g. `https://192.168.0.10:5443`. */
  readonly url: string;
  /** `External` only while an EIP is bound. */
  readonly type: "Internal" | "External" | (string & {});
}

export interface CceCluster {
  readonly kind: "Cluster";
  readonly apiVersion: string;
  readonly metadata: CceMetadata;
  readonly spec: CceClusterSpec;
  readonly status?: {
    readonly phase: CceClusterPhase;
    readonly endpoints?: readonly CceClusterEndpoint[];
    readonly jobID?: string;
    readonly reason?: string;
    readonly message?: string;
  };
}

export interface CreateCceCluster {
  readonly metadata: NewCceMetadata;
  readonly spec: CceClusterSpec;
}

/** `try` deletes what can be deleted and goes on; `true` fails the deletion if it cannot. */
export type CceDeleteChoice = "true" | "try" | "false";

/** What a cluster deletion also deletes: EVS disks, the network resources CCE made, OBS, SFS and SFS Turbo volumes. Default false each. */
export interface CceClusterDeletion {
  readonly deleteEvs?: CceDeleteChoice;
  readonly deleteNet?: CceDeleteChoice;
  readonly deleteObs?: CceDeleteChoice;
  readonly deleteSfs?: CceDeleteChoice;
  readonly deleteEfs?: CceDeleteChoice;
}

/** What `clustercert` answers: a kubeconfig as JSON. External entries exist only while an EIP is bound. */
export interface CceKubeconfig {
  readonly kind: "Config";
  readonly apiVersion: "v1";
  readonly preferences?: Readonly<Record<string, unknown>>;
  readonly clusters: readonly {
    readonly name: string;
    readonly cluster: { readonly server: string; readonly "certificate-authority-data"?: string; readonly "insecure-skip-tls-verify"?: boolean };
  }[];
  readonly users: readonly {
    readonly name: string;
    readonly user: { readonly "client-certificate-data"?: string; readonly "client-key-data"?: string };
  }[];
  readonly contexts: readonly { readonly name: string; readonly context: { readonly cluster: string; readonly user: string } }[];
  readonly "current-context": string;
}

export interface CceVolume {
  /** GiB. */
  readonly size: number;
  /** e.g. `SSD`, `SAS`. */
  readonly volumetype: string;
  readonly extendParam?: Readonly<Record<string, unknown>>;
}

export interface CceNodeTemplate {
  /** The ECS flavor, e.g. `s3.xlarge.4`. */
  readonly flavor: string;
  /** A zone, or `random`: CCE picks the allowed zone with the fewest nodes. */
  readonly az: string;
  /** e.g. `EulerOS 2.9`, `HCE OS 2.0`, `Ubuntu 22.04`. */
  readonly os?: string;
  /** The keypair's name. */
  readonly login: { readonly sshKey: string };
  readonly rootVolume: CceVolume;
  readonly dataVolumes: readonly CceVolume[];
  readonly runtime?: { readonly name: "containerd" | "docker" | (string & {}) };
  readonly billingMode?: number;
  readonly k8sTags?: Readonly<Record<string, string>>;
  readonly taints?: readonly { readonly key: string; readonly value?: string; readonly effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" }[];
  readonly extendParam?: Readonly<Record<string, unknown>>;
}

export interface CceNodePoolSpec {
  /** `vm` for ECS nodes. */
  readonly type: "vm" | "ElasticBMS" | (string & {});
  readonly initialNodeCount: number;
  readonly nodeTemplate: CceNodeTemplate;
  readonly autoscaling?: {
    readonly enable?: boolean;
    readonly minNodeCount?: number;
    readonly maxNodeCount?: number;
    readonly scaleDownCooldownTime?: number;
    readonly priority?: number;
  };
  readonly nodeManagement?: { readonly serverGroupReference?: string };
}

export interface CceNodePool {
  readonly kind: "NodePool";
  readonly apiVersion: string;
  readonly metadata: CceMetadata;
  readonly spec: CceNodePoolSpec;
  readonly status?: {
    readonly phase?: CceNodePoolPhase;
    /** Nodes the pool has. */
    readonly currentNode?: number;
    readonly creatingNode?: number;
    readonly deletingNode?: number;
    readonly jobId?: string;
  };
}

export interface CreateCceNodePool {
  readonly metadata: NewCceMetadata;
  readonly spec: CceNodePoolSpec;
}

const DELETION_QUERY: Readonly<Record<keyof CceClusterDeletion, string>> = {
  deleteEvs: "delete_evs",
  deleteNet: "delete_net",
  deleteObs: "delete_obs",
  deleteSfs: "delete_sfs",
  deleteEfs: "delete_efs",
};

function clusters(client: OtcClient): ResourceType {
  return { service: "cce", collectionPath: `/api/v3/projects/${client.projectId}/clusters` };
}

function clusterPath(client: OtcClient, clusterId: string): string {
  return `${clusters(client).collectionPath}/${encodeURIComponent(clusterId)}`;
}

function nodePools(client: OtcClient, clusterId: string): ResourceType {
  return { service: "cce", collectionPath: `${clusterPath(client, clusterId)}/nodepools` };
}

/** Orders a cluster; it starts Creating and turns Available (or Error) after minutes. */
export function createCceCluster(client: OtcClient, spec: CreateCceCluster, options: OtcCallOptions = {}): Promise<CceCluster> {
  return createResource(client, clusters(client), { kind: "Cluster", apiVersion: "v3", ...spec }, {}, options);
}

/** Undefined if it does not exist (any more). */
export function getCceCluster(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<CceCluster | undefined> {
  return getResource(client, clusters(client), id, options);
}

/** Starts the deletion (phase Deleting until the cluster answers 404); false if it was already gone. */
export function deleteCceCluster(client: OtcClient, id: string, deletion: CceClusterDeletion = {}, options: OtcCallOptions = {}): Promise<boolean> {
  const query = Object.fromEntries(Object.entries(DELETION_QUERY).map(([option, name]) => [name, deletion[option as keyof CceClusterDeletion]]));
  return deleteResource(client, clusters(client), id, { ...options, query });
}

/** Binds the EIP `eipId` to the cluster's API server: its endpoints then include an External one. */
export async function bindCceMasterEip(client: OtcClient, clusterId: string, eipId: string, options: OtcCallOptions = {}): Promise<void> {
  await masterEip(client, clusterId, "bind", eipId, options);
}

/** Unbinds the EIP `eipId` from the cluster's API server (the EIP itself is kept). */
export async function unbindCceMasterEip(client: OtcClient, clusterId: string, eipId: string, options: OtcCallOptions = {}): Promise<void> {
  await masterEip(client, clusterId, "unbind", eipId, options);
}

function masterEip(client: OtcClient, clusterId: string, action: "bind" | "unbind", eipId: string, options: OtcCallOptions): Promise<unknown> {
  return client.request("cce", "PUT", `${clusterPath(client, clusterId)}/mastereip`, { ...options, body: { spec: { action, spec: { id: eipId } } } });
}

/**
 * A kubeconfig with a new client certificate valid for `durationDays`
 * (1–1825; -1 is the maximum). CCE answers 400 while the cluster is not
 * Available. Its users' key and certificate data (base64 and decoded) are
 * held as secrets before it is returned (by `options.secretHolder`, else
 * until the certificate expires), so that no log or error can show them;
 * the answer itself never becomes part of an error.
 */
export async function getCceClusterCert(client: OtcClient, clusterId: string, durationDays: number, options: ClusterCertOptions = {}): Promise<CceKubeconfig> {
  const path = `${clusterPath(client, clusterId)}/clustercert`;
  // Each call issues a certificate: one whose answer was lost is not asked for again here (see `once`).
  const answer = await client.request<Partial<CceKubeconfig> | null | undefined>("cce", "POST", path, { ...options, body: { duration: durationDays }, once: true });
  if (typeof answer !== "object" || answer === null) throw new OtcApiError("POST", path, 200, JSON.stringify({ message: "answer is no kubeconfig object" }));
  // Typed as what it may be: the answer is not trusted to be a kubeconfig.
  const users = (Array.isArray(answer.users) ? answer.users : []) as readonly (Partial<CceKubeconfig["users"][number]> | null)[];
  const keyMaterial = users.flatMap((entry) =>
    [entry?.user?.["client-key-data"], entry?.user?.["client-certificate-data"]].flatMap((value) => (typeof value === "string" ? [value, Buffer.from(value, "base64").toString("utf8")] : [])),
  );
  if (options.secretHolder !== undefined) holdSecrets(options.secretHolder, keyMaterial);
  else for (const value of keyMaterial) registerSecret(value, { until: Date.now() + certificateLifetimeMs(durationDays) });
  return answer as CceKubeconfig;
}

export interface ClusterCertOptions extends OtcCallOptions {
  /** Who holds the key material in the redaction registry. Default: held until the certificate expires. */
  readonly secretHolder?: SecretHolder;
}

/** CCE's longest certificate, which -1 asks for: 1825 days. */
const MAX_CERT_DAYS = 1825;

function certificateLifetimeMs(durationDays: number): number {
  return (durationDays === -1 ? MAX_CERT_DAYS : durationDays) * 24 * 3_600_000;
}

/** Orders a node pool; it starts Synchronizing and turns `""` once its servers exist, or SoldOut. */
export function createCceNodePool(client: OtcClient, clusterId: string, spec: CreateCceNodePool, options: OtcCallOptions = {}): Promise<CceNodePool> {
  return createResource(client, nodePools(client, clusterId), { kind: "NodePool", apiVersion: "v3", ...spec }, {}, options);
}

/** Undefined if it (or its cluster) does not exist. */
export function getCceNodePool(client: OtcClient, clusterId: string, id: string, options: OtcCallOptions = {}): Promise<CceNodePool | undefined> {
  return getResource(client, nodePools(client, clusterId), id, options);
}

/**
 * Scales the node pool to `initialNodeCount`. CCE's update takes the whole
 * pool (name, node template, autoscaling), so the current one is read and
 * sent back with the new count; a pool that is gone fails with the 404.
 */
export async function updateCceNodePool(
  client: OtcClient,
  clusterId: string,
  id: string,
  update: { readonly initialNodeCount: number },
  options: OtcCallOptions = {},
): Promise<CceNodePool> {
  const type = nodePools(client, clusterId);
  const current = await getResource<CceNodePool>(client, type, id, options);
  if (current === undefined) {
    throw new OtcApiError("GET", `${type.collectionPath}/${encodeURIComponent(id)}`, 404, JSON.stringify({ kind: "Status", reason: "NotFound", message: "node pool not found" }));
  }
  const body = { kind: "NodePool", apiVersion: "v3", metadata: { name: current.metadata.name }, spec: { ...current.spec, initialNodeCount: update.initialNodeCount } };
  return updateResource(client, type, id, body, options);
}

/** Starts the deletion (phase Deleting until the pool answers 404); false if it was already gone. */
export function deleteCceNodePool(client: OtcClient, clusterId: string, id: string, options: OtcCallOptions = {}): Promise<boolean> {
  return deleteResource(client, nodePools(client, clusterId), id, options);
}
