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
 * leadership at the deadline whatever the attempt in flight does. The
 * deadline counts from when the last successful attempt *began*: the server
 * may have committed it at once and the answer come late, and the other
 * replicas' lease duration runs from the commit.
 *
 * Caveats: `onStartedLeading` must stop acting when its signal aborts
 * (calls made with that signal do); leadership is only as exclusive as that.
 */
import { realClock, type Clock, type TimerHandle } from "../queue/clock.js";
import { LeaseHolder } from "./lease-holder.js";
import type { LeaseLock } from "./lease.js";

/** client-go's (and controller-runtime's) Lease timings: the defaults of the elector, the shard coordinator and the flags. */
export const DEFAULT_LEASE_TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

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
  /** Time, and the timers for deadlines and retries. Default `realClock`. */
  readonly clock?: Clock;
}

export class LeaderElector {
  private readonly holder: LeaseHolder;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private leading = false;

  constructor(private readonly options: LeaderElectorOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs;
    if (this.renewDeadlineMs >= this.leaseDurationMs) {
      throw new Error("renewDeadlineMs must be shorter than leaseDurationMs");
    }
    this.clock = options.clock ?? realClock;
    this.holder = new LeaseHolder({ lock: options.lock, identity: options.identity, leaseDurationMs: this.leaseDurationMs, now: () => this.clock.now() });
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
      const attemptedAt = this.clock.now();
      if (!(await this.attempt(this.renewDeadlineMs, signal))) {
        await this.pause(this.retryPeriodMs * (1 + Math.random() * 0.2), signal);
        continue;
      }
      await this.lead(attemptedAt, signal);
    }
    // Bounded: a hung API server must not hold the shutdown; the Lease then expires.
    await this.holder.release(AbortSignal.timeout(this.retryPeriodMs)).catch((err: unknown) => this.options.onError?.(err));
  }

  /**
   * Leads until `stop`, a lost Lease or the renew deadline, counted from
   * `acquiredAt`, when the acquiring attempt began. The deadline is a timer,
   * not a check after each renewal: a renewal that hangs must not keep this
   * replica leading past the point where another may take over.
   */
  private async lead(acquiredAt: number, stop: AbortSignal): Promise<void> {
    let deadline = acquiredAt + this.renewDeadlineMs;
    // An answer that came after the deadline: renew before acting at all.
    if (deadline <= this.clock.now()) return;
    const leading = new AbortController();
    const onStop = (): void => leading.abort();
    stop.addEventListener("abort", onStop, { once: true });
    const expire = (): TimerHandle => this.clock.setTimeout(() => leading.abort(), deadline - this.clock.now());
    let timer = expire();
    this.setLeading(true);
    const work = Promise.resolve()
      .then(() => this.options.onStartedLeading(leading.signal))
      .catch((err: unknown) => this.options.onError?.(err));
    while (!leading.signal.aborted) {
      await this.pause(this.retryPeriodMs, leading.signal);
      if (leading.signal.aborted) break;
      const attemptedAt = this.clock.now();
      if (await this.attempt(deadline - attemptedAt, leading.signal)) {
        deadline = attemptedAt + this.renewDeadlineMs;
        this.clock.clearTimeout(timer);
        timer = expire();
      } else if (!this.holder.held) {
        leading.abort();
      }
    }
    this.clock.clearTimeout(timer);
    stop.removeEventListener("abort", onStop);
    await work;
    this.setLeading(false);
    this.options.onStoppedLeading?.();
  }

  /** One acquire or renew, given up after `withinMs` by the clock. */
  private async attempt(withinMs: number, signal: AbortSignal): Promise<boolean> {
    const timeout = new AbortController();
    const timer = this.clock.setTimeout(() => timeout.abort(new DOMException("renew deadline passed", "TimeoutError")), Math.max(1, Math.ceil(withinMs)));
    try {
      return await this.holder.tryAcquireOrRenew(AbortSignal.any([signal, timeout.signal]));
    } catch (err) {
      this.options.onError?.(err);
      return false;
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** Waits `ms` by the clock, or until `signal` aborts. */
  private async pause(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.clock.clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.options.onLeadershipChange?.(leading);
  }
}
