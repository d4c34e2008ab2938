/**
 * InstancesV2 as k8s.io/cloud-provider defines it, and its ECS
 * implementation. The node controllers only ever ask through this interface.
 *
 * The rule that keeps nodes alive through outages: an instance "does not
 * exist" only when ECS said so, i.e. a 404 for the providerID's server or no
 * server of exactly the node's name. Every other failure throws, and the
 * controllers treat a throw as "don't know".
 */
import { getServer, listServersByName, type OtcClient, type Server } from "@edgeconnect/otc";
import type { Node, NodeAddress } from "../kube/objects.js";
import { nodeAddresses } from "./node-addresses.js";
import { formatProviderId, InvalidProviderIdError, parseProviderId } from "./provider-id.js";

export interface InstanceMetadata {
  readonly providerId: string;
  readonly instanceType: string;
  readonly addresses: readonly NodeAddress[];
  readonly zone: string;
  readonly region: string;
}

export interface InstancesV2 {
  /** False only when the cloud definitely has no such instance; throws when it cannot tell. */
  instanceExists(node: Node): Promise<boolean>;
  /** True when the instance exists and is shut down. */
  instanceShutdown(node: Node): Promise<boolean>;
  /** Undefined when the instance does not exist. */
  instanceMetadata(node: Node): Promise<InstanceMetadata | undefined>;
  /** The same instances whose every cloud call also ends when `signal` aborts (a reconcile's). */
  withSignal(signal: AbortSignal): InstancesV2;
}

/** Several servers carry the node's name: picking one could label or delete the wrong node. */
export class AmbiguousInstanceError extends Error {
  override readonly name = "AmbiguousInstanceError";

  constructor(
    readonly nodeName: string,
    readonly serverIds: readonly string[],
  ) {
    super(`${serverIds.length} ECS servers are named ${JSON.stringify(nodeName)} (${serverIds.join(", ")}); set the node's providerID to choose one`);
  }
}

const SHUTOFF = "SHUTOFF";

export class OtcInstances implements InstancesV2 {
  constructor(
    private readonly client: OtcClient,
    private readonly region: string,
  ) {}

  withSignal(signal: AbortSignal): OtcInstances {
    return new OtcInstances(this.client.withSignal(signal), this.region);
  }

  async instanceExists(node: Node): Promise<boolean> {
    return (await this.server(node)) !== undefined;
  }

  async instanceShutdown(node: Node): Promise<boolean> {
    return (await this.server(node))?.status === SHUTOFF;
  }

  async instanceMetadata(node: Node): Promise<InstanceMetadata | undefined> {
    const server = await this.server(node);
    if (server === undefined) return undefined;
    return {
      providerId: formatProviderId(server.id),
      instanceType: server.flavor?.name ?? server.flavor?.id ?? "",
      addresses: nodeAddresses(server, node),
      zone: server["OS-EXT-AZ:availability_zone"] ?? "",
      region: this.region,
    };
  }

  /** By spec.providerID when set (never falling back to the name: the ID is authoritative), else by exact name. */
  private async server(node: Node): Promise<Server | undefined> {
    const providerId = node.spec?.providerID ?? "";
    if (providerId !== "") {
      const serverId = parseProviderId(providerId);
      if (serverId === undefined) throw new InvalidProviderIdError(providerId);
      return getServer(this.client, serverId);
    }
    const name = node.metadata?.name ?? "";
    const servers = await listServersByName(this.client, name);
    if (servers.length > 1) throw new AmbiguousInstanceError(name, servers.map((server) => server.id));
    return servers[0];
  }
}
