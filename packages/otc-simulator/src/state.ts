/**
 * The simulator's cloud: projects, IAM users and their tokens, servers, VPCs,
 * subnets, load balancers and their children, EIPs, key pairs, CCE clusters
 * and node pools, flavor capacity per zone, plus the time-driven statuses.
 *
 * Statuses that OTC moves on by itself (an LB leaving PENDING_CREATE, an EIP
 * leaving PENDING_CREATE, a VPC becoming OK) are computed from the injectable
 * clock when read, not changed by timers: a test that owns the clock advances
 * it and the cloud follows, with nothing left running after `close()`.
 * Changes with side effects (a CCE cluster becoming Available or going away
 * with its node pools, a node pool creating servers) are scheduled on the
 * same clock and applied in time order by `settle()`, which the server calls
 * before every request.
 */
import { randomUUID } from "node:crypto";
import { formatAddress, isHostOf, network, parseCidr } from "./ipv4.js";

export type Clock = () => Date;

export interface Project {
  readonly id: string;
  readonly name: string;
}

export type AddressType = "fixed" | "floating";

export interface ServerAddress {
  readonly addr: string;
  readonly type: AddressType;
  readonly version?: 4 | 6;
  readonly macAddr?: string;
  readonly portId?: string;
}

export interface ServerSeed {
  /** Default: a random UUID. */
  readonly id?: string;
  readonly name: string;
  /** ECS status; default `ACTIVE`. `SHUTOFF` also reports `OS-EXT-STS:vm_state: stopped`. */
  readonly status?: string;
  /** Flavor id/name; default `s3.large.2`. */
  readonly flavor?: string;
  /** Availability zone; default `<region>-01`. */
  readonly az?: string;
  /** Default: the first configured project. */
  readonly projectId?: string;
  /** VPC id → addresses; default none. Fixed addresses without a `portId` get a random one. */
  readonly addresses?: Readonly<Record<string, readonly ServerAddress[]>>;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly tags?: readonly string[];
}

export interface Server {
  readonly id: string;
  readonly projectId: string;
  name: string;
  status: string;
  flavor: string;
  az: string;
  addresses: Record<string, ServerAddress[]>;
  metadata: Record<string, string>;
  tags: string[];
  readonly created: string;
}

/** A VPC subnet and the Neutron ids OTC shows for it: three different ids for one subnet. */
export interface Subnet {
  /** The VPC API's subnet id (`GET /v1/{project}/subnets` → `id`). */
  readonly vpcSubnetId: string;
  /** `neutron_subnet_id`: what ELB `vip_subnet_id`/`vip_subnet_cidr_id`/member subnets take. */
  readonly neutronSubnetId: string;
  /** `neutron_network_id`: what ELB v3 `elb_virsubnet_ids` take. */
  readonly neutronNetworkId: string;
  /** IPv4 CIDR that VIPs are allocated from, e.g. `192.168.0.0/24`. */
  readonly cidr: string;
  /** Default: a random UUID. */
  readonly vpcId?: string;
  /** Default: `subnet-<cidr>`. */
  readonly name?: string;
  /** The project that lists it in the VPC API (ELB accepts it from any project); default the first project. */
  readonly projectId?: string;
}

/** A subnet as the simulator holds it: seeded with `addSubnet` or created through the VPC API. */
export interface StoredSubnet extends Required<Subnet> {
  readonly gatewayIp: string;
  readonly availabilityZone: string | undefined;
  readonly primaryDns: string;
  readonly secondaryDns: string;
  readonly dhcpEnable: boolean;
  /** Epoch ms from which the subnet is ACTIVE; UNKNOWN before. */
  readonly activeAt: number;
}

export type SubnetIdKind = "vpcSubnetId" | "neutronSubnetId" | "neutronNetworkId";

/** OTC's DNS servers, the VPC API's defaults for a subnet. */
export const DEFAULT_DNS = { primary: "100.125.4.25", secondary: "100.125.129.199" } as const;

export type VpcStatus = "CREATING" | "OK";

export class Vpc {
  private readonly readyAt: number;

  constructor(
    private readonly clock: Clock,
    readonly id: string,
    readonly projectId: string,
    readonly name: string,
    readonly description: string,
    readonly cidr: string,
    createDelayMs: number,
  ) {
    this.readyAt = clock().getTime() + createDelayMs;
  }

  get status(): VpcStatus {
    return this.clock().getTime() < this.readyAt ? "CREATING" : "OK";
  }
}

/** An IAM user that may get password tokens for every configured project. */
export interface PasswordUser {
  readonly domainName: string;
  readonly userName: string;
  readonly password: string;
}

export interface IssuedToken {
  readonly projectId: string;
  readonly user: PasswordUser;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** A Nova key pair; only the public half is held. */
export interface Keypair {
  readonly name: string;
  readonly projectId: string;
  readonly publicKey: string;
  readonly fingerprint: string;
  readonly userId: string;
  readonly createdAt: Date;
}

export interface CceClusterSpec {
  readonly type: string;
  readonly flavor: string;
  readonly version: string;
  readonly description: string;
  readonly vpcId: string;
  /** The subnet's Neutron network id (CCE's `hostNetwork.subnet`). */
  readonly subnetId: string;
  /** `hostNetwork.SecurityGroup` when the request named one. */
  readonly securityGroupId?: string;
  readonly containerNetworkMode: string;
  readonly containerNetworkCidr: string;
  readonly authenticationMode: string;
  /** Availability zones of the masters as requested; empty when CCE chooses. */
  readonly masterZones: readonly string[];
}

export interface CceCluster {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly spec: CceClusterSpec;
  /** CCE's `status.phase`; tests may set it (e.g. `Unavailable`) to see how clients react. */
  phase: string;
  /** The API server's address in the cluster's subnet. */
  readonly internalAddress: string;
  /** The port a master EIP is bound to. */
  readonly masterPortId: string;
  readonly createdAt: Date;
  updatedAt: Date;
}

export interface NodePoolVolume {
  readonly size: number;
  readonly volumetype: string;
}

export interface NodePool {
  readonly id: string;
  readonly projectId: string;
  readonly clusterId: string;
  readonly name: string;
  readonly flavor: string;
  /** A zone of the region, or `random`: each scale-out goes to the zone with the most free capacity. */
  readonly az: string;
  readonly os: string;
  readonly sshKey: string;
  readonly runtime: string;
  readonly rootVolume: NodePoolVolume;
  readonly dataVolumes: readonly NodePoolVolume[];
  initialNodeCount: number;
  /** CCE's node pool `status.phase`: "" when normal, `Synchronizing`, `SoldOut`, `Deleting`. */
  phase: string;
  /** The pool's ECS servers, oldest first. */
  readonly serverIds: string[];
  readonly createdAt: Date;
  updatedAt: Date;
  /** Bumped by every change, so a synchronisation scheduled for an older spec does nothing. */
  generation: number;
}

/** The workload kube-apiserver a CCE cluster's kubeconfig reaches (the harness runs it). */
export interface WorkloadCluster {
  /** What `clustercert` reports as the external server, e.g. `https://127.0.0.1:6443`. */
  readonly url: string;
  /** The CA that signed the API server's serving certificate. */
  readonly servingCaPem: string;
  /** The CA the API server trusts for client certificates (`--client-ca-file`). */
  readonly clientCa: { readonly certPem: string; readonly keyPem: string };
}

/** What the simulated cloud is configured with besides projects, region and clock. */
export interface CloudSettings {
  readonly users: readonly PasswordUser[];
  readonly tokenTtlMs: number;
  /** ECS flavors node pools may use. */
  readonly flavors: readonly string[];
  /** The Kubernetes versions CCE creates clusters of, `vX.Y`, oldest first: the last is what an omitted `spec.version` gets. */
  readonly cceVersions: readonly string[];
  readonly cceClusterCreateMs: number;
  readonly cceClusterDeleteMs: number;
  /** How long a node pool synchronises (create, scale, retry while SoldOut, delete). */
  readonly nodePoolSyncMs: number;
  readonly workloadCluster: WorkloadCluster | undefined;
}

/** A realistic part of OTC eu-de's ECS catalogue (reference §3.4). */
export const DEFAULT_FLAVORS: readonly string[] = [
  "s3.medium.1",
  "s3.medium.2",
  "s3.large.2",
  "s3.large.4",
  "s3.xlarge.1",
  "s3.xlarge.2",
  "s3.xlarge.4",
  "s3.2xlarge.2",
  "s3.2xlarge.4",
  "s3.4xlarge.2",
  "s3.4xlarge.4",
  "c4.large.2",
  "c4.xlarge.2",
  "c4.2xlarge.2",
  "c4.4xlarge.2",
  "m3.large.8",
  "m3.xlarge.8",
  "m3.2xlarge.8",
  "p2s.2xlarge.8",
  "g6.xlarge.4",
];

/**
 * The cluster versions OTC's CCE release notes list (reference §3.2). The
 * console offers only the newest three; the API still creates the others.
 */
export const DEFAULT_CCE_VERSIONS: readonly string[] = ["v1.25", "v1.27", "v1.28", "v1.29", "v1.30", "v1.31", "v1.32", "v1.33"];

export type LiveObjects = Readonly<Record<"vpcs" | "subnets" | "eips" | "keypairs" | "cceClusters" | "nodePools" | "servers", number>>;

interface Scheduled {
  readonly at: number;
  readonly order: number;
  readonly step: () => void;
}

export type ElbApi = "v2" | "v3";

export type ResourceCounts = Readonly<Record<"loadbalancers" | "listeners" | "pools" | "members" | "monitors" | "eips", number>>;
export type ProvisioningStatus = "ACTIVE" | "PENDING_CREATE" | "PENDING_UPDATE";

export class LoadBalancer {
  name: string;
  description: string;
  /** The Neutron subnet id of the VIP; undefined for a v3 LB created with only `vpc_id`. */
  readonly vipSubnetId: string | undefined;
  readonly vipAddress: string;
  readonly vpcId: string | undefined;
  readonly availabilityZones: readonly string[];
  readonly virsubnetIds: readonly string[];
  readonly l4FlavorId: string | undefined;
  /** The VIP's Neutron port, what a v2 LB's EIP is bound to. */
  readonly vipPortId = randomUUID();
  adminStateUp = true;
  readonly listenerIds: string[] = [];
  readonly poolIds: string[] = [];
  readonly createdAt: string;
  private pendingStatus: ProvisioningStatus;
  private pendingUntil: number;

  constructor(
    private readonly clock: Clock,
    readonly id: string,
    readonly api: ElbApi,
    readonly projectId: string,
    init: {
      name: string;
      description: string;
      vipSubnetId: string | undefined;
      vipAddress: string;
      vpcId: string | undefined;
      availabilityZones: readonly string[];
      virsubnetIds: readonly string[];
      l4FlavorId: string | undefined;
    },
    createDelayMs: number,
  ) {
    this.name = init.name;
    this.description = init.description;
    this.vipSubnetId = init.vipSubnetId;
    this.vipAddress = init.vipAddress;
    this.vpcId = init.vpcId;
    this.availabilityZones = init.availabilityZones;
    this.virsubnetIds = init.virsubnetIds;
    this.l4FlavorId = init.l4FlavorId;
    this.createdAt = clock().toISOString().replace(/\.\d{3}Z$/, "Z");
    this.pendingStatus = "PENDING_CREATE";
    this.pendingUntil = clock().getTime() + createDelayMs;
  }

  get provisioningStatus(): ProvisioningStatus {
    return this.clock().getTime() < this.pendingUntil ? this.pendingStatus : "ACTIVE";
  }

  /** PENDING_UPDATE for `ms` from now (a mutation's processing, or a forced busy spell); never shortens one. */
  markPending(ms: number): void {
    // A still-creating LB stays PENDING_CREATE, only for longer.
    if (this.provisioningStatus === "ACTIVE") this.pendingStatus = "PENDING_UPDATE";
    this.pendingUntil = Math.max(this.pendingUntil, this.clock().getTime() + ms);
  }
}

export type ListenerProtocol = "TCP" | "UDP" | "HTTP" | "HTTPS" | "TERMINATED_HTTPS";

export interface Listener {
  readonly id: string;
  readonly api: ElbApi;
  readonly projectId: string;
  readonly loadbalancerId: string;
  readonly protocol: ListenerProtocol;
  readonly protocolPort: number;
  name: string;
  description: string;
  defaultPoolId: string | undefined;
  adminStateUp: boolean;
}

export type PoolProtocol = "TCP" | "UDP" | "HTTP" | "HTTPS";
export type LbAlgorithm = "ROUND_ROBIN" | "LEAST_CONNECTIONS" | "SOURCE_IP";

export interface SessionPersistence {
  readonly type: "SOURCE_IP" | "HTTP_COOKIE" | "APP_COOKIE";
  readonly cookieName?: string;
  readonly persistenceTimeout?: number;
}

export interface Pool {
  readonly id: string;
  readonly api: ElbApi;
  readonly projectId: string;
  readonly loadbalancerId: string;
  readonly listenerId: string | undefined;
  readonly protocol: PoolProtocol;
  name: string;
  description: string;
  lbAlgorithm: LbAlgorithm;
  sessionPersistence: SessionPersistence | undefined;
  healthmonitorId: string | undefined;
  readonly memberIds: string[];
  adminStateUp: boolean;
}

export interface Member {
  readonly id: string;
  readonly projectId: string;
  readonly poolId: string;
  readonly address: string;
  readonly protocolPort: number;
  readonly subnetId: string | undefined;
  name: string;
  weight: number;
  adminStateUp: boolean;
}

export type MonitorType = "TCP" | "UDP_CONNECT" | "HTTP" | "HTTPS";

export interface Monitor {
  readonly id: string;
  readonly projectId: string;
  readonly poolId: string;
  readonly type: MonitorType;
  name: string;
  delay: number;
  timeout: number;
  maxRetries: number;
  maxRetriesDown: number;
  monitorPort: number | undefined;
  urlPath: string;
  httpMethod: string;
  expectedCodes: string;
  domainName: string | undefined;
  adminStateUp: boolean;
}

export type EipStatus = "PENDING_CREATE" | "DOWN" | "ACTIVE";

export class Eip {
  /** The port the EIP is bound to (an LB VIP port or a server port); undefined when unbound. */
  portId: string | undefined;
  readonly createTime: string;
  private readonly readyAt: number;

  constructor(
    private readonly clock: Clock,
    readonly id: string,
    readonly projectId: string,
    readonly type: string,
    readonly publicIpAddress: string,
    readonly bandwidth: { readonly id: string; readonly name: string; readonly size: number; readonly shareType: string },
    readonly alias: string | undefined,
    createDelayMs: number,
  ) {
    this.createTime = clock().toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "");
    this.readyAt = clock().getTime() + createDelayMs;
  }

  get status(): EipStatus {
    if (this.portId !== undefined) return "ACTIVE";
    return this.clock().getTime() < this.readyAt ? "PENDING_CREATE" : "DOWN";
  }
}

/** Everything the simulated cloud holds; maps are keyed by resource id and may be inspected or edited by tests. */
export class SimulatorState {
  readonly projects: readonly Project[];
  readonly settings: CloudSettings;
  readonly servers = new Map<string, Server>();
  readonly vpcs = new Map<string, Vpc>();
  readonly subnets: StoredSubnet[] = [];
  readonly loadbalancers = new Map<string, LoadBalancer>();
  readonly listeners = new Map<string, Listener>();
  readonly pools = new Map<string, Pool>();
  readonly members = new Map<string, Member>();
  readonly monitors = new Map<string, Monitor>();
  readonly eips = new Map<string, Eip>();
  /** Keyed by `<project id>/<name>`: a key pair's name is its id. */
  readonly keypairs = new Map<string, Keypair>();
  readonly cceClusters = new Map<string, CceCluster>();
  readonly nodePools = new Map<string, NodePool>();
  /**
   * Cluster certificates issued: CCE cluster id → lifetime in days asked for
   * (-1: the longest) → how many. Tells apart the callers of `clustercert`
   * (a kubeconfig for a tenant, a short-lived one read for connection
   * details) without keeping every certificate.
   */
  readonly certificatesIssued = new Map<string, Map<number, number>>();
  /** Keyed by the token itself, which nothing else records. */
  private readonly tokens = new Map<string, IssuedToken>();
  /** flavor → zone → how many servers of the flavor the zone holds at most; a flavor not listed is unlimited. */
  private readonly capacity = new Map<string, Map<string, number>>();
  private readonly timeline: Scheduled[] = [];
  private scheduled = 0;
  /** Next host number per subnet (VIPs start at .10, leaving room for the gateway and DHCP). */
  private readonly nextHost = new Map<string, number>();
  private nextPublicIp = 1;

  constructor(
    projects: readonly Project[],
    readonly region: string,
    readonly clock: Clock,
    readonly transitionDelayMs: number,
    settings: Partial<CloudSettings> = {},
  ) {
    if (projects.length === 0) throw new Error("the OTC simulator needs at least one project");
    const cceVersions = settings.cceVersions ?? DEFAULT_CCE_VERSIONS;
    // The create route matches a request's `vX.Y` against these and defaults to the last one.
    if (cceVersions.length === 0 || !cceVersions.every((version) => /^v\d+\.\d+$/.test(version))) {
      throw new Error(`the OTC simulator's CCE versions must be one or more vX.Y, got ${JSON.stringify(cceVersions)}`);
    }
    this.projects = projects;
    this.settings = {
      users: settings.users ?? [],
      tokenTtlMs: settings.tokenTtlMs ?? 24 * 60 * 60 * 1000,
      flavors: settings.flavors ?? DEFAULT_FLAVORS,
      cceVersions,
      cceClusterCreateMs: settings.cceClusterCreateMs ?? 200,
      cceClusterDeleteMs: settings.cceClusterDeleteMs ?? 200,
      nodePoolSyncMs: settings.nodePoolSyncMs ?? 200,
      workloadCluster: settings.workloadCluster,
    };
  }

  /** The region's availability zones, `<region>-01` to `<region>-03`. */
  get zones(): readonly string[] {
    return ["01", "02", "03"].map((suffix) => `${this.region}-${suffix}`);
  }

  /** Runs `step` once the clock has moved `delayMs` past now (at the next `settle()` from then on). */
  schedule(delayMs: number, step: () => void): void {
    this.timeline.push({ at: this.clock().getTime() + delayMs, order: this.scheduled++, step });
  }

  /** Applies every scheduled change that is due, earliest first (steps may schedule more). */
  settle(): void {
    const now = this.clock().getTime();
    for (;;) {
      let next: Scheduled | undefined;
      for (const item of this.timeline) {
        if (item.at <= now && (next === undefined || item.at < next.at || (item.at === next.at && item.order < next.order))) next = item;
      }
      if (next === undefined) return;
      this.timeline.splice(this.timeline.indexOf(next), 1);
      next.step();
    }
  }

  /** How many objects of each kind exist (seeded ones included), in every project or in `projectId` only, after applying due changes: what an e2e leak check compares. */
  liveObjects(projectId?: string): LiveObjects {
    this.settle();
    const count = (items: Iterable<{ readonly projectId: string }>): number => [...items].filter((item) => projectId === undefined || item.projectId === projectId).length;
    return {
      vpcs: count(this.vpcs.values()),
      subnets: count(this.subnets),
      eips: count(this.eips.values()),
      keypairs: count(this.keypairs.values()),
      cceClusters: count(this.cceClusters.values()),
      nodePools: count(this.nodePools.values()),
      servers: count(this.servers.values()),
    };
  }


  issueToken(token: string, issued: IssuedToken): void {
    this.tokens.set(token, issued);
  }

  /** The token's grant while it is unexpired; expired tokens are forgotten. */
  liveToken(token: string): IssuedToken | undefined {
    const issued = this.tokens.get(token);
    if (issued === undefined) return undefined;
    if (issued.expiresAt.getTime() > this.clock().getTime()) return issued;
    this.tokens.delete(token);
    return undefined;
  }

  /** How many servers of `flavor` may be added in `zone` now; Infinity for a flavor without a capacity limit. */
  freeCapacity(flavor: string, zone: string): number {
    const zones = this.capacity.get(flavor);
    if (zones === undefined) return Infinity;
    let used = 0;
    for (const server of this.servers.values()) if (server.flavor === flavor && server.az === zone) used += 1;
    return Math.max((zones.get(zone) ?? 0) - used, 0);
  }

  /**
   * Limits `flavor` in `zone` to `servers` servers (existing ones count). Once
   * a flavor has a limit anywhere, zones without one hold none of it.
   */
  setCapacity(flavor: string, zone: string, servers: number): void {
    if (!Number.isInteger(servers) || servers < 0) throw new Error(`setCapacity: ${servers} is not a server count`);
    // Changes due before now happen under the capacity they saw.
    this.settle();
    const zones = this.capacity.get(flavor) ?? new Map<string, number>();
    zones.set(zone, servers);
    this.capacity.set(flavor, zones);
  }

  /** How many of each resource the simulated cloud holds: what a leak check compares. */
  counts(): ResourceCounts {
    return {
      loadbalancers: this.loadbalancers.size,
      listeners: this.listeners.size,
      pools: this.pools.size,
      members: this.members.size,
      monitors: this.monitors.size,
      eips: this.eips.size,
    };
  }

  project(id: string): Project | undefined {
    return this.projects.find((project) => project.id === id);
  }

  addServer(seed: ServerSeed): Server {
    const projectId = seed.projectId ?? this.defaultProject().id;
    if (this.project(projectId) === undefined) throw new Error(`addServer: unknown project ${projectId}`);
    const addresses: Record<string, ServerAddress[]> = {};
    for (const [vpc, list] of Object.entries(seed.addresses ?? {})) {
      addresses[vpc] = list.map((address) => ({ ...address, portId: address.portId ?? randomUUID() }));
    }
    const server: Server = {
      id: seed.id ?? randomUUID(),
      projectId,
      name: seed.name,
      status: seed.status ?? "ACTIVE",
      flavor: seed.flavor ?? "s3.large.2",
      az: seed.az ?? `${this.region}-01`,
      addresses,
      metadata: { ...seed.metadata },
      tags: [...(seed.tags ?? [])],
      created: this.clock().toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    this.servers.set(server.id, server);
    return server;
  }

  addSubnet(subnet: Subnet): StoredSubnet {
    const cidr = parseCidr(subnet.cidr);
    if (cidr === undefined) throw new Error(`addSubnet: ${subnet.cidr} is not an IPv4 CIDR`);
    const stored: StoredSubnet = {
      ...subnet,
      vpcId: subnet.vpcId ?? randomUUID(),
      name: subnet.name ?? `subnet-${subnet.cidr}`,
      projectId: subnet.projectId ?? this.defaultProject().id,
      // OTC's default: the network's first host address.
      gatewayIp: formatAddress(network(cidr) + 1),
      availabilityZone: undefined,
      primaryDns: DEFAULT_DNS.primary,
      secondaryDns: DEFAULT_DNS.secondary,
      dhcpEnable: true,
      activeAt: 0,
    };
    this.subnets.push(stored);
    return stored;
  }

  /** Which kind of subnet id `id` is, so a wrong kind can be told apart from an unknown id. */
  subnetById(id: string): { subnet: StoredSubnet; kind: SubnetIdKind } | undefined {
    for (const subnet of this.subnets) {
      if (subnet.neutronSubnetId === id) return { subnet, kind: "neutronSubnetId" };
      if (subnet.vpcSubnetId === id) return { subnet, kind: "vpcSubnetId" };
      if (subnet.neutronNetworkId === id) return { subnet, kind: "neutronNetworkId" };
    }
    return undefined;
  }

  /** The next free IPv4 address of the subnet. */
  allocateAddress(subnet: Subnet): string {
    const cidr = parseCidr(subnet.cidr);
    if (cidr === undefined) throw new Error(`subnet ${subnet.cidr} is not an IPv4 CIDR`);
    const host = this.nextHost.get(subnet.neutronSubnetId) ?? 10;
    if (!isHostOf(cidr, network(cidr) + host)) throw new Error(`subnet ${subnet.cidr} is full`);
    this.nextHost.set(subnet.neutronSubnetId, host + 1);
    return formatAddress((network(cidr) + host) >>> 0);
  }

  /** Public addresses from 80.158.0.0/16, the range OTC eu-de hands out. */
  allocatePublicIp(): string {
    const n = this.nextPublicIp++;
    return `80.158.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
  }

  /** Ports an EIP may be bound to: LB VIP ports, CCE master ports and server NIC ports. */
  portExists(portId: string): boolean {
    for (const lb of this.loadbalancers.values()) if (lb.vipPortId === portId) return true;
    for (const cluster of this.cceClusters.values()) if (cluster.masterPortId === portId) return true;
    for (const server of this.servers.values()) {
      for (const list of Object.values(server.addresses)) if (list.some((address) => address.portId === portId)) return true;
    }
    return false;
  }

  private defaultProject(): Project {
    const [first] = this.projects;
    if (first === undefined) throw new Error("no project");
    return first;
  }
}
