/**
 * The simulator's cloud: projects, servers, subnets, load balancers and their
 * children, and EIPs, plus the time-driven statuses.
 *
 * Statuses that OTC moves on by itself (an LB leaving PENDING_CREATE, an EIP
 * leaving PENDING_CREATE) are computed from the injectable clock when read,
 * not changed by timers: a test that owns the clock advances it and the cloud
 * follows, with nothing left running after `close()`.
 */
import { randomUUID } from "node:crypto";

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

export type SubnetIdKind = "vpcSubnetId" | "neutronSubnetId" | "neutronNetworkId";

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
  readonly servers = new Map<string, Server>();
  readonly subnets: Required<Subnet>[] = [];
  readonly loadbalancers = new Map<string, LoadBalancer>();
  readonly listeners = new Map<string, Listener>();
  readonly pools = new Map<string, Pool>();
  readonly members = new Map<string, Member>();
  readonly monitors = new Map<string, Monitor>();
  readonly eips = new Map<string, Eip>();
  /** Next host number per subnet (VIPs start at .10, leaving room for the gateway and DHCP). */
  private readonly nextHost = new Map<string, number>();
  private nextPublicIp = 1;

  constructor(
    projects: readonly Project[],
    readonly region: string,
    readonly clock: Clock,
    readonly transitionDelayMs: number,
  ) {
    if (projects.length === 0) throw new Error("the OTC simulator needs at least one project");
    this.projects = projects;
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

  addSubnet(subnet: Subnet): Required<Subnet> {
    if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(subnet.cidr)) throw new Error(`addSubnet: ${subnet.cidr} is not an IPv4 CIDR`);
    const stored = {
      ...subnet,
      vpcId: subnet.vpcId ?? randomUUID(),
      name: subnet.name ?? `subnet-${subnet.cidr}`,
      projectId: subnet.projectId ?? this.defaultProject().id,
    };
    this.subnets.push(stored);
    return stored;
  }

  /** Which kind of subnet id `id` is, so a wrong kind can be told apart from an unknown id. */
  subnetById(id: string): { subnet: Required<Subnet>; kind: SubnetIdKind } | undefined {
    for (const subnet of this.subnets) {
      if (subnet.neutronSubnetId === id) return { subnet, kind: "neutronSubnetId" };
      if (subnet.vpcSubnetId === id) return { subnet, kind: "vpcSubnetId" };
      if (subnet.neutronNetworkId === id) return { subnet, kind: "neutronNetworkId" };
    }
    return undefined;
  }

  /** The next free IPv4 address of the subnet. */
  allocateAddress(subnet: Subnet): string {
    const [base, bits] = subnet.cidr.split("/");
    const host = this.nextHost.get(subnet.neutronSubnetId) ?? 10;
    if (host >= 2 ** (32 - Number(bits)) - 1) throw new Error(`subnet ${subnet.cidr} is full`);
    this.nextHost.set(subnet.neutronSubnetId, host + 1);
    const start = (base ?? "").split(".").reduce((sum, octet) => sum * 256 + Number(octet), 0);
    const value = (start + host) >>> 0;
    return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
  }

  /** Public addresses from 80.158.0.0/16, the range OTC eu-de hands out. */
  allocatePublicIp(): string {
    const n = this.nextPublicIp++;
    return `80.158.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
  }

  /** Ports an EIP may be bound to: LB VIP ports and server NIC ports. */
  portExists(portId: string): boolean {
    for (const lb of this.loadbalancers.values()) if (lb.vipPortId === portId) return true;
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
