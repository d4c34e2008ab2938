/**
 * Leader election on one Lease, with client-go's timing: try every
 * `retryPeriodMs` until the Lease is ours, then renew at the same period;
 * if renewals keep failing for `renewDeadlineMs`, stop leading. The renew
 * deadline is shorter than the lease duration, so a leader that cannot renew
 * stops its work before any other replica may take over.
 *
 * Usage:
 *   const elector = new LeaderElector({ lock, identity, onStartedLeading: (signal) => runControllers(signal) });
 *   await elector.run(shutdownSignal);   // returns after shutdown, Lease released
 *
 * Exclusivity holds when calls hang, not only when they fail: every attempt
 * is bounded by what is left of the renew deadline, and a timer ends
 * leadership at the deadline whatever the attempt in flight does.
 *
 * Caveats: `onStartedLeading` must stop acting when its signal aborts
 * (calls made with that signal do); leadership is only as exclusive as that.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { LeaseHolder } from "./lease-holder.js";
import type { LeaseLock } from "./lease.js";

export interface LeaderElectorOptions {
  readonly lock: LeaseLock;
  readonly identity: string;
  /** Default 15 s (controller-runtime's). */
  readonly leaseDurationMs?: number;
  /** Default 10 s; must be below leaseDurationMs. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. Attempts to acquire are jittered up to +20 %. */
  readonly retryPeriodMs?: number;
  /** Runs while leading; its signal aborts when leadership ends. */
  readonly onStartedLeading: (signal: AbortSignal) => Promise<void> | void;
  /** Called after the leading work has returned. */
  readonly onStoppedLeading?: () => void;
  /** Reports leadership changes (leader_election_master_status). */
  readonly onLeadershipChange?: (leading: boolean) => void;
  /** Errors while talking to the API server; they are retried. */
  readonly onError?: (err: unknown) => void;
  /** Milliseconds on a monotonic clock. Default performance.now. */
  readonly now?: () => number;
}

export class LeaderElector {
  private readonly holder: LeaseHolder;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private leading = false;

  constructor(private readonly options: LeaderElectorOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) {
      throw new Error("renewDeadlineMs must be shorter than leaseDurationMs");
    }
    this.now = options.now ?? (() => performance.now());
    this.holder = new LeaseHolder({ lock: options.lock, identity: options.identity, leaseDurationMs: this.leaseDurationMs, now: this.now });
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The identity that held the Lease when last seen. */
  get leader(): string | undefined {
    return this.holder.observedHolder;
  }

  /** Campaigns, leads, and campaigns again after losing, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.attempt(AbortSignal.any([signal, AbortSignal.timeout(this.renewDeadlineMs)])))) {
        await pause(this.retryPeriodMs * (1 + Math.random() * 0.2), signal);
        continue;
      }
      await this.lead(signal);
    }
    // Bounded: a hung API server must not hold the shutdown; the Lease then expires.
    await this.holder.release(AbortSignal.timeout(this.retryPeriodMs)).catch((err: unknown) => this.options.onError?.(err));
  }

  /**
   * Leads until `stop`, a lost Lease or the renew deadline. The deadline is a
   * timer, not a check after each renewal: a renewal that hangs must not
   * keep this replica leading past the point where another may take over.
   */
  private async lead(stop: AbortSignal): Promise<void> {
    const leading = new AbortController();
    const onStop = (): void => leading.abort();
    stop.addEventListener("abort", onStop, { once: true });
    let renewedAt = this.now();
    const expire = (): NodeJS.Timeout => setTimeout(() => leading.abort(), this.renewDeadlineMs);
    let deadline = expire();
    this.setLeading(true);
    const work = Promise.resolve()
      .then(() => this.options.onStartedLeading(leading.signal))
      .catch((err: unknown) => this.options.onError?.(err));
    while (!leading.signal.aborted) {
      await pause(this.retryPeriodMs, leading.signal);
      if (leading.signal.aborted) break;
      const left = Math.max(1, Math.ceil(renewedAt + this.renewDeadlineMs - this.now()));
      if (await this.attempt(AbortSignal.any([leading.signal, AbortSignal.timeout(left)]))) {
        renewedAt = this.now();
        clearTimeout(deadline);
        deadline = expire();
      } else if (!this.holder.held) {
        leading.abort();
      }
    }
    clearTimeout(deadline);
    stop.removeEventListener("abort", onStop);
    await work;
    this.setLeading(false);
    this.options.onStoppedLeading?.();
  }

  private async attempt(signal: AbortSignal): Promise<boolean> {
    try {
      return await this.holder.tryAcquireOrRenew(signal);
    } catch (err) {
      this.options.onError?.(err);
      return false;
    }
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.options.onLeadershipChange?.(leading);
  }
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
