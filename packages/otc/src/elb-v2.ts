/**
 * ELB v2.0 shared ("enhanced") load balancers, OpenStack-LBaaS-v2-like:
 * load balancers, listeners, pools, members and health monitors under
 * `/v2.0/lbaas/`. The project comes from the signed `X-Project-Id`, not the
 * path. A shared LB is private; its public IP is an EIP bound to
 * `vip_port_id` (`bindPublicIp` in eip.ts). Mutations answer 409 while the LB is
 * busy, which the client retries.
 */
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { collect, listByLinks } from "./pagination.js";
import { createResource, deleteResource, getResource, refersTo, updateResource, type Ref, type ResourceType } from "./resource.js";

export type ProvisioningStatus = "ACTIVE" | "PENDING_CREATE" | "PENDING_UPDATE" | "PENDING_DELETE" | "ERROR";
export type OperatingStatus = "ONLINE" | "OFFLINE" | "DEGRADED" | "DISABLED" | "NO_MONITOR";

export interface LoadBalancerV2 {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly vip_address: string;
  readonly vip_port_id: string;
  readonly vip_subnet_id: string;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
  readonly admin_state_up: boolean;
  readonly provider?: string;
  readonly listeners: readonly Ref[];
  readonly pools: readonly Ref[];
}

export interface CreateLoadBalancerV2 {
  /** ≤ 255 characters; names are not unique. */
  readonly name?: string;
  /** ≤ 255 characters; the CCM's ownership marker lives here. */
  readonly description?: string;
  /** The Neutron IPv4 subnet ID. */
  readonly vip_subnet_id: string;
  readonly vip_address?: string;
  readonly provider?: "vlb";
  readonly admin_state_up?: boolean;
}

export type ListenerProtocolV2 = "TCP" | "UDP" | "HTTP" | "TERMINATED_HTTPS";

export interface ListenerV2 {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly protocol: ListenerProtocolV2;
  readonly protocol_port: number;
  readonly default_pool_id: string | null;
  readonly loadbalancers: readonly Ref[];
  readonly admin_state_up: boolean;
}

export interface CreateListenerV2 {
  readonly loadbalancer_id: string;
  readonly protocol: ListenerProtocolV2;
  readonly protocol_port: number;
  readonly name?: string;
  readonly description?: string;
  readonly default_pool_id?: string;
  readonly admin_state_up?: boolean;
}

export type LbAlgorithmV2 = "ROUND_ROBIN" | "LEAST_CONNECTIONS" | "SOURCE_IP";

export interface SessionPersistence {
  readonly type: "SOURCE_IP" | "HTTP_COOKIE" | "APP_COOKIE";
  readonly cookie_name?: string;
  /** Minutes; 1–60 for TCP/UDP pools. */
  readonly persistence_timeout?: number;
}

export interface PoolV2 {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly protocol: "TCP" | "UDP" | "HTTP";
  readonly lb_algorithm: LbAlgorithmV2;
  readonly session_persistence: SessionPersistence | null;
  readonly healthmonitor_id: string | null;
  readonly listeners: readonly Ref[];
  readonly loadbalancers: readonly Ref[];
  readonly members: readonly Ref[];
  readonly admin_state_up: boolean;
}

export interface CreatePoolV2 {
  /** Must match the listener's: TCP→TCP, UDP→UDP. */
  readonly protocol: "TCP" | "UDP" | "HTTP";
  readonly lb_algorithm: LbAlgorithmV2;
  /** One of listener_id and loadbalancer_id is required. */
  readonly listener_id?: string;
  readonly loadbalancer_id?: string;
  readonly name?: string;
  readonly description?: string;
  readonly session_persistence?: SessionPersistence;
  readonly admin_state_up?: boolean;
}

export interface UpdatePoolV2 {
  readonly name?: string;
  readonly description?: string;
  readonly lb_algorithm?: LbAlgorithmV2;
  readonly session_persistence?: SessionPersistence | null;
  readonly admin_state_up?: boolean;
}

export interface MemberV2 {
  readonly id: string;
  readonly name: string;
  readonly address: string;
  readonly protocol_port: number;
  readonly subnet_id: string;
  readonly weight: number;
  readonly admin_state_up: boolean;
  readonly operating_status?: OperatingStatus;
}

export interface CreateMemberV2 {
  readonly address: string;
  readonly protocol_port: number;
  /** The backend's IPv4 subnet; required. */
  readonly subnet_id: string;
  readonly name?: string;
  readonly weight?: number;
  readonly admin_state_up?: boolean;
}

export interface HealthMonitorSettingsV2 {
  /** Seconds between probes. */
  readonly delay: number;
  /** Seconds per probe. */
  readonly timeout: number;
  readonly max_retries: number;
  readonly max_retries_down?: number;
  readonly monitor_port?: number | null;
  readonly url_path?: string;
  readonly http_method?: string;
  readonly expected_codes?: string;
  readonly domain_name?: string;
  readonly admin_state_up?: boolean;
}

export interface HealthMonitorV2 extends HealthMonitorSettingsV2 {
  readonly id: string;
  readonly name?: string;
  readonly type: "TCP" | "UDP_CONNECT" | "HTTP";
  readonly pools: readonly Ref[];
}

export interface CreateHealthMonitorV2 extends HealthMonitorSettingsV2 {
  readonly pool_id: string;
  /** UDP pools require UDP_CONNECT. */
  readonly type: "TCP" | "UDP_CONNECT" | "HTTP";
}

export type UpdateHealthMonitorV2 = Partial<HealthMonitorSettingsV2>;

const BASE = "/v2.0/lbaas";
const LOADBALANCERS: ResourceType = { service: "elb", key: "loadbalancer", collectionPath: `${BASE}/loadbalancers` };
const LISTENERS: ResourceType = { service: "elb", key: "listener", collectionPath: `${BASE}/listeners` };
const POOLS: ResourceType = { service: "elb", key: "pool", collectionPath: `${BASE}/pools` };
const HEALTHMONITORS: ResourceType = { service: "elb", key: "healthmonitor", collectionPath: `${BASE}/healthmonitors` };

function members(poolId: string): ResourceType {
  return { service: "elb", key: "member", collectionPath: `${BASE}/pools/${encodeURIComponent(poolId)}/members` };
}

function list<T extends Ref>(
  client: OtcClient,
  type: ResourceType,
  query: Readonly<Record<string, string | undefined>>,
  options: OtcCallOptions,
): Promise<T[]> {
  return collect(listByLinks<T>(client, { service: type.service, path: type.collectionPath, itemsKey: `${type.key}s`, query }, options));
}

export const createLoadBalancerV2 = (client: OtcClient, spec: CreateLoadBalancerV2, options: OtcCallOptions = {}): Promise<LoadBalancerV2> =>
  createResource(client, LOADBALANCERS, spec, {}, options);
export const getLoadBalancerV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<LoadBalancerV2 | undefined> =>
  getResource(client, LOADBALANCERS, id, options);
/** Exact-match server-side filters; names are not unique, so filter by the ownership description where it matters. */
export const listLoadBalancersV2 = async (
  client: OtcClient,
  filter: { readonly name?: string; readonly description?: string } = {},
  options: OtcCallOptions = {},
): Promise<LoadBalancerV2[]> =>
  (await list<LoadBalancerV2>(client, LOADBALANCERS, filter, options)).filter(
    (lb) => (filter.name === undefined || lb.name === filter.name) && (filter.description === undefined || lb.description === filter.description),
  );
/** False if it was already gone. Listeners and pools must be deleted first. */
export const deleteLoadBalancerV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, LOADBALANCERS, id, options);

export const createListenerV2 = (client: OtcClient, spec: CreateListenerV2, options: OtcCallOptions = {}): Promise<ListenerV2> =>
  createResource(client, LISTENERS, spec, {}, options);
export const deleteListenerV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, LISTENERS, id, options);
export const listListenersV2 = async (client: OtcClient, loadBalancerId: string, options: OtcCallOptions = {}): Promise<ListenerV2[]> =>
  (await list<ListenerV2>(client, LISTENERS, { loadbalancer_id: loadBalancerId }, options)).filter((l) => refersTo(l.loadbalancers, loadBalancerId));

export const createPoolV2 = (client: OtcClient, spec: CreatePoolV2, options: OtcCallOptions = {}): Promise<PoolV2> =>
  createResource(client, POOLS, spec, {}, options);
export const updatePoolV2 = (client: OtcClient, id: string, spec: UpdatePoolV2, options: OtcCallOptions = {}): Promise<PoolV2> =>
  updateResource(client, POOLS, id, spec, options);
export const deletePoolV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> => deleteResource(client, POOLS, id, options);
export const listPoolsV2 = async (client: OtcClient, loadBalancerId: string, options: OtcCallOptions = {}): Promise<PoolV2[]> =>
  (await list<PoolV2>(client, POOLS, { loadbalancer_id: loadBalancerId }, options)).filter((p) => refersTo(p.loadbalancers, loadBalancerId));

export const createMemberV2 = (client: OtcClient, poolId: string, spec: CreateMemberV2, options: OtcCallOptions = {}): Promise<MemberV2> =>
  createResource(client, members(poolId), spec, {}, options);
export const deleteMemberV2 = (client: OtcClient, poolId: string, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, members(poolId), id, options);
export const listMembersV2 = (client: OtcClient, poolId: string, options: OtcCallOptions = {}): Promise<MemberV2[]> =>
  list(client, members(poolId), {}, options);

export const createHealthMonitorV2 = (client: OtcClient, spec: CreateHealthMonitorV2, options: OtcCallOptions = {}): Promise<HealthMonitorV2> =>
  createResource(client, HEALTHMONITORS, spec, {}, options);
export const updateHealthMonitorV2 = (
  client: OtcClient,
  id: string,
  spec: UpdateHealthMonitorV2,
  options: OtcCallOptions = {},
): Promise<HealthMonitorV2> => updateResource(client, HEALTHMONITORS, id, spec, options);
export const getHealthMonitorV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<HealthMonitorV2 | undefined> =>
  getResource(client, HEALTHMONITORS, id, options);
export const deleteHealthMonitorV2 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, HEALTHMONITORS, id, options);
