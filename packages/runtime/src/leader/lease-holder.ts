/**
 * One attempt at a time to hold a Lease: acquire it if free or expired, renew
 * it if ours. Owns no timers; the leader elector (and the shard coordinator)
 * decide when to try.
 *
 * Another holder's Lease counts as expired by local observation
 * (lease-observation.ts), never by its remote timestamps.
 */
import { LeaseObservation } from "./lease-observation.js";
import { microTime, type Lease, type LeaseLock, type LeaseSpec } from "./lease.js";

export interface LeaseHolderOptions {
  readonly lock: LeaseLock;
  /** This replica's identity, unique among replicas (e.g. pod name + random suffix). */
  readonly identity: string;
  /** How long a Lease stays ours without renewal. */
  readonly leaseDurationMs: number;
  /**
   * Milliseconds on a monotonic clock, for expiry. Default performance.now:
   * a wall clock stepped by NTP would stretch or shrink a lease.
   */
  readonly now?: () => number;
  /** The time written into acquireTime and renewTime. Default `new Date()`. */
  readonly wallClock?: () => Date;
}

export class LeaseHolder {
  private readonly observation = new LeaseObservation();
  private readonly now: () => number;
  private readonly wallClock: () => Date;

  constructor(private readonly options: LeaseHolderOptions) {
    this.now = options.now ?? (() => performance.now());
    this.wallClock = options.wallClock ?? (() => new Date());
  }

  /** The identity that held the Lease when we last looked ("" if released). */
  get observedHolder(): string | undefined {
    return this.observation.holder;
  }

  /** Whether we held it at our last successful acquire or renew. */
  get held(): boolean {
    return this.observation.holder === this.options.identity;
  }

  /**
   * Notes the Lease as seen in a list, so that its expiry clock starts when
   * it last changed rather than when we first tried to take it.
   */
  observe(lease: Lease): void {
    this.observation.observe(lease, this.now());
  }

  /**
   * Acquires or renews. Resolves true when the Lease is ours now; false when
   * another holder's Lease is still valid or another writer won the race.
   * Network errors reject; the caller decides how long to keep trying, and
   * `signal` bounds the attempt (the caller's deadline).
   *
   * Timing, both ways on the safe side: another holder's record is clocked
   * from when its answer reached us (it may have been renewed while our
   * request travelled), our own write from when this attempt began (the
   * server may have committed it at once).
   */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const { lock, identity } = this.options;
    const attemptedAt = this.now();
    const lease = await lock.get(signal);
    if (lease === undefined) {
      return this.record(await lock.create(this.nextSpec(undefined), signal), attemptedAt);
    }
    const seenAt = this.now();
    this.observation.observe(lease, seenAt);
    const valid = this.observation.validHolder(seenAt);
    if (valid !== undefined && valid !== identity) return false;
    return this.record(await lock.update(lease, this.nextSpec(lease.spec ?? {}), signal), attemptedAt);
  }

  /**
   * Gives the Lease up if we hold it, so another replica need not wait for it
   * to expire. Best effort: a failure leaves it to expire.
   */
  async release(signal?: AbortSignal): Promise<void> {
    const lease = await this.options.lock.get(signal);
    if (lease?.spec?.holderIdentity !== this.options.identity) return;
    const released = await this.options.lock.update(lease, { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1 }, signal);
    this.record(released, this.now());
  }

  private nextSpec(current: LeaseSpec | undefined): LeaseSpec {
    const mine = current?.holderIdentity === this.options.identity;
    const time = microTime(this.wallClock());
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      acquireTime: mine && current?.acquireTime !== undefined ? current.acquireTime : time,
      renewTime: time,
      leaseTransitions: (current?.leaseTransitions ?? 0) + (mine || current === undefined ? 0 : 1),
    };
  }

  /** Our own write always yields a new resourceVersion, so its clock starts at `writtenAt`. */
  private record(lease: Lease | undefined, writtenAt: number): boolean {
    if (lease === undefined) return false;
    this.observation.observe(lease, writtenAt);
    return this.held;
  }
}
