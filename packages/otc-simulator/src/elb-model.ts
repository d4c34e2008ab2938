/**
 * ELB rules shared by the shared (v2) and dedicated (v3) APIs: an LB accepts
 * changes only while ACTIVE and is PENDING_UPDATE for a moment after each;
 * children link to parents (pool → listener's default_pool_id, monitor →
 * pool's healthmonitor_id); resources are deleted bottom-up (monitor →
 * members → pool → listener → LB), in-use deletes answering 409 as the CCM
 * expects; list filtering and marker paging; and the JSON views.
 */
import { randomUUID } from "node:crypto";
import { ApiError } from "./api.js";
import {
  LoadBalancer,
  type ElbApi,
  type LbAlgorithm,
  type Listener,
  type ListenerProtocol,
  type Member,
  type Monitor,
  type MonitorType,
  type Pool,
  type PoolProtocol,
  type SessionPersistence,
  type SimulatorState,
  type Subnet,
} from "./state.js";

export const LISTENER_PROTOCOLS: readonly ListenerProtocol[] = ["TCP", "UDP", "HTTP", "HTTPS", "TERMINATED_HTTPS"];
export const POOL_PROTOCOLS: readonly PoolProtocol[] = ["TCP", "UDP", "HTTP", "HTTPS"];
export const LB_ALGORITHMS: readonly LbAlgorithm[] = ["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP"];
export const MONITOR_TYPES: readonly MonitorType[] = ["TCP", "UDP_CONNECT", "HTTP", "HTTPS"];
export const PERSISTENCE_TYPES: readonly SessionPersistence["type"][] = ["SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE"];

export function notFound(what: string, id: string): ApiError {
  return new ApiError(404, "ELB.0404", `${what} ${id} could not be found`);
}

export function conflict(message: string): ApiError {
  return new ApiError(409, "ELB.0409", message);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, "ELB.0400", message);
}

/** A resource of the project, or 404 (other projects' resources do not exist for the caller). */
export function owned<T extends { readonly projectId: string }>(map: ReadonlyMap<string, T>, id: string, projectId: string, what: string): T {
  const item = map.get(id);
  if (item === undefined || item.projectId !== projectId) throw notFound(what, id);
  return item;
}

/**
 * Admits one change to the LB: 409 unless it is ACTIVE, then PENDING_UPDATE
 * for the transition delay. Called after validation, just before the change,
 * so a rejected request leaves the LB as it was.
 */
export function beginMutation(state: SimulatorState, lb: LoadBalancer): void {
  const status = lb.provisioningStatus;
  if (status !== "ACTIVE") {
    throw conflict(`load balancer ${lb.id} is ${status} and cannot be changed now; retry when it is ACTIVE`);
  }
  lb.markPending(state.transitionDelayMs);
}

export interface LoadBalancerInput {
  readonly name: string;
  readonly description: string;
  readonly subnet: Subnet | undefined;
  readonly vipAddress: string | undefined;
  readonly vpcId: string | undefined;
  readonly availabilityZones: readonly string[];
  readonly virsubnetIds: readonly string[];
  readonly l4FlavorId: string | undefined;
}

export function createLoadBalancer(state: SimulatorState, api: ElbApi, projectId: string, input: LoadBalancerInput): LoadBalancer {
  const lb = new LoadBalancer(
    state.clock,
    randomUUID(),
    api,
    projectId,
    {
      name: input.name,
      description: input.description,
      vipSubnetId: input.subnet?.neutronSubnetId,
      vipAddress: input.vipAddress ?? (input.subnet === undefined ? "" : state.allocateAddress(input.subnet)),
      vpcId: input.vpcId ?? input.subnet?.vpcId,
      availabilityZones: input.availabilityZones,
      virsubnetIds: input.virsubnetIds,
      l4FlavorId: input.l4FlavorId,
    },
    state.transitionDelayMs,
  );
  state.loadbalancers.set(lb.id, lb);
  return lb;
}

/** OTC unbinds (but does not release) the LB's EIPs when the LB goes. */
export function deleteLoadBalancer(state: SimulatorState, lb: LoadBalancer): void {
  if (lb.listenerIds.length > 0 || lb.poolIds.length > 0) {
    throw conflict(`load balancer ${lb.id} still has listeners or pools; delete them first`);
  }
  beginMutation(state, lb);
  for (const eip of state.eips.values()) if (eip.portId === lb.vipPortId) eip.portId = undefined;
  state.loadbalancers.delete(lb.id);
}

export interface ListenerInput {
  readonly name: string;
  readonly description: string;
  readonly protocol: ListenerProtocol;
  readonly protocolPort: number;
  readonly adminStateUp: boolean;
}

export function createListener(state: SimulatorState, api: ElbApi, lb: LoadBalancer, input: ListenerInput): Listener {
  if (lb.api !== api) throw badRequest(`load balancer ${lb.id} belongs to the ${lb.api} API`);
  const clash = lb.listenerIds.some((id) => {
    const other = state.listeners.get(id);
    return other?.protocolPort === input.protocolPort && (other.protocol === "UDP") === (input.protocol === "UDP");
  });
  if (clash) throw conflict(`load balancer ${lb.id} already has a listener on ${input.protocol}/${input.protocolPort}`);
  beginMutation(state, lb);
  const listener: Listener = { id: randomUUID(), api, projectId: lb.projectId, loadbalancerId: lb.id, defaultPoolId: undefined, ...input };
  state.listeners.set(listener.id, listener);
  lb.listenerIds.push(listener.id);
  return listener;
}

export function deleteListener(state: SimulatorState, listener: Listener): void {
  if (listener.defaultPoolId !== undefined) throw conflict(`listener ${listener.id} still has pool ${listener.defaultPoolId}; delete it first`);
  const lb = parentLb(state, listener.loadbalancerId);
  beginMutation(state, lb);
  state.listeners.delete(listener.id);
  remove(lb.listenerIds, listener.id);
}

export interface PoolInput {
  readonly name: string;
  readonly description: string;
  readonly protocol: PoolProtocol;
  readonly lbAlgorithm: LbAlgorithm;
  readonly sessionPersistence: SessionPersistence | undefined;
  readonly adminStateUp: boolean;
}

/** A pool under a listener (becoming its default pool) or directly under an LB. */
export function createPool(state: SimulatorState, api: ElbApi, parent: Listener | LoadBalancer, input: PoolInput): Pool {
  const listener = parent instanceof LoadBalancer ? undefined : parent;
  const lb = parent instanceof LoadBalancer ? parent : parentLb(state, parent.loadbalancerId);
  if (lb.api !== api) throw badRequest(`load balancer ${lb.id} belongs to the ${lb.api} API`);
  if (listener !== undefined) {
    if (listener.defaultPoolId !== undefined) throw conflict(`listener ${listener.id} already has pool ${listener.defaultPoolId}`);
    if (!protocolsFit(listener.protocol, input.protocol)) {
      throw badRequest(`pool protocol ${input.protocol} does not fit listener protocol ${listener.protocol}`);
    }
  }
  beginMutation(state, lb);
  const pool: Pool = {
    id: randomUUID(),
    api,
    projectId: lb.projectId,
    loadbalancerId: lb.id,
    listenerId: listener?.id,
    healthmonitorId: undefined,
    memberIds: [],
    ...input,
  };
  state.pools.set(pool.id, pool);
  lb.poolIds.push(pool.id);
  if (listener !== undefined) listener.defaultPoolId = pool.id;
  return pool;
}

export function deletePool(state: SimulatorState, pool: Pool): void {
  if (pool.memberIds.length > 0 || pool.healthmonitorId !== undefined) {
    throw conflict(`pool ${pool.id} still has members or a health monitor; delete them first`);
  }
  const lb = parentLb(state, pool.loadbalancerId);
  beginMutation(state, lb);
  state.pools.delete(pool.id);
  remove(lb.poolIds, pool.id);
  if (pool.listenerId !== undefined) {
    const listener = state.listeners.get(pool.listenerId);
    if (listener?.defaultPoolId === pool.id) listener.defaultPoolId = undefined;
  }
}

export interface MemberInput {
  readonly name: string;
  readonly address: string;
  readonly protocolPort: number;
  readonly subnetId: string | undefined;
  readonly weight: number;
  readonly adminStateUp: boolean;
}

export function createMember(state: SimulatorState, pool: Pool, input: MemberInput): Member {
  const duplicate = pool.memberIds.some((id) => {
    const other = state.members.get(id);
    return other?.address === input.address && other.protocolPort === input.protocolPort;
  });
  if (duplicate) throw conflict(`pool ${pool.id} already has member ${input.address}:${input.protocolPort}`);
  beginMutation(state, parentLb(state, pool.loadbalancerId));
  const member: Member = { id: randomUUID(), projectId: pool.projectId, poolId: pool.id, ...input };
  state.members.set(member.id, member);
  pool.memberIds.push(member.id);
  return member;
}

export function deleteMember(state: SimulatorState, pool: Pool, member: Member): void {
  beginMutation(state, parentLb(state, pool.loadbalancerId));
  state.members.delete(member.id);
  remove(pool.memberIds, member.id);
}

export interface MonitorInput {
  readonly name: string;
  readonly type: MonitorType;
  readonly delay: number;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxRetriesDown: number;
  readonly monitorPort: number | undefined;
  readonly urlPath: string;
  readonly httpMethod: string;
  readonly expectedCodes: string;
  readonly domainName: string | undefined;
  readonly adminStateUp: boolean;
}

export function createMonitor(state: SimulatorState, pool: Pool, input: MonitorInput): Monitor {
  if (pool.healthmonitorId !== undefined) throw conflict(`pool ${pool.id} already has health monitor ${pool.healthmonitorId}`);
  if ((pool.protocol === "UDP") !== (input.type === "UDP_CONNECT")) {
    throw badRequest(`health monitor type ${input.type} does not fit pool protocol ${pool.protocol} (UDP pools need UDP_CONNECT)`);
  }
  beginMutation(state, parentLb(state, pool.loadbalancerId));
  const monitor: Monitor = { id: randomUUID(), projectId: pool.projectId, poolId: pool.id, ...input };
  state.monitors.set(monitor.id, monitor);
  pool.healthmonitorId = monitor.id;
  return monitor;
}

export function deleteMonitor(state: SimulatorState, monitor: Monitor): void {
  const pool = state.pools.get(monitor.poolId);
  if (pool !== undefined) {
    beginMutation(state, parentLb(state, pool.loadbalancerId));
    pool.healthmonitorId = undefined;
  }
  state.monitors.delete(monitor.id);
}

/** The LB a child resource hangs under; for the busy rule of updates. */
export function lbOfPool(state: SimulatorState, pool: Pool): LoadBalancer {
  return parentLb(state, pool.loadbalancerId);
}

export function lbOfListener(state: SimulatorState, listener: Listener): LoadBalancer {
  return parentLb(state, listener.loadbalancerId);
}

export function lbOfMonitor(state: SimulatorState, monitor: Monitor): LoadBalancer {
  const pool = state.pools.get(monitor.poolId);
  if (pool === undefined) throw notFound("pool", monitor.poolId);
  return parentLb(state, pool.loadbalancerId);
}

function parentLb(state: SimulatorState, id: string): LoadBalancer {
  const lb = state.loadbalancers.get(id);
  if (lb === undefined) throw notFound("load balancer", id);
  return lb;
}

/** TCP and UDP pools serve only their own protocol; the HTTP family serves HTTP(S) pools. */
function protocolsFit(listener: ListenerProtocol, pool: PoolProtocol): boolean {
  if (listener === "TCP" || listener === "UDP") return pool === listener;
  return pool === "HTTP" || pool === "HTTPS";
}

function remove(list: string[], id: string): void {
  const index = list.indexOf(id);
  if (index >= 0) list.splice(index, 1);
}

/** Query parameter → the value it filters on; every given value of a repeated parameter is accepted. */
export type Filters<T> = Readonly<Record<string, (item: T) => string | number | boolean | undefined>>;

export interface Page<T> {
  readonly items: T[];
  readonly nextMarker: string | undefined;
  readonly previousMarker: string | undefined;
}

/** Filters by the known parameters (others are ignored) and pages by `marker` (exclusive) and `limit`. */
export function filterAndPage<T extends { readonly id: string }>(items: Iterable<T>, query: URLSearchParams, filters: Filters<T>): Page<T> {
  let matching = [...items].filter((item) =>
    Object.entries(filters).every(([key, read]) => {
      const wanted = query.getAll(key);
      return wanted.length === 0 || wanted.includes(String(read(item)));
    }),
  );
  const marker = query.get("marker");
  if (marker !== null) {
    const index = matching.findIndex((item) => item.id === marker);
    if (index < 0) throw badRequest(`marker ${marker} is not in the result`);
    matching = matching.slice(index + 1);
  }
  const rawLimit = query.get("limit");
  const limit = rawLimit === null ? 2000 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 0 || limit > 2000) throw badRequest("limit must be an integer from 0 to 2000");
  const pageItems = matching.slice(0, limit);
  const last = pageItems.at(-1);
  return {
    items: pageItems,
    nextMarker: matching.length > limit && last !== undefined ? last.id : undefined,
    previousMarker: pageItems[0]?.id,
  };
}

const ids = (list: readonly string[]): { id: string }[] => list.map((id) => ({ id }));

export function renderLoadBalancer(state: SimulatorState, lb: LoadBalancer): Record<string, unknown> {
  const status = lb.provisioningStatus;
  const common = {
    id: lb.id,
    project_id: lb.projectId,
    name: lb.name,
    description: lb.description,
    vip_address: lb.vipAddress,
    vip_port_id: lb.vipPortId,
    provider: "vlb",
    provisioning_status: status,
    operating_status: status === "ACTIVE" ? "ONLINE" : "OFFLINE",
    admin_state_up: lb.adminStateUp,
    listeners: ids(lb.listenerIds),
    pools: ids(lb.poolIds),
    tags: [],
    created_at: lb.createdAt,
    updated_at: lb.createdAt,
  };
  if (lb.api === "v2") return { ...common, tenant_id: lb.projectId, vip_subnet_id: lb.vipSubnetId };
  const bound = [...state.eips.values()].filter((eip) => eip.portId === lb.vipPortId);
  return {
    ...common,
    vip_subnet_cidr_id: lb.vipSubnetId ?? "",
    vpc_id: lb.vpcId ?? "",
    availability_zone_list: lb.availabilityZones,
    elb_virsubnet_ids: lb.virsubnetIds,
    l4_flavor_id: lb.l4FlavorId ?? "",
    guaranteed: true,
    publicips: bound.map((eip) => ({ publicip_id: eip.id, publicip_address: eip.publicIpAddress, ip_version: 4 })),
    eips: bound.map((eip) => ({ eip_id: eip.id, eip_address: eip.publicIpAddress, ip_version: 4 })),
  };
}

export function renderListener(listener: Listener): Record<string, unknown> {
  const common = {
    id: listener.id,
    project_id: listener.projectId,
    name: listener.name,
    description: listener.description,
    protocol: listener.protocol,
    protocol_port: listener.protocolPort,
    loadbalancers: [{ id: listener.loadbalancerId }],
    default_pool_id: listener.defaultPoolId ?? null,
    admin_state_up: listener.adminStateUp,
  };
  if (listener.api === "v2") return { ...common, tenant_id: listener.projectId, connection_limit: -1 };
  // Dedicated ELB always passes the client IP through (reference §2.5).
  return { ...common, keepalive_timeout: 300, transparent_client_ip_enable: true, ipgroup: null };
}

export function renderPool(pool: Pool): Record<string, unknown> {
  const persistence = pool.sessionPersistence;
  return {
    id: pool.id,
    project_id: pool.projectId,
    ...(pool.api === "v2" ? { tenant_id: pool.projectId } : {}),
    name: pool.name,
    description: pool.description,
    protocol: pool.protocol,
    lb_algorithm: pool.lbAlgorithm,
    listeners: pool.listenerId === undefined ? [] : [{ id: pool.listenerId }],
    loadbalancers: [{ id: pool.loadbalancerId }],
    members: ids(pool.memberIds),
    healthmonitor_id: pool.healthmonitorId ?? null,
    session_persistence:
      persistence === undefined
        ? null
        : { type: persistence.type, cookie_name: persistence.cookieName ?? null, persistence_timeout: persistence.persistenceTimeout ?? null },
    admin_state_up: pool.adminStateUp,
  };
}

export function renderMember(api: ElbApi, member: Member): Record<string, unknown> {
  const common = {
    id: member.id,
    project_id: member.projectId,
    pool_id: member.poolId,
    name: member.name,
    address: member.address,
    protocol_port: member.protocolPort,
    weight: member.weight,
    admin_state_up: member.adminStateUp,
    operating_status: member.adminStateUp ? "ONLINE" : "OFFLINE",
  };
  if (api === "v2") return { ...common, tenant_id: member.projectId, subnet_id: member.subnetId };
  return { ...common, subnet_cidr_id: member.subnetId ?? null, ip_version: "v4" };
}

export function renderMonitor(api: ElbApi, monitor: Monitor): Record<string, unknown> {
  return {
    id: monitor.id,
    project_id: monitor.projectId,
    ...(api === "v2" ? { tenant_id: monitor.projectId } : {}),
    name: monitor.name,
    type: monitor.type,
    delay: monitor.delay,
    timeout: monitor.timeout,
    max_retries: monitor.maxRetries,
    max_retries_down: monitor.maxRetriesDown,
    monitor_port: monitor.monitorPort ?? null,
    url_path: monitor.urlPath,
    http_method: monitor.httpMethod,
    expected_codes: monitor.expectedCodes,
    domain_name: monitor.domainName ?? null,
    pools: [{ id: monitor.poolId }],
    admin_state_up: monitor.adminStateUp,
  };
}

/** `GET …/loadbalancers/{id}/statuses`: the LB with its listeners, pools, monitors and members, statuses only. */
export function renderStatusTree(state: SimulatorState, lb: LoadBalancer): Record<string, unknown> {
  const status = lb.provisioningStatus;
  const pool = (id: string): unknown => {
    const found = state.pools.get(id);
    if (found === undefined) return { id };
    const monitor = found.healthmonitorId === undefined ? undefined : state.monitors.get(found.healthmonitorId);
    return {
      id,
      name: found.name,
      provisioning_status: "ACTIVE",
      operating_status: "ONLINE",
      healthmonitor: monitor === undefined ? {} : { id: monitor.id, name: monitor.name, type: monitor.type, provisioning_status: "ACTIVE" },
      members: found.memberIds.flatMap((memberId) => {
        const member = state.members.get(memberId);
        if (member === undefined) return [];
        return [
          {
            id: member.id,
            address: member.address,
            protocol_port: member.protocolPort,
            provisioning_status: "ACTIVE",
            operating_status: member.adminStateUp ? "ONLINE" : "OFFLINE",
          },
        ];
      }),
    };
  };
  const listeners = lb.listenerIds.flatMap((id) => {
    const listener = state.listeners.get(id);
    if (listener === undefined) return [];
    const pools = listener.defaultPoolId === undefined ? [] : [pool(listener.defaultPoolId)];
    return [{ id, name: listener.name, provisioning_status: "ACTIVE", operating_status: "ONLINE", pools }];
  });
  return {
    loadbalancer: {
      id: lb.id,
      name: lb.name,
      provisioning_status: status,
      operating_status: status === "ACTIVE" ? "ONLINE" : "OFFLINE",
      listeners,
      pools: lb.poolIds.map(pool),
    },
  };
}
