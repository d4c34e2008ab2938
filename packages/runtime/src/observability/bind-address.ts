/**
 * Bind addresses in the form controller-runtime's flags take them: Go's
 * `host:port`, where an empty host means every interface, port 0 asks for
 * an ephemeral port, and the whole address "0" turns the server off.
 */

/** Where a server listens; `host` undefined means every interface. */
export interface ListenAddress {
  host: string | undefined;
  port: number;
}

/** The address that switches a server off (controller-runtime's convention). */
export const DISABLED_ADDRESS = "0";

/**
 * ":8080" → every interface, port 8080; "127.0.0.1:0" → loopback, an
 * ephemeral port; "[::1]:9090" → IPv6 loopback; "0" → undefined (disabled).
 * Anything else, a bare port included, is rejected: Go would reject it too,
 * and an address that silently means something else is worse than an error.
 */
export function parseBindAddress(address: string): ListenAddress | undefined {
  if (address === DISABLED_ADDRESS) return undefined;
  const colon = address.lastIndexOf(":");
  const rawHost = address.slice(0, Math.max(colon, 0));
  const rawPort = address.slice(colon + 1);
  if (colon < 0 || !/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
    throw new Error(`invalid bind address ${JSON.stringify(address)}: want host:port, :port or "0"`);
  }
  const bracketed = rawHost.startsWith("[") && rawHost.endsWith("]");
  const host = bracketed ? rawHost.slice(1, -1) : rawHost;
  // An IPv6 host needs brackets, or its last group would read as the port.
  if (!bracketed && host.includes(":")) {
    throw new Error(`invalid bind address ${JSON.stringify(address)}: put an IPv6 host in brackets`);
  }
  return { host: host === "" ? undefined : host, port: Number(rawPort) };
}
