/**
 * CCE v3, `/api/v3/projects/{project}/clusters/...`: clusters (create, get,
 * list, delete), their master EIP (`PUT …/mastereip`), the kubeconfig
 * (`POST …/clustercert`) and node pools (create, get, list, scale by PUT,
 * delete). Bodies are Kubernetes-style (`kind`, `apiVersion`, `metadata`,
 * `spec`, `status`), errors Kubernetes `Status` objects.
 *
 * Creation checks what CCE checks: a known cluster flavor, a version CCE
 * offers, master zones of the region, a VPC of the project, and a
 * `hostNetwork.subnet` that is the *network* id of one of that VPC's
 * subnets (a Neutron subnet id is the classic mistake and answers 400
 * naming the id CCE wants); a node pool needs an Available cluster, a
 * catalogue flavor, a zone of the region or `random`, and an existing key
 * pair. How phases move is in cce-model.ts.
 */
import { Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import {
  API_PORT,
  cceError,
  createCluster,
  createNodePool,
  deleteCluster,
  deleteNodePool,
  masterEip,
  ownedCluster,
  ownedNodePool,
  scaleNodePool,
  type NodePoolInput,
} from "./cce-model.js";
import { scopedProject } from "./iam.js";
import { overlap, parseCidr, type Cidr } from "./ipv4.js";
import { findKeypair } from "./keypairs.js";
import type { CceCluster, CceClusterSpec, NodePool, NodePoolVolume, SimulatorState } from "./state.js";
import { ownedVpc } from "./vpcs.js";
import { issueClientCertificate } from "./workload-certificates.js";

const CODE = "CCE.01400001";
/** `cce.s1.*` have one master, `cce.s2.*` three (reference §3.1). */
const CLUSTER_FLAVORS = ["cce.s1.small", "cce.s1.medium", "cce.s2.small", "cce.s2.medium", "cce.s2.large", "cce.s2.xlarge"];
/** `vX.Y[.Z[-rN]]`: CCE creates the offered `vX.Y` (the first group) whatever the patch and `-rN`. */
const VERSION = /^(v\d+\.\d+)(\.\d+(-r\d+)?)?$/;
const CLUSTER_NAME = /^[a-z][a-z0-9-]{2,126}[a-z0-9]$/;
const NODE_POOL_NAME = /^[a-z]([a-z0-9-]{0,48}[a-z0-9])?$/;
const VOLUME_TYPES = ["SATA", "SAS", "SSD", "GPSSD", "ESSD"];
const DEFAULT_CONTAINER_CIDR = "172.16.0.0/16";
/** CCE's default Service CIDR. */
const SERVICE_CIDR = "10.247.0.0/16";
/** `clustercert`'s `duration`: days, or -1 for the maximum. */
const MAX_CERT_DAYS = 1825;

export function routeCce(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [api, version, projects, projectId, clusters, clusterId, sub, subId, ...rest] = request.segments;
  if (api !== "api" || version !== "v3" || projects !== "projects" || projectId === undefined || clusters !== "clusters" || rest.length > 0) {
    return undefined;
  }
  const project = scopedProject(request, state, projectId, "cce");
  const { method } = request;
  if (clusterId === undefined) {
    if (method === "GET") {
      const own = [...state.cceClusters.values()].filter((cluster) => cluster.projectId === project.id);
      return json(200, { kind: "Cluster", apiVersion: "v3", items: own.map((cluster) => renderCluster(state, cluster)) });
    }
    if (method === "POST") return json(201, renderCluster(state, create(state, project.id, request.body)));
    return undefined;
  }
  const cluster = ownedCluster(state, clusterId, project.id);
  if (sub === undefined) {
    if (method === "GET") return json(200, renderCluster(state, cluster));
    if (method !== "DELETE") return undefined;
    checkDeleteOptions(request.query);
    deleteCluster(state, cluster);
    return json(200, renderCluster(state, cluster));
  }
  if (sub === "mastereip" && subId === undefined && method === "PUT") return json(200, bindMasterEip(state, cluster, request.body));
  if (sub === "clustercert" && subId === undefined && method === "POST") return json(200, kubeconfig(state, cluster, request.body));
  if (sub === "nodepools") return routeNodePools(request, state, cluster, subId);
  return undefined;
}

function create(state: SimulatorState, projectId: string, body: unknown): CceCluster {
  const fields = Fields.body(body, CODE, "cce");
  fields.enumValue("kind", ["Cluster"]);
  fields.enumValue("apiVersion", ["v3"]);
  const metadata = fields.requiredObject("metadata");
  const name = metadata.string("name");
  if (!CLUSTER_NAME.test(name)) {
    throw metadata.invalid("name", "must be 4-128 characters of a-z 0-9 -, starting with a letter and not ending with a hyphen");
  }
  const spec = fields.requiredObject("spec");
  const flavor = spec.enumValue("flavor", CLUSTER_FLAVORS);
  const type = spec.enumValue("type", ["VirtualMachine", "BareMetal"]);
  const version = clusterVersion(state, spec);

  const hostNetwork = spec.requiredObject("hostNetwork");
  const vpcId = hostNetwork.string("vpc");
  const vpc = ownedVpc(state, vpcId, projectId);
  if (vpc === undefined) throw hostNetwork.invalid("vpc", `${vpcId}: no such VPC in the project`);
  const subnetId = hostNetwork.string("subnet");
  const found = state.subnetById(subnetId);
  if (found === undefined || found.subnet.projectId !== projectId) throw hostNetwork.invalid("subnet", `${subnetId}: no such subnet in the project`);
  const { subnet } = found;
  if (subnet.neutronNetworkId !== subnetId) {
    const kind = found.kind === "neutronSubnetId" ? "the Neutron subnet id (neutron_subnet_id)" : "the VPC subnet id";
    throw hostNetwork.invalid(
      "subnet",
      `${subnetId} is ${kind} of subnet ${subnet.name}; CCE expects the subnet's network id (neutron_network_id ${subnet.neutronNetworkId})`,
    );
  }
  if (subnet.vpcId !== vpc.id) throw hostNetwork.invalid("subnet", `${subnetId} belongs to VPC ${subnet.vpcId}, not to ${vpc.id}`);
  // CCE's spelling; a lower-case `securityGroup` is not a field of HostNetwork and, as in CCE, changes nothing.
  const securityGroupId = hostNetwork.optionalString("SecurityGroup");

  const containerNetwork = spec.requiredObject("containerNetwork");
  const mode = containerNetwork.enumValue("mode", ["overlay_l2", "vpc-router", "eni"]);
  const containerCidr = containerNetwork.optionalString("cidr") ?? DEFAULT_CONTAINER_CIDR;
  const parsedContainerCidr = parseCidr(containerCidr);
  if (parsedContainerCidr === undefined) throw containerNetwork.invalid("cidr", `${containerCidr} is not an IPv4 CIDR`);
  if (overlap(parsedContainerCidr, parseCidr(vpc.cidr) as Cidr)) {
    throw containerNetwork.invalid("cidr", `${containerCidr} overlaps the VPC's CIDR ${vpc.cidr}`);
  }
  const authenticationMode = spec.optionalObject("authentication")?.optionalEnum("mode", ["rbac", "authenticating_proxy"]) ?? "rbac";
  const masterZones = (spec.optionalObjectList("masters") ?? []).map((master) => master.enumValue("availabilityZone", state.zones));
  const allowedMasters = flavor.startsWith("cce.s2.") ? [0, 1, 3] : [0, 1];
  if (!allowedMasters.includes(masterZones.length)) {
    throw spec.invalid("masters", `must list ${allowedMasters.slice(1).join(" or ")} availability zone(s) for flavor ${flavor}`);
  }
  const clash = [...state.cceClusters.values()].find((cluster) => cluster.projectId === projectId && cluster.name === name);
  if (clash !== undefined) throw cceError(409, `a cluster named ${name} already exists (${clash.id})`);

  const clusterSpec: CceClusterSpec = {
    type,
    flavor,
    version,
    description: spec.optionalText("description", 200) ?? "",
    vpcId: vpc.id,
    subnetId,
    ...(securityGroupId === undefined ? {} : { securityGroupId }),
    containerNetworkMode: mode,
    containerNetworkCidr: containerCidr,
    authenticationMode,
    masterZones,
  };
  return createCluster(state, projectId, name, clusterSpec, state.allocateAddress(subnet));
}

/**
 * The requested version as sent, or the latest offered one when omitted.
 * Whether CCE answers a patch request (`v1.30.0-r0`) with that or its
 * baseline (`v1.30`) is not documented either way, so it is echoed.
 */
function clusterVersion(state: SimulatorState, spec: Fields): string {
  const offered = state.settings.cceVersions;
  // The state refuses an empty table, so there is a last version.
  const version: string = spec.optionalString("version") ?? (offered.at(-1) as string);
  const baseline = VERSION.exec(version)?.[1];
  if (baseline === undefined) throw spec.invalid("version", `${version} is not of the form vX.Y, vX.Y.Z or vX.Y.Z-rN`);
  if (!offered.includes(baseline)) throw spec.invalid("version", `${version} is not offered; CCE offers ${offered.join(", ")}`);
  return version;
}

/** `delete_evs`, `delete_net`, … take `true`, `try` or `false`; the simulated cluster owns none of those resources. */
function checkDeleteOptions(query: URLSearchParams): void {
  for (const [key, value] of query) {
    if (key.startsWith("delete_") && !["true", "try", "false"].includes(value)) throw cceError(400, `${key} must be true, try or false`);
  }
}

function requireAvailable(cluster: CceCluster, what: string): void {
  if (cluster.phase !== "Available") throw cceError(400, `cluster ${cluster.id} is ${cluster.phase}; ${what} needs an Available cluster`);
}

function bindMasterEip(state: SimulatorState, cluster: CceCluster, body: unknown): unknown {
  const fields = Fields.wrapped(body, "spec", CODE, "cce");
  const action = fields.enumValue("action", ["bind", "unbind"]);
  requireAvailable(cluster, `${action}ing an EIP`);
  const current = masterEip(state, cluster);
  if (action === "unbind") {
    if (current !== undefined) current.portId = undefined;
  } else {
    const id = fields.requiredObject("spec").string("id");
    const eip = state.eips.get(id);
    if (eip?.projectId !== cluster.projectId) throw cceError(400, `EIP ${id} does not exist`);
    if (current !== undefined && current.id !== id) throw cceError(409, `cluster ${cluster.id} already has EIP ${current.id}; unbind it first`);
    if (current === undefined) {
      if (eip.portId !== undefined) throw cceError(409, `EIP ${id} is already bound to port ${eip.portId}`);
      if (eip.status !== "DOWN") throw cceError(409, `EIP ${id} is ${eip.status}; retry when it is DOWN`);
      eip.portId = cluster.masterPortId;
    }
  }
  cluster.updatedAt = state.clock();
  const bound = masterEip(state, cluster);
  return {
    metadata: {},
    spec: { action, spec: { id: bound?.id ?? "" }, elasticIp: bound?.publicIpAddress ?? "" },
    status: { privateEndpoint: internalUrl(cluster), publicEndpoint: bound === undefined ? "" : `https://${bound.publicIpAddress}:${API_PORT}` },
  };
}

/**
 * The kubeconfig CCE hands out: the internal entry always; the external
 * ones (which reach the harness's workload kube-apiserver) only while an EIP
 * is bound. The user is a fresh client certificate of the workload client CA.
 */
function kubeconfig(state: SimulatorState, cluster: CceCluster, body: unknown): unknown {
  const duration = Fields.body(body, CODE, "cce").integer("duration", -1, MAX_CERT_DAYS);
  if (duration === 0) throw cceError(400, "duration must be from 1 to 1825 days, or -1");
  requireAvailable(cluster, "a cluster certificate");
  const workload = state.settings.workloadCluster;
  if (workload === undefined) throw cceError(400, "the simulator has no workload cluster");
  const client = issueClientCertificate(workload.clientCa, {
    commonName: `cce-${cluster.id}`,
    organizations: ["system:masters"],
    days: duration === -1 ? MAX_CERT_DAYS : duration,
    notBefore: state.clock(),
  });
  const issued = state.certificatesIssued.get(cluster.id) ?? new Map<number, number>();
  issued.set(duration, (issued.get(duration) ?? 0) + 1);
  state.certificatesIssued.set(cluster.id, issued);
  const base64 = (pem: string): string => Buffer.from(pem).toString("base64");
  const ca = base64(workload.servingCaPem);
  const external = masterEip(state, cluster) !== undefined;
  const context = (name: string, clusterName: string) => ({ name, context: { cluster: clusterName, user: "user" } });
  return {
    kind: "Config",
    apiVersion: "v1",
    preferences: {},
    clusters: [
      { name: "internalCluster", cluster: { server: internalUrl(cluster), "certificate-authority-data": ca } },
      ...(external
        ? [
            { name: "externalCluster", cluster: { server: workload.url, "insecure-skip-tls-verify": true } },
            { name: "externalClusterTLSVerify", cluster: { server: workload.url, "certificate-authority-data": ca } },
          ]
        : []),
    ],
    users: [{ name: "user", user: { "client-certificate-data": base64(client.certPem), "client-key-data": base64(client.keyPem) } }],
    contexts: [
      context("internal", "internalCluster"),
      ...(external ? [context("external", "externalCluster"), context("externalTLSVerify", "externalClusterTLSVerify")] : []),
    ],
    "current-context": external ? "external" : "internal",
  };
}

function routeNodePools(request: ApiRequest, state: SimulatorState, cluster: CceCluster, id: string | undefined): ApiResponse | undefined {
  const { method } = request;
  if (id === undefined) {
    if (method === "GET") {
      const pools = [...state.nodePools.values()].filter((pool) => pool.clusterId === cluster.id);
      return json(200, { kind: "List", apiVersion: "v3", items: pools.map((pool) => renderNodePool(pool)) });
    }
    if (method !== "POST") return undefined;
    requireAvailable(cluster, "adding a node pool");
    const input = nodePoolInput(state, cluster, request.body);
    const clash = [...state.nodePools.values()].find((pool) => pool.clusterId === cluster.id && pool.name === input.name);
    if (clash !== undefined) throw cceError(409, `cluster ${cluster.id} already has a node pool named ${input.name} (${clash.id})`);
    return json(201, renderNodePool(createNodePool(state, cluster, input)));
  }
  const pool = ownedNodePool(state, cluster, id);
  switch (method) {
    case "GET":
      return json(200, renderNodePool(pool));
    case "PUT": {
      const count = Fields.body(request.body, CODE, "cce").requiredObject("spec").integer("initialNodeCount", 0, 2000);
      if (pool.phase === "Deleting") throw cceError(409, `node pool ${pool.id} is being deleted`);
      requireAvailable(cluster, "scaling a node pool");
      scaleNodePool(state, pool, count);
      return json(200, renderNodePool(pool));
    }
    case "DELETE":
      deleteNodePool(state, pool);
      return json(200, renderNodePool(pool));
    default:
      return undefined;
  }
}

function nodePoolInput(state: SimulatorState, cluster: CceCluster, body: unknown): NodePoolInput {
  const fields = Fields.body(body, CODE, "cce");
  fields.enumValue("kind", ["NodePool"]);
  fields.enumValue("apiVersion", ["v3"]);
  const metadata = fields.requiredObject("metadata");
  const name = metadata.string("name");
  if (!NODE_POOL_NAME.test(name)) {
    throw metadata.invalid("name", "must be 1-50 characters of a-z 0-9 -, starting with a letter and not ending with a hyphen");
  }
  const spec = fields.requiredObject("spec");
  spec.optionalEnum("type", ["vm"]);
  const template = spec.requiredObject("nodeTemplate");
  const flavor = template.string("flavor");
  if (!state.settings.flavors.includes(flavor)) throw template.invalid("flavor", `${flavor} is not an ECS flavor of ${state.region}`);
  const az = template.string("az");
  if (az !== "random" && !state.zones.includes(az)) throw template.invalid("az", `must be random or one of ${state.zones.join(", ")}`);
  const sshKey = template.requiredObject("login").string("sshKey");
  if (findKeypair(state, cluster.projectId, sshKey) === undefined) throw template.invalid("login.sshKey", `key pair ${sshKey} does not exist`);
  const volume = (volumeFields: Fields, min: number, max: number): NodePoolVolume => ({
    size: volumeFields.integer("size", min, max),
    volumetype: volumeFields.enumValue("volumetype", VOLUME_TYPES),
  });
  const dataVolumes = template.optionalObjectList("dataVolumes") ?? [];
  if (dataVolumes.length === 0) throw template.invalid("dataVolumes", "needs at least one data volume");
  return {
    name,
    flavor,
    az,
    os: template.optionalString("os") ?? "EulerOS 2.9",
    sshKey,
    runtime: template.optionalObject("runtime")?.optionalEnum("name", ["containerd", "docker"]) ?? "containerd",
    rootVolume: volume(template.requiredObject("rootVolume"), 40, 1024),
    dataVolumes: dataVolumes.map((data) => volume(data, 10, 32768)),
    initialNodeCount: spec.integer("initialNodeCount", 0, 2000),
  };
}

function internalUrl(cluster: CceCluster): string {
  return `https://${cluster.internalAddress}:${API_PORT}`;
}

/** CCE's timestamps: `2026-03-01 12:00:00.000000 +0000 UTC`. */
function cceTime(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000 +0000 UTC`;
}

function renderCluster(state: SimulatorState, cluster: CceCluster): unknown {
  const { spec } = cluster;
  const eip = masterEip(state, cluster);
  return {
    kind: "Cluster",
    apiVersion: "v3",
    metadata: { uid: cluster.id, name: cluster.name, creationTimestamp: cceTime(cluster.createdAt), updateTimestamp: cceTime(cluster.updatedAt) },
    spec: {
      category: "CCE",
      type: spec.type,
      flavor: spec.flavor,
      version: spec.version,
      description: spec.description,
      hostNetwork: { vpc: spec.vpcId, subnet: spec.subnetId, ...(spec.securityGroupId === undefined ? {} : { SecurityGroup: spec.securityGroupId }) },
      containerNetwork: { mode: spec.containerNetworkMode, cidr: spec.containerNetworkCidr },
      authentication: { mode: spec.authenticationMode, authenticatingProxy: {} },
      billingMode: 0,
      kubernetesSvcIpRange: SERVICE_CIDR,
      kubeProxyMode: "iptables",
      ...(spec.masterZones.length === 0 ? {} : { masters: spec.masterZones.map((availabilityZone) => ({ availabilityZone })) }),
    },
    status: {
      phase: cluster.phase,
      endpoints: [
        { url: internalUrl(cluster), type: "Internal" },
        ...(eip === undefined ? [] : [{ url: `https://${eip.publicIpAddress}:${API_PORT}`, type: "External" }]),
      ],
    },
  };
}

function renderNodePool(pool: NodePool): unknown {
  return {
    kind: "NodePool",
    apiVersion: "v3",
    metadata: { uid: pool.id, name: pool.name, creationTimestamp: cceTime(pool.createdAt), updateTimestamp: cceTime(pool.updatedAt) },
    spec: {
      type: "vm",
      initialNodeCount: pool.initialNodeCount,
      nodeTemplate: {
        flavor: pool.flavor,
        az: pool.az,
        os: pool.os,
        login: { sshKey: pool.sshKey },
        rootVolume: pool.rootVolume,
        dataVolumes: pool.dataVolumes,
        runtime: { name: pool.runtime },
        billingMode: 0,
      },
      autoscaling: { enable: false },
      nodeManagement: {},
    },
    status: { currentNode: pool.serverIds.length, phase: pool.phase },
  };
}

