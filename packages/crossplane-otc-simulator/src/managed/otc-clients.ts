/**
 * One OTC client per distinct credentials, shared by every MR that uses
 * them, as the provider shares a Terraform provider instance per
 * configuration: connection pools, IAM tokens and the discovered project
 * stay warm across reconciles. A failed connect is not kept, so the next
 * reconcile tries again (a fixed Secret takes effect at once).
 */
import { createHash } from "node:crypto";
import { abortable, connectOtcClient, type OtcClient } from "@edgeconnect/otc";
import type { ConnectOptions } from "./credentials.js";

/** How long a connect (project discovery, the first token) may take. */
const CONNECT_TIMEOUT_MS = 30_000;

export class OtcClients {
  private readonly clients = new Map<string, Promise<OtcClient>>();

  constructor(
    /** Most clients kept; the least recently used is closed beyond it. */
    private readonly capacity = 32,
    private readonly connect: (options: ConnectOptions, signal: AbortSignal) => Promise<OtcClient> = (options, signal) =>
      connectOtcClient(options, { signal }),
  ) {}

  /** The client for `options`, connecting it on first use. */
  async get(options: ConnectOptions, signal: AbortSignal): Promise<OtcClient> {
    const key = fingerprint(options);
    let pending = this.clients.get(key);
    if (pending === undefined) {
      // Not bound to this reconcile's signal: other reconciles may wait for the same connect.
      pending = this.connect(options, AbortSignal.timeout(CONNECT_TIMEOUT_MS));
      this.clients.set(key, pending);
      this.evict();
      pending.catch(() => {
        if (this.clients.get(key) === pending) this.clients.delete(key);
      });
    } else {
      // Most recently used last.
      this.clients.delete(key);
      this.clients.set(key, pending);
    }
    const client = await abortable(pending, signal);
    return client.withSignal(signal);
  }

  /** Closes every client's connections. */
  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    for (const settled of await Promise.allSettled(all)) if (settled.status === "fulfilled") settled.value.close();
  }

  private evict(): void {
    while (this.clients.size > this.capacity) {
      const [oldest] = this.clients;
      if (oldest === undefined) return;
      this.clients.delete(oldest[0]);
      oldest[1].then(
        (client) => client.close(),
        () => undefined,
      );
    }
  }
}

/** A digest, so that the map holds no credential as a key. */
function fingerprint(options: ConnectOptions): string {
  return createHash("sha256").update(JSON.stringify(options)).digest("hex");
}
