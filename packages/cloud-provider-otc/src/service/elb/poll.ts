/**
 * Waiting for OTC to finish what it does asynchronously: an ELB accepts the
 * next change only once ACTIVE again, and a new EIP binds only once it has
 * left PENDING_CREATE.
 */
import { getPublicIp, type OtcClient, type PublicIp } from "@edgeconnect/otc";
import type { ElbApi, LoadBalancerView } from "./elb-api.js";

export interface PollOptions {
  /** The longest pause between reads; the first pause is shorter and doubles up to this. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** Give up (throw) after this long; the next reconcile continues. Default 300 000 ms. */
  readonly pollTimeoutMs?: number;
  /** Pauses between reads. Default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The first pause. Every ELB change is followed by a wait for ACTIVE, and a
 * Service takes one change per port object and member, so a fixed pause of
 * a second cost about a second per change although OTC's transitions are
 * often shorter: the pause starts here and doubles instead.
 */
const FIRST_PAUSE_MS = 50;

export class Poller {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: PollOptions = {}) {
    this.intervalMs = options.pollIntervalMs ?? 1000;
    this.timeoutMs = options.pollTimeoutMs ?? 300_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Reads until `done` holds; `what` names the wait in the timeout error. */
  async until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (let pause = Math.min(FIRST_PAUSE_MS, this.intervalMs); ; pause = Math.min(pause * 2, this.intervalMs)) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() >= deadline) throw new Error(`timed out after ${this.timeoutMs} ms waiting for ${what}`);
      await this.sleep(pause);
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
