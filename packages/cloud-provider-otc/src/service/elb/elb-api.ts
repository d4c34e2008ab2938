/**
 * The ELB calls the reconciler makes, as one interface over the shared (v2)
 * and dedicated (v3) products. Below the load balancer both APIs take the
 * same bodies (except the member's subnet field), so each product supplies
 * its client functions and the reconciliation is written once.
 */
import type { OtcClient } from "@edgeconnect/otc";
import type { ListenerProtocol } from "../load-balancer.js";

/** The fields of a v2 or v3 load balancer the drivers read. */
export interface LoadBalancerView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly vip_address: string;
  readonly vip_port_id: string;
  readonly provisioning_status: string;
  readonly listeners: readonly { readonly id: string }[];
  /** v3 only: the EIPs bound at creation. */
  readonly publicips?: readonly { readonly publicip_id: string; readonly publicip_address: string }[];
}

export interface ListenerView {
  readonly id: string;
  readonly protocol: string;
  readonly protocol_port: number;
  readonly default_pool_id: string | null;
}

export interface PoolView {
  readonly id: string;
  readonly protocol: string;
  readonly lb_algorithm: string;
  readonly session_persistence: { readonly type: string } | null;
  readonly healthmonitor_id: string | null;
  readonly listeners: readonly { readonly id: string }[];
}

export interface MemberView {
  readonly id: string;
  readonly address: string;
  readonly protocol_port: number;
}

export interface MonitorSettings {
  readonly delay: number;
  readonly timeout: number;
  readonly max_retries: number;
  readonly monitor_port?: number | null;
  readonly url_path?: string;
}

/** v3 answers may leave settings out, hence Partial. */
export interface MonitorView extends Partial<MonitorSettings> {
  readonly id: string;
  readonly type: string;
}

export interface PoolSettings {
  readonly lb_algorithm: "ROUND_ROBIN";
  readonly session_persistence?: { readonly type: "SOURCE_IP" };
}

export interface NewMember {
  readonly address: string;
  readonly protocol_port: number;
  readonly name: string;
  /** The Neutron subnet of the node: v2 `subnet_id`, v3 `subnet_cidr_id`. */
  readonly subnetId: string;
}

export interface ElbApi {
  getLoadBalancer(client: OtcClient, id: string): Promise<LoadBalancerView | undefined>;
  listLoadBalancers(client: OtcClient, filter: { readonly name: string }): Promise<LoadBalancerView[]>;
  deleteLoadBalancer(client: OtcClient, id: string): Promise<boolean>;
  listListeners(client: OtcClient, loadBalancerId: string): Promise<ListenerView[]>;
  createListener(
    client: OtcClient,
    spec: { readonly loadbalancer_id: string; readonly protocol: ListenerProtocol; readonly protocol_port: number; readonly name: string },
  ): Promise<ListenerView>;
  deleteListener(client: OtcClient, id: string): Promise<boolean>;
  listPools(client: OtcClient, loadBalancerId: string): Promise<PoolView[]>;
  createPool(
    client: OtcClient,
    spec: PoolSettings & { readonly listener_id: string; readonly protocol: ListenerProtocol; readonly name: string },
  ): Promise<PoolView>;
  updatePool(client: OtcClient, id: string, spec: PoolSettings): Promise<PoolView>;
  deletePool(client: OtcClient, id: string): Promise<boolean>;
  listMembers(client: OtcClient, poolId: string): Promise<MemberView[]>;
  createMember(client: OtcClient, poolId: string, member: NewMember): Promise<MemberView>;
  deleteMember(client: OtcClient, poolId: string, id: string): Promise<boolean>;
  getHealthMonitor(client: OtcClient, id: string): Promise<MonitorView | undefined>;
  createHealthMonitor(
    client: OtcClient,
    spec: MonitorSettings & { readonly pool_id: string; readonly type: "TCP" | "UDP_CONNECT" | "HTTP" },
  ): Promise<MonitorView>;
  updateHealthMonitor(client: OtcClient, id: string, spec: Partial<MonitorSettings>): Promise<MonitorView>;
  deleteHealthMonitor(client: OtcClient, id: string): Promise<boolean>;
}
