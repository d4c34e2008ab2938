/**
 * IPv4 arithmetic for the VPC rules: CIDRs as (network, prefix) pairs of
 * unsigned 32-bit numbers, containment and overlap, and host addresses.
 */

export interface Cidr {
  /** The address as written, masked or not. */
  readonly base: number;
  readonly prefix: number;
}

export function parseAddress(text: string): number | undefined {
  const octets = text.split(".");
  if (octets.length !== 4 || !octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)) return undefined;
  return octets.reduce((sum, octet) => sum * 256 + Number(octet), 0);
}

export function formatAddress(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
}

export function parseCidr(text: string): Cidr | undefined {
  const [address, bits, ...rest] = text.split("/");
  if (address === undefined || bits === undefined || rest.length > 0 || !/^\d{1,2}$/.test(bits) || Number(bits) > 32) return undefined;
  const base = parseAddress(address);
  return base === undefined ? undefined : { base, prefix: Number(bits) };
}

export function network(cidr: Cidr): number {
  return (cidr.base & mask(cidr.prefix)) >>> 0;
}

/** True when the written address is the network address (no host bits set), as VPC and subnet CIDRs must be. */
export function isNetworkAddress(cidr: Cidr): boolean {
  return network(cidr) === cidr.base;
}

export function size(cidr: Cidr): number {
  return 2 ** (32 - cidr.prefix);
}

export function contains(outer: Cidr, inner: Cidr): boolean {
  return inner.prefix >= outer.prefix && network({ base: inner.base, prefix: outer.prefix }) === network(outer);
}

export function overlap(a: Cidr, b: Cidr): boolean {
  return contains(a, b) || contains(b, a);
}

/** A usable host address of the CIDR: inside it, and neither its network nor its broadcast address. */
export function isHostOf(cidr: Cidr, address: number): boolean {
  const first = network(cidr);
  return address > first && address < first + size(cidr) - 1;
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}
