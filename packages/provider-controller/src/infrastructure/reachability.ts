/**
 * Whether the infrastructure cluster answers, from a probe of its
 * `/readyz` (readable by every authenticated identity) on a fixed beat.
 * Its watch caches alone cannot tell: a cache that has synced once keeps
 * its last contents while the API server is gone, and a reconcile would
 * report that stale state as current. Unreachable after
 * `failuresToUnreachable` probes in a row fail or time out; reachable
 * again at the first that succeeds. Each change is told to `onChange`, so
 * that every tenant's cluster can say so at once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { RestClient } from "@edgeconnect/kcp-ts";

export interface ReachabilityOptions {
  readonly client: Pick<RestClient, "withSignal">;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  readonly failuresToUnreachable?: number;
  readonly onChange?: (reachable: boolean) => void;
  readonly now?: () => Date;
  readonly logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export const PROBE_INTERVAL_MS = 5_000;
export const PROBE_TIMEOUT_MS = 5_000;
/** One lost answer is noise; two in a row, ten seconds of silence, is an outage worth telling tenants of. */
export const FAILURES_TO_UNREACHABLE = 2;

export class InfrastructureReachability {
  #reachable = true;
  #since: Date;
  #failures = 0;

  constructor(private readonly options: ReachabilityOptions) {
    this.#since = this.now();
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** Since when the current state holds. */
  get since(): Date {
    return this.#since;
  }

  /** Probes until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.options.intervalMs ?? PROBE_INTERVAL_MS;
    while (!signal.aborted) {
      await this.probe(signal);
      await sleep(interval, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One probe: what `run` does on each beat. */
  async probe(signal: AbortSignal): Promise<void> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? PROBE_TIMEOUT_MS)]);
    try {
      await this.options.client.withSignal(deadline).request("GET", "/readyz");
    } catch (err) {
      if (signal.aborted) return;
      this.#failures++;
      if (this.#reachable && this.#failures >= (this.options.failuresToUnreachable ?? FAILURES_TO_UNREACHABLE)) {
        this.options.logger?.warn({ err, failures: this.#failures }, "the infrastructure cluster does not answer");
        this.change(false);
      }
      return;
    }
    this.#failures = 0;
    if (!this.#reachable) {
      this.options.logger?.info({}, "the infrastructure cluster answers again");
      this.change(true);
    }
  }

  private change(reachable: boolean): void {
    this.#reachable = reachable;
    this.#since = this.now();
    this.options.onChange?.(reachable);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
