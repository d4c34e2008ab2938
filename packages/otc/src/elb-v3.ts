/**
 * ELB v3 dedicated load balancers under `/v3/{project_id}/elb/`: load
 * balancers, listeners, pools, members and health monitors. Unlike shared
 * LBs, a dedicated LB gets its public IP at creation (`publicip_ids` for an
 * existing EIP, or `publicip` for a new one); an LB update has no EIP field.
 * Lists page with `page_info.next_marker`; list filters take arrays. The
 * status and session-persistence types are the same as v2's (elb-v2.ts).
 */
import type { OperatingStatus, ProvisioningStatus, SessionPersistence } from "./elb-v2.js";
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { collect, listByPageInfo } from "./pagination.js";
import { createResource, deleteResource, getResource, refersTo, updateResource, type Ref, type ResourceType } from "./resource.js";

export interface LoadBalancerV3 {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly vip_address: string;
  readonly vip_port_id: string;
  readonly vip_subnet_cidr_id?: string;
  readonly vpc_id: string;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
  readonly admin_state_up: boolean;
  readonly availability_zone_list: readonly string[];
  readonly elb_virsubnet_ids?: readonly string[];
  readonly l4_flavor_id?: string | null;
  readonly l7_flavor_id?: string | null;
  readonly publicips?: readonly { readonly publicip_id: string; readonly publicip_address: string; readonly ip_version: number }[];
  readonly eips?: readonly { readonly eip_id: string; readonly eip_address: string; readonly ip_version: number }[];
  readonly listeners: readonly Ref[];
  readonly pools: readonly Ref[];
  readonly created_at?: string;
}

/** A new EIP created with the LB. */
export interface NewPublicIpV3 {
  /** Default 4. */
  readonly ip_version?: 4 | 6;
  /** e.g. `5_bgp`. */
  readonly network_type: string;
  readonly description?: string;
  readonly bandwidth: {
    readonly name?: string;
    /** Mbit/s. */
    readonly size?: number;
    readonly charge_mode?: "bandwidth" | "traffic";
    readonly share_type?: "PER" | "WHOLE";
    /** An existing shared bandwidth (with share_type WHOLE). */
    readonly id?: string;
  };
}

export interface CreateLoadBalancerV3 {
  readonly name?: string;
  /** ≤ 255 characters; the CCM's ownership marker lives here. */
  readonly description?: string;
  /** Required. */
  readonly availability_zone_list: readonly string[];
  /** The `neutron_subnet_id` of a VPC subnet. vpc_id, vip_subnet_cidr_id and ipv6_vip_virsubnet_id cannot all be empty. */
  readonly vip_subnet_cidr_id?: string;
  readonly vip_address?: string;
  readonly vpc_id?: string;
  /** `neutron_network_id` values: the subnets the LB uses to reach backends. */
  readonly elb_virsubnet_ids?: readonly string[];
  /** Without flavors the site default is used. */
  readonly l4_flavor_id?: string;
  readonly l7_flavor_id?: string;
  /** Existing EIPs to bind. */
  readonly publicip_ids?: readonly string[];
  readonly publicip?: NewPublicIpV3;
  readonly ip_target_enable?: boolean;
  readonly deletion_protection_enable?: boolean;
  readonly admin_state_up?: boolean;
  readonly tags?: readonly { readonly key: string; readonly value: string }[];
}

export type ListenerProtocolV3 = "TCP" | "UDP" | "HTTP" | "HTTPS" | "TERMINATED_HTTPS";

export interface ListenerV3 {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly protocol: ListenerProtocolV3;
  readonly protocol_port: number;
  readonly default_pool_id: string | null;
  readonly loadbalancers: readonly Ref[];
  readonly transparent_client_ip_enable?: boolean;
  readonly keepalive_timeout?: number;
  readonly admin_state_up: boolean;
}

export interface ListenerSettingsV3 {
  readonly name?: string;
  readonly description?: string;
  readonly default_pool_id?: string | null;
  /** Seconds; TCP 10–4000, default 300. */
  readonly keepalive_timeout?: number;
  readonly client_timeout?: number;
  readonly member_timeout?: number;
  /** Dedicated LBs only accept true; backends then see real client IPs, so security groups must allow them. */
  readonly transparent_client_ip_enable?: boolean;
  readonly admin_state_up?: boolean;
}

export interface CreateListenerV3 extends ListenerSettingsV3 {
  readonly loadbalancer_id: string;
  readonly protocol: ListenerProtocolV3;
  /** 1–65535. */
  readonly protocol_port: number;
}

export type LbAlgorithmV3 = "ROUND_ROBIN" | "LEAST_CONNECTIONS" | "SOURCE_IP" | "QUIC_CID";
export type PoolProtocolV3 = "TCP" | "UDP" | "HTTP" | "HTTPS" | "QUIC";

export interface PoolV3 {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly protocol: PoolProtocolV3;
  readonly lb_algorithm: LbAlgorithmV3;
  readonly session_persistence: SessionPersistence | null;
  readonly healthmonitor_id: string | null;
  readonly listeners: readonly Ref[];
  readonly loadbalancers: readonly Ref[];
  readonly members: readonly Ref[];
  readonly admin_state_up: boolean;
}

export interface PoolSettingsV3 {
  readonly name?: string;
  readonly description?: string;
  readonly lb_algorithm?: LbAlgorithmV3;
  readonly session_persistence?: SessionPersistence | null;
  readonly slow_start?: { readonly enable: boolean; readonly duration: number } | null;
  readonly member_deletion_protection_enable?: boolean;
  readonly admin_state_up?: boolean;
}

export interface CreatePoolV3 extends PoolSettingsV3 {
  readonly protocol: PoolProtocolV3;
  readonly lb_algorithm: LbAlgorithmV3;
  /** One of listener_id and loadbalancer_id is required. */
  readonly listener_id?: string;
  readonly loadbalancer_id?: string;
  readonly type?: "instance" | "ip" | "";
  readonly vpc_id?: string;
}

export interface MemberV3 {
  readonly id: string;
  readonly name: string;
  readonly address: string;
  readonly protocol_port: number;
  readonly subnet_cidr_id?: string | null;
  readonly weight: number;
  readonly admin_state_up: boolean;
  readonly operating_status?: OperatingStatus;
  readonly ip_version?: string;
}

export interface MemberSettingsV3 {
  readonly name?: string;
  /** 0–100, default 1. */
  readonly weight?: number;
  readonly admin_state_up?: boolean;
}

export interface CreateMemberV3 extends MemberSettingsV3 {
  readonly address: string;
  readonly protocol_port: number;
  /** The backend's subnet; omitted only for "IP as backend". */
  readonly subnet_cidr_id?: string;
}

export type HealthMonitorTypeV3 = "TCP" | "UDP_CONNECT" | "HTTP" | "HTTPS";

export interface HealthMonitorSettingsV3 {
  readonly name?: string;
  readonly delay?: number;
  readonly timeout?: number;
  readonly max_retries?: number;
  readonly max_retries_down?: number;
  readonly monitor_port?: number | null;
  readonly url_path?: string;
  readonly http_method?: string;
  readonly expected_codes?: string;
  readonly domain_name?: string;
  readonly admin_state_up?: boolean;
}

export interface HealthMonitorV3 extends HealthMonitorSettingsV3 {
  readonly id: string;
  readonly type: HealthMonitorTypeV3;
  readonly pools: readonly Ref[];
}

/** Security groups must allow the health checkers' 100.125.0.0/16. */
export interface CreateHealthMonitorV3 extends HealthMonitorSettingsV3 {
  readonly pool_id: string;
  /** UDP pools require UDP_CONNECT. */
  readonly type: HealthMonitorTypeV3;
  readonly delay: number;
  readonly timeout: number;
  readonly max_retries: number;
}

function types(client: OtcClient): Record<"loadbalancers" | "listeners" | "pools" | "healthmonitors", ResourceType> {
  const base = `/v3/${client.projectId}/elb`;
  return {
    loadbalancers: { service: "elb", key: "loadbalancer", collectionPath: `${base}/loadbalancers` },
    listeners: { service: "elb", key: "listener", collectionPath: `${base}/listeners` },
    pools: { service: "elb", key: "pool", collectionPath: `${base}/pools` },
    healthmonitors: { service: "elb", key: "healthmonitor", collectionPath: `${base}/healthmonitors` },
  };
}

function members(client: OtcClient, poolId: string): ResourceType {
  return { service: "elb", key: "member", collectionPath: `/v3/${client.projectId}/elb/pools/${encodeURIComponent(poolId)}/members` };
}

function list<T>(
  client: OtcClient,
  type: ResourceType,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  options: OtcCallOptions,
): Promise<T[]> {
  return collect(listByPageInfo<T>(client, { service: type.service, path: type.collectionPath, itemsKey: `${type.key}s`, query }, options));
}

export const createLoadBalancerV3 = (client: OtcClient, spec: CreateLoadBalancerV3, options: OtcCallOptions = {}): Promise<LoadBalancerV3> =>
  createResource(client, types(client).loadbalancers, spec, {}, options);
export const getLoadBalancerV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<LoadBalancerV3 | undefined> =>
  getResource(client, types(client).loadbalancers, id, options);
/** Names are not unique; filter by the ownership description where it matters. */
export const listLoadBalancersV3 = async (
  client: OtcClient,
  filter: { readonly name?: string; readonly description?: string } = {},
  options: OtcCallOptions = {},
): Promise<LoadBalancerV3[]> =>
  (
    await list<LoadBalancerV3>(
      client,
      types(client).loadbalancers,
      {
        name: filter.name === undefined ? undefined : [filter.name],
        description: filter.description === undefined ? undefined : [filter.description],
      },
      options,
    )
  ).filter(
    (lb) => (filter.name === undefined || lb.name === filter.name) && (filter.description === undefined || lb.description === filter.description),
  );
/** False if it was already gone. Listeners and pools must be deleted first; its EIPs are not released. */
export const deleteLoadBalancerV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, types(client).loadbalancers, id, options);

export const createListenerV3 = (client: OtcClient, spec: CreateListenerV3, options: OtcCallOptions = {}): Promise<ListenerV3> =>
  createResource(client, types(client).listeners, spec, {}, options);
export const deleteListenerV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, types(client).listeners, id, options);
export const listListenersV3 = async (client: OtcClient, loadBalancerId: string, options: OtcCallOptions = {}): Promise<ListenerV3[]> =>
  (await list<ListenerV3>(client, types(client).listeners, { loadbalancer_id: [loadBalancerId] }, options)).filter((l) =>
    refersTo(l.loadbalancers, loadBalancerId),
  );

export const createPoolV3 = (client: OtcClient, spec: CreatePoolV3, options: OtcCallOptions = {}): Promise<PoolV3> =>
  createResource(client, types(client).pools, spec, {}, options);
export const updatePoolV3 = (client: OtcClient, id: string, spec: PoolSettingsV3, options: OtcCallOptions = {}): Promise<PoolV3> =>
  updateResource(client, types(client).pools, id, spec, options);
export const deletePoolV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, types(client).pools, id, options);
export const listPoolsV3 = async (client: OtcClient, loadBalancerId: string, options: OtcCallOptions = {}): Promise<PoolV3[]> =>
  (await list<PoolV3>(client, types(client).pools, { loadbalancer_id: [loadBalancerId] }, options)).filter((p) =>
    refersTo(p.loadbalancers, loadBalancerId),
  );

export const createMemberV3 = (client: OtcClient, poolId: string, spec: CreateMemberV3, options: OtcCallOptions = {}): Promise<MemberV3> =>
  createResource(client, members(client, poolId), spec, {}, options);
export const deleteMemberV3 = (client: OtcClient, poolId: string, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, members(client, poolId), id, options);
export const listMembersV3 = (client: OtcClient, poolId: string, options: OtcCallOptions = {}): Promise<MemberV3[]> =>
  list(client, members(client, poolId), {}, options);

export const createHealthMonitorV3 = (client: OtcClient, spec: CreateHealthMonitorV3, options: OtcCallOptions = {}): Promise<HealthMonitorV3> =>
  createResource(client, types(client).healthmonitors, spec, {}, options);
export const updateHealthMonitorV3 = (
  client: OtcClient,
  id: string,
  spec: HealthMonitorSettingsV3,
  options: OtcCallOptions = {},
): Promise<HealthMonitorV3> => updateResource(client, types(client).healthmonitors, id, spec, options);
export const getHealthMonitorV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<HealthMonitorV3 | undefined> =>
  getResource(client, types(client).healthmonitors, id, options);
export const deleteHealthMonitorV3 = (client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> =>
  deleteResource(client, types(client).healthmonitors, id, options);
