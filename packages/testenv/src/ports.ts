/**
 * Free loopback ports. The kernel picks a port for a throwaway listener; the
 * port may be taken again before the server binds it (parallel test workers
 * probe the same range), so servers are started through `startOnFreePorts`,
 * which launches them again on fresh ports when that happened.
 */
import { createServer } from "node:net";
import type { ServerProcess } from "./server-process.js";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port assigned"));
      });
    });
  });
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Launches of a server whose ports were taken before it bound them, before its start fails. */
export const BIND_ATTEMPTS = 3;

export interface PortBoundStart<S> {
  /** Picks fresh ports and starts the server's process. */
  launch(): Promise<S>;
  /** Resolves once the launched server serves; rejects when it exited or did not in time. */
  ready(server: S): Promise<unknown>;
  processOf(server: S): ServerProcess;
}

/**
 * A server, once it serves. A launch that fails and whose log says a port
 * was already in use is stopped and launched again, up to `BIND_ATTEMPTS`
 * times; any other failure stops it and is thrown at once.
 */
export async function startOnFreePorts<S>(start: PortBoundStart<S>): Promise<S> {
  for (let attempt = 1; ; attempt++) {
    const server = await start.launch();
    try {
      await start.ready(server);
      return server;
    } catch (err) {
      const process = start.processOf(server);
      await process.stop();
      if (!/address already in use/.test(process.logTail(60)) || attempt === BIND_ATTEMPTS) throw err;
    }
  }
}
