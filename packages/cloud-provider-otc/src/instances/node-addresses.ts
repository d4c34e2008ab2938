/**
 * A node's addresses from its ECS server, as k8s.io/cloud-provider wants
 * them: `fixed` ECS addresses are InternalIPs, `floating` ones (EIPs)
 * ExternalIPs, and the node name is the Hostname.
 *
 * kubelet `--node-ip` reaches the cloud provider as the annotation
 * `alpha.kubernetes.io/provided-node-ip` (one IP, or an IPv4,IPv6 pair).
 * Each IP in it must be one of the cloud's addresses; the matching
 * addresses come first and every other address *of the same type* is
 * dropped, as cloud-provider's `GetNodeAddressesFromNodeIP` does, so the IP
 * the admin chose is the one the cluster uses.
 */
import { isIP } from "node:net";
import type { Server } from "@edgeconnect/otc";
import { ANNOTATION_PROVIDED_NODE_IP, type Node, type NodeAddress, type NodeAddressType } from "../kube/objects.js";

/** The annotation cannot be honoured: unparsable, or not an address the cloud knows for the server. */
export class ProvidedNodeIpError extends Error {
  override readonly name = "ProvidedNodeIpError";
}

const ECS_ADDRESS_TYPES: Readonly<Record<string, NodeAddressType>> = { fixed: "InternalIP", floating: "ExternalIP" };
const TYPE_ORDER: readonly NodeAddressType[] = ["InternalIP", "ExternalIP"];

/** Addresses of `server` for `node`, the provided node IP honoured; throws ProvidedNodeIpError when it cannot be. */
export function nodeAddresses(server: Server, node: Node): NodeAddress[] {
  return preferProvidedNodeIp(serverAddresses(server, node.metadata?.name ?? ""), node.metadata?.annotations?.[ANNOTATION_PROVIDED_NODE_IP]);
}

/**
 * InternalIPs, then ExternalIPs, then the Hostname. VPCs are taken in ID
 * order because ECS does not promise a stable key order, and a reordering
 * alone must not rewrite the node's status. Addresses of unknown type are
 * left out rather than guessed.
 */
export function serverAddresses(server: Server, hostname: string): NodeAddress[] {
  const found: NodeAddress[] = [];
  const vpcs = Object.keys(server.addresses ?? {}).sort();
  for (const type of TYPE_ORDER) {
    for (const vpc of vpcs) {
      for (const address of server.addresses?.[vpc] ?? []) {
        const mapped = ECS_ADDRESS_TYPES[address["OS-EXT-IPS:type"] ?? ""];
        if (mapped === type) addOnce(found, { type, address: address.addr });
      }
    }
  }
  if (hostname !== "") addOnce(found, { type: "Hostname", address: hostname });
  return found;
}

/**
 * `addresses` reordered and filtered for the provided node IP(s) in
 * `annotation`; unchanged when there is no annotation.
 */
export function preferProvidedNodeIp(addresses: readonly NodeAddress[], annotation: string | undefined): NodeAddress[] {
  if (annotation === undefined) return [...addresses];
  const chosen: NodeAddress[] = [];
  const enforcedTypes = new Set<NodeAddressType>();
  for (const ip of parseProvidedNodeIps(annotation)) {
    const matches = addresses.filter((address) => sameIp(address.address, ip));
    if (matches.length === 0) throw new ProvidedNodeIpError(`the provided node IP ${ip} is not among the cloud's addresses for this node`);
    for (const match of matches) {
      chosen.push(match);
      enforcedTypes.add(match.type);
    }
  }
  return [...chosen, ...addresses.filter((address) => !enforcedTypes.has(address.type))];
}

/** One IP, or a dual-stack pair of one IPv4 and one IPv6, comma-separated, as kubelet writes it. */
function parseProvidedNodeIps(annotation: string): string[] {
  const ips = annotation.split(",");
  for (const ip of ips) {
    if (isIP(ip) === 0) throw new ProvidedNodeIpError(`cannot parse the provided node IP ${JSON.stringify(ip)}`);
  }
  const [first, second] = ips;
  const dualStack = ips.length === 2 && first !== undefined && second !== undefined && isIP(first) !== isIP(second);
  if (ips.length > 2 || (ips.length === 2 && !dualStack)) {
    throw new ProvidedNodeIpError(`the provided node IP ${JSON.stringify(annotation)} must be a single IP or a dual-stack pair`);
  }
  if (ips.length === 2 && ips.some(isUnspecified)) {
    throw new ProvidedNodeIpError("a dual-stack provided node IP cannot include 0.0.0.0 or ::");
  }
  return ips;
}

function sameIp(address: string, ip: string): boolean {
  const family = isIP(address);
  return family !== 0 && family === isIP(ip) && canonicalIp(address) === canonicalIp(ip);
}

/** IPv6 has many spellings of one address; the URL parser writes the canonical one. */
function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname : ip;
}

function isUnspecified(ip: string): boolean {
  return canonicalIp(ip) === "0.0.0.0" || canonicalIp(ip) === "[::]";
}

function addOnce(addresses: NodeAddress[], address: NodeAddress): void {
  if (!addresses.some((existing) => existing.type === address.type && existing.address === address.address)) addresses.push(address);
}
