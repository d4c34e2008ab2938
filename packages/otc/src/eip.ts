/**
 * Elastic IPs (VPC v1 `publicips`): allocate, read, list, bind to a port
 * (how a shared ELB v2 load balancer becomes public: bind to its
 * `vip_port_id`), unbind and release. Dedicated v3 LBs take their EIP at
 * creation instead; a v1 unbind does not detach an EIP from one.
 */
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { collect, listByMarker } from "./pagination.js";
import { createResource, deleteResource, getResource, updateResource, type ResourceType } from "./resource.js";

export type PublicIpStatus =
  | "FREEZED"
  | "BIND_ERROR"
  | "BINDING"
  | "PENDING_DELETE"
  | "PENDING_CREATE"
  | "PENDING_UPDATE"
  | "NOTIFYING"
  | "NOTIFY_DELETE"
  /** Unbound. */
  | "DOWN"
  /** Bound to a port. */
  | "ACTIVE"
  /** Bound to a load balancer. */
  | "ELB"
  | "VPN"
  | "ERROR";

export interface PublicIp {
  readonly id: string;
  readonly status: PublicIpStatus;
  readonly type: string;
  readonly public_ip_address: string;
  readonly ip_version: number;
  readonly port_id?: string | null;
  readonly private_ip_address?: string | null;
  readonly bandwidth_id?: string;
  readonly bandwidth_size?: number;
  readonly bandwidth_share_type?: "PER" | "WHOLE";
  readonly alias?: string;
  readonly create_time?: string;
}

export interface CreatePublicIp {
  /** Default `5_bgp`. */
  readonly type?: string;
  /** Default 4. */
  readonly ip_version?: 4 | 6;
  readonly alias?: string;
  readonly bandwidth: {
    /** 1–64 characters from [A-Za-z0-9_.-]. */
    readonly name: string;
    /** Mbit/s. */
    readonly size: number;
    /** Default `PER` (dedicated bandwidth); `WHOLE` shares the bandwidth `id`. */
    readonly share_type?: "PER" | "WHOLE";
    readonly charge_mode?: "traffic" | "bandwidth";
    readonly id?: string;
  };
}

function publicIps(client: OtcClient): ResourceType {
  return { service: "vpc", key: "publicip", collectionPath: `/v1/${client.projectId}/publicips` };
}

/** Allocates an EIP; it starts PENDING_CREATE and turns DOWN once usable. */
export function createPublicIp(client: OtcClient, spec: CreatePublicIp, options: OtcCallOptions = {}): Promise<PublicIp> {
  const { bandwidth, ...publicip } = spec;
  return createResource(
    client,
    publicIps(client),
    { type: "5_bgp", ip_version: 4, ...publicip },
    { bandwidth: { share_type: "PER", ...bandwidth } },
    options,
  );
}

/** Undefined if it does not exist. */
export function getPublicIp(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<PublicIp | undefined> {
  return getResource(client, publicIps(client), id, options);
}

export function listPublicIps(client: OtcClient, options: OtcCallOptions = {}): Promise<PublicIp[]> {
  const type = publicIps(client);
  return collect(listByMarker<PublicIp>(client, { service: type.service, path: type.collectionPath, itemsKey: "publicips" }, options));
}

/** Binds the EIP to a port, e.g. a shared load balancer's `vip_port_id`. */
export function bindPublicIp(client: OtcClient, id: string, portId: string, options: OtcCallOptions = {}): Promise<PublicIp> {
  return updateResource(client, publicIps(client), id, { port_id: portId }, options);
}

/** Unbinds the EIP from its port (an explicit null `port_id`). */
export function unbindPublicIp(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<PublicIp> {
  return updateResource(client, publicIps(client), id, { port_id: null }, options);
}

/**
 * Releases the EIP; false if it was already gone. OTC refuses (400/409) while
 * an unbind is still in progress: 409 is retried by the client, a 400 surfaces
 * for the caller's next reconcile.
 */
export function releasePublicIp(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> {
  return deleteResource(client, publicIps(client), id, options);
}
