/**
 * Waiting for OTC to finish what it does asynchronously: an ELB accepts the
 * next change only once ACTIVE again, and a new EIP binds only once it has
 * left PENDING_CREATE.
 */
import { getPublicIp, type OtcClient, type PublicIp } from "@edgeconnect/otc";
import type { ElbApi, LoadBalancerView } from "./elb-api.js";

export interface PollOptions {
  /** Between reads. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** Give up (throw) after this long; the next reconcile continues. Default 300 000 ms. */
  readonly pollTimeoutMs?: number;
}

export class Poller {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(options: PollOptions = {}) {
    this.intervalMs = options.pollIntervalMs ?? 1000;
    this.timeoutMs = options.pollTimeoutMs ?? 300_000;
  }

  /** Reads until `done` holds; `what` names the wait in the timeout error. */
  async until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() >= deadline) throw new Error(`timed out after ${this.timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }
}

/** The LB once ACTIVE; throws if it is gone or in ERROR, which waiting does not fix. */
export async function waitActive(client: OtcClient, api: ElbApi, poller: Poller, id: string): Promise<LoadBalancerView> {
  const lb = await waitSettled(client, api, poller, id);
  if (lb === undefined) throw new Error(`load balancer ${id} disappeared`);
  return lb;
}

/** The LB once ACTIVE, or undefined once gone (a PENDING_DELETE ends there). */
export async function waitSettled(client: OtcClient, api: ElbApi, poller: Poller, id: string): Promise<LoadBalancerView | undefined> {
  const lb = await poller.until(
    () => api.getLoadBalancer(client, id),
    (found) => found === undefined || found.provisioning_status === "ACTIVE" || found.provisioning_status === "ERROR",
    `load balancer ${id} to become ACTIVE`,
  );
  if (lb?.provisioning_status === "ERROR") throw new Error(`load balancer ${id} is in provisioning status ERROR`);
  return lb;
}

/** The EIP once it can be bound or attached (no longer PENDING_CREATE). */
export async function waitEipUsable(client: OtcClient, poller: Poller, eip: PublicIp): Promise<PublicIp> {
  if (eip.status !== "PENDING_CREATE") return eip;
  const ready = await poller.until(
    () => getPublicIp(client, eip.id),
    (found) => found === undefined || found.status !== "PENDING_CREATE",
    `EIP ${eip.id} to finish allocation`,
  );
  if (ready === undefined) throw new Error(`EIP ${eip.id} disappeared`);
  return ready;
}
