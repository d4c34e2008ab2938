/**
 * One attempt at a time to hold a Lease: acquire it if free or expired, renew
 * it if ours. Owns no timers; the leader elector (and the shard coordinator)
 * decide when to try.
 *
 * Expiry is judged by local observation, as client-go does: a Lease held by
 * someone else counts as expired only when its record has not changed for
 * `leaseDurationSeconds` *as measured by our clock since we saw it change*.
 * Remote timestamps are written for people and never compared, so clock skew
 * between replicas cannot make two holders.
 */
import { microTime, type Lease, type LeaseLock, type LeaseSpec } from "./lease.js";

export interface LeaseHolderOptions {
  readonly lock: LeaseLock;
  /** This replica's identity, unique among replicas (e.g. pod name + random suffix). */
  readonly identity: string;
  /** How long a Lease stays ours without renewal. */
  readonly leaseDurationMs: number;
  /** Milliseconds now. Default Date.now. */
  readonly now?: () => number;
}

interface Observation {
  readonly resourceVersion: string | undefined;
  readonly spec: LeaseSpec;
  /** Local time when this record was first seen. */
  readonly at: number;
}

export class LeaseHolder {
  private observed: Observation | undefined;
  private readonly now: () => number;

  constructor(private readonly options: LeaseHolderOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The identity that held the Lease when we last looked ("" if released). */
  get observedHolder(): string | undefined {
    return this.observed?.spec.holderIdentity;
  }

  /** Whether we held it at our last successful acquire or renew. */
  get held(): boolean {
    return this.observed?.spec.holderIdentity === this.options.identity;
  }

  /**
   * Notes the Lease as seen in a list, so that its expiry clock starts when
   * it last changed rather than when we first tried to take it.
   */
  observe(lease: Lease): void {
    if (this.observed?.resourceVersion === lease.metadata?.resourceVersion) return;
    this.observed = { resourceVersion: lease.metadata?.resourceVersion, spec: lease.spec ?? {}, at: this.now() };
  }

  /**
   * Acquires or renews. Resolves true when the Lease is ours now; false when
   * another holder's Lease is still valid or another writer won the race.
   * Network errors reject; the caller decides how long to keep trying.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { lock, identity } = this.options;
    const now = this.now();
    const lease = await lock.get();
    if (lease === undefined) {
      return this.record(await lock.create(this.nextSpec(undefined, now)), now);
    }
    const spec = lease.spec ?? {};
    this.observe(lease);
    const holder = spec.holderIdentity ?? "";
    const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== "" && holder !== identity && (this.observed?.at ?? now) + durationMs > now) return false;
    return this.record(await lock.update(lease, this.nextSpec(spec, now)), now);
  }

  /**
   * Gives the Lease up if we hold it, so another replica need not wait for it
   * to expire. Best effort: a failure leaves it to expire.
   */
  async release(): Promise<void> {
    const lease = await this.options.lock.get();
    if (lease?.spec?.holderIdentity !== this.options.identity) return;
    const released = await this.options.lock.update(lease, { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1 });
    this.record(released, this.now());
  }

  private nextSpec(current: LeaseSpec | undefined, now: number): LeaseSpec {
    const mine = current?.holderIdentity === this.options.identity;
    const time = microTime(new Date(now));
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      acquireTime: mine && current?.acquireTime !== undefined ? current.acquireTime : time,
      renewTime: time,
      leaseTransitions: (current?.leaseTransitions ?? 0) + (mine || current === undefined ? 0 : 1),
    };
  }

  private record(lease: Lease | undefined, now: number): boolean {
    if (lease === undefined) return false;
    this.observed = { resourceVersion: lease.metadata?.resourceVersion, spec: lease.spec ?? {}, at: now };
    return this.held;
  }
}
