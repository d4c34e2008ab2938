/**
 * ECS (Elastic Cloud Server) v1: what the node controller reads about a
 * server: by ID, and by exact name.
 */
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { collect, listByPageNumber } from "./pagination.js";
import { getResource } from "./resource.js";

export type ServerStatus =
  | "ACTIVE"
  | "BUILD"
  | "ERROR"
  | "HARD_REBOOT"
  | "MIGRATING"
  | "REBOOT"
  | "REBUILD"
  | "RESIZE"
  | "REVERT_RESIZE"
  | "SHUTOFF"
  | "VERIFY_RESIZE"
  | "DELETED"
  | "SHELVED"
  | "SHELVED_OFFLOADED";

export interface ServerAddress {
  /** "4" or "6", a string in ECS answers. */
  readonly version: string;
  readonly addr: string;
  readonly "OS-EXT-IPS:type"?: "fixed" | "floating";
  readonly "OS-EXT-IPS-MAC:mac_addr"?: string;
  readonly "OS-EXT-IPS:port_id"?: string;
}

export interface Server {
  readonly id: string;
  readonly name: string;
  /** Unknown values are possible in newer API versions. */
  readonly status: ServerStatus | (string & {});
  readonly flavor?: { readonly id: string; readonly name?: string };
  readonly "OS-EXT-AZ:availability_zone"?: string;
  readonly "OS-EXT-SRV-ATTR:hostname"?: string;
  readonly "OS-EXT-STS:vm_state"?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly tags?: readonly string[];
  /** Keyed by VPC ID. */
  readonly addresses?: Readonly<Record<string, readonly ServerAddress[]>>;
}

/**
 * The server, or undefined if ECS answers 404. Every other failure throws
 * (`OtcApiError`), so a transient error is never mistaken for a deleted node.
 */
export async function getServer(client: OtcClient, serverId: string, options: OtcCallOptions = {}): Promise<Server | undefined> {
  return getResource<Server>(client, { service: "ecs", key: "server", collectionPath: `/v1/${client.projectId}/cloudservers` }, serverId, options);
}

/** Servers named exactly `name`. ECS matches `name` fuzzily (`.` is a wildcard), so results are filtered here. */
export async function listServersByName(client: OtcClient, name: string, options: OtcCallOptions = {}): Promise<Server[]> {
  const servers = await collect(
    listByPageNumber<Server>(
      client,
      { service: "ecs", path: `/v1/${client.projectId}/cloudservers/detail`, itemsKey: "servers", query: { name } },
      options,
    ),
  );
  return servers.filter((server) => server.name === name);
}
