/**
 * The contract between the service controller and the ELB products: what a
 * Service's load balancer should look like (computed purely from the Service,
 * the nodes and cloud.conf) and the driver that makes one ELB product match
 * it. The controller decides *whether* to act; a driver decides *how* on its
 * API and must be idempotent: every call reads OTC first and changes only
 * what differs, so a crash anywhere is repaired by the next call.
 */
import type { EipPlan, ElbClass } from "./load-balancer-intent.js";

export type ListenerProtocol = "TCP" | "UDP";

export interface HealthMonitorSpec {
  /** TCP pools get TCP, UDP pools UDP_CONNECT, externalTrafficPolicy Local HTTP. */
  readonly type: "TCP" | "UDP_CONNECT" | "HTTP";
  /** Probed port when not the member's: the health-check node port for Local. */
  readonly port?: number;
  /** HTTP only: `/healthz`. */
  readonly urlPath?: string;
  readonly delaySeconds: number;
  readonly timeoutSeconds: number;
  readonly maxRetries: number;
}

/** One Service port: a listener, its pool, the pool's health monitor; members are the nodes. */
export interface PortSpec {
  readonly protocol: ListenerProtocol;
  /** The listener's port (the Service port). */
  readonly port: number;
  /** The members' port. */
  readonly nodePort: number;
  /** Listener and pool name, unique within the LB: `<protocol>-<port>` lower-case. */
  readonly name: string;
  readonly monitor: HealthMonitorSpec;
  /** spec.sessionAffinity ClientIP → SOURCE_IP persistence. */
  readonly sessionAffinity: boolean;
}

export interface MemberSpec {
  /** The node's InternalIP. */
  readonly address: string;
  /** The node's name, as the member name. */
  readonly name: string;
}

export interface DesiredLoadBalancer {
  /** `kube_<cluster>_<namespace>_<service>`. */
  readonly name: string;
  /** `kubernetes.io/service-uid=<uid>`: the ownership marker. */
  readonly description: string;
  readonly serviceUid: string;
  readonly elbClass: ElbClass;
  readonly eip: EipPlan;
  /** cloud.conf subnet-id (Neutron subnet): VIP and members live here. */
  readonly subnetId: string;
  /** cloud.conf network-id; dedicated only. */
  readonly networkId?: string;
  readonly ports: readonly PortSpec[];
  /** Sorted by name. */
  readonly members: readonly MemberSpec[];
}

/** The addresses a Service's status.loadBalancer.ingress shows. */
export interface LoadBalancerStatus {
  readonly ingress: readonly { readonly ip: string }[];
}

/** What a driver found under a Service's LB name. */
export type Lookup =
  | { readonly state: "absent" }
  /** Ours: the description carries the Service's UID. */
  | { readonly state: "owned"; readonly id: string; readonly status: LoadBalancerStatus }
  /** Our name, another (or no) UID: never adopted, changed or deleted. */
  | { readonly state: "foreign"; readonly id: string };

/** One ELB product (shared v2 or dedicated v3) behind the same verbs. */
export interface LoadBalancerDriver {
  readonly elbClass: ElbClass;
  /** Looks the LB up by name; several with the name: owned wins if one is ours. */
  find(name: string, serviceUid: string): Promise<Lookup>;
  /**
   * Creates or updates the LB, its listeners, pools, members, monitors and
   * EIP to match `desired`, deleting surplus ones it owns; returns the
   * ingress. Never touches a foreign LB (throws ForeignLoadBalancerError).
   */
  ensure(desired: DesiredLoadBalancer): Promise<LoadBalancerStatus>;
  /**
   * Deletes the owned LB bottom-up (monitors, members, pools, listeners,
   * LB) and releases the EIP the CCM created for it; a BYO EIP is only
   * unbound. A no-op when absent or foreign. Idempotent across crashes.
   */
  delete(name: string, serviceUid: string): Promise<void>;
  /**
   * The same driver whose every OTC call also ends when `signal` aborts: a
   * reconcile binds its own, so a stop or a lost Lease ends its cloud calls.
   */
  withSignal(signal: AbortSignal): LoadBalancerDriver;
}

/** An LB with the Service's name belongs to someone else. */
export class ForeignLoadBalancerError extends Error {
  override readonly name = "ForeignLoadBalancerError";
}

/** The EIP the Service names cannot be used (missing, bound elsewhere). */
export class EipUnavailableError extends Error {
  override readonly name = "EipUnavailableError";
}
