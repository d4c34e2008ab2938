/**
 * How long a failed key waits before its retry: per-key exponential backoff,
 * token buckets (one overall, or one per tenant), and their maximum, with
 * controller-runtime's defaults. Owns only the arithmetic of delays; it never
 * sets timers or touches a queue, which turns these delays into delayed adds.
 */
import { realClock, type Clock } from "./clock.js";
import { TimerHeap } from "./timer-heap.js";

export interface RateLimiter<K = string> {
  /**
   * Records one more retry of `key`, which belongs to `tenant`, and returns
   * how many ms it should wait. The caller names the tenant because it
   * already knows it (the queue schedules by tenant); limiters with no
   * per-tenant budget ignore it.
   */
  when(key: K, tenant: string): number;
  /** Clears `key`'s history: it succeeded, or it is gone. */
  forget(key: K): void;
  /** Retries recorded for `key` since it was last forgotten. */
  retries(key: K): number;
}

export interface ExponentialFailureOptions {
  /** Delay of the first retry, in ms. Default 5. */
  readonly baseDelayMs?: number;
  /** Upper bound of every delay, in ms. Default 1,000,000 (about 16.7 minutes). */
  readonly maxDelayMs?: number;
  /**
   * Fraction, in [0, 1], by which a delay is shortened at random. Default 0.1.
   * Keys that failed together (an API server outage) would otherwise retry in
   * lockstep at every step of the backoff; the jitter only ever shortens, so
   * `maxDelayMs` stays a hard bound and keeps spreading keys stuck at the cap.
   */
  readonly jitter?: number;
  /** Source of uniform numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * Per key: `baseDelayMs * 2^retries`, capped at `maxDelayMs`, less jitter.
 * Like client-go's ItemExponentialFailureRateLimiter, plus the jitter.
 */
export class ExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(options: ExponentialFailureOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
    this.jitter = options.jitter ?? 0.1;
    this.random = options.random ?? Math.random;
    if (!(this.baseDelayMs >= 0)) throw new RangeError(`baseDelayMs must be >= 0, got ${this.baseDelayMs}`);
    if (!(this.maxDelayMs >= 0)) throw new RangeError(`maxDelayMs must be >= 0, got ${this.maxDelayMs}`);
    if (!(this.jitter >= 0 && this.jitter <= 1)) throw new RangeError(`jitter must be in [0, 1], got ${this.jitter}`);
  }

  when(key: K): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    // Past 2^1023 a double is Infinity, and a zero base times Infinity is NaN.
    const delay = Math.min(this.baseDelayMs * 2 ** Math.min(failures, 1023), this.maxDelayMs);
    return delay - delay * this.jitter * this.random();
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

export interface TokenBucketOptions {
  /** Tokens added per second: the sustained rate. Default 10. */
  readonly qps?: number;
  /** Bucket size: how many may go at once after a quiet spell. Default 100. */
  readonly burst?: number;
  /** Default `realClock`. */
  readonly clock?: Clock;
}

/** A token bucket after one reservation: when it is full again, and the wait for the token. */
export interface Reservation {
  readonly fullAt: number;
  readonly delayMs: number;
}

/**
 * Reserves one token of a bucket whose whole state is the time it is full
 * again (`fullAt`, at or before `now` for a full bucket): each token pushes
 * that time 1/qps later, and a token is free while the bucket is at most
 * `burst` tokens short. This is golang.org/x/time/rate's Reserve (debt
 * included, so back-to-back callers queue up 1/qps apart instead of all
 * being told the same delay) in the form of the generic cell rate algorithm,
 * where a full bucket and a forgotten one are the same number.
 */
export function reserveToken(fullAt: number, now: number, qps: number, burst: number): Reservation {
  const next = Math.max(fullAt, now) + 1000 / qps;
  return { fullAt: next, delayMs: Math.max(0, next - now - (burst * 1000) / qps) };
}

function validateBucket(qps: number, burst: number): void {
  if (!(qps > 0 && Number.isFinite(qps))) throw new RangeError(`qps must be a positive finite number, got ${qps}`);
  if (!(burst >= 1)) throw new RangeError(`burst must be >= 1, got ${burst}`);
}

/** One bucket for all keys and tenants, limiting the overall retry rate (see `reserveToken`). */
export class TokenBucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private fullAt: number;

  constructor(options: TokenBucketOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.clock = options.clock ?? realClock;
    validateBucket(this.qps, this.burst);
    this.fullAt = this.clock.now();
  }

  when(_key: K): number {
    const reservation = reserveToken(this.fullAt, this.clock.now(), this.qps, this.burst);
    this.fullAt = reservation.fullAt;
    return reservation.delayMs;
  }

  // The bucket is shared by all keys: there is no per-key history to forget.
  forget(_key: K): void {}

  retries(_key: K): number {
    return 0;
  }
}

/**
 * A token bucket per tenant: one tenant's failing keys spend only its own
 * retry budget, so they cannot delay the retries of another tenant.
 *
 * Memory follows the tenants that retried lately, not all that ever did:
 * a bucket that has refilled is the same as no bucket, so each call drops
 * the refilled ones, earliest first, from a heap by refill time. A bucket
 * lives 1/qps per token it is short after its tenant's last retry (at most
 * 10 s at the defaults, plus any debt), and a call costs O(log tenants).
 */
export class TenantTokenBucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  // Tenant -> when its bucket is full again; only buckets not yet full.
  private readonly buckets = new TimerHeap<undefined>();

  constructor(options: TokenBucketOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.clock = options.clock ?? realClock;
    validateBucket(this.qps, this.burst);
  }

  /** Tenants whose bucket has not refilled yet: what this limiter holds in memory. */
  get tenants(): number {
    this.evictFull(this.clock.now());
    return this.buckets.size;
  }

  when(_key: K, tenant: string): number {
    const now = this.clock.now();
    this.evictFull(now);
    const reservation = reserveToken(this.buckets.dueAt(tenant) ?? now, now, this.qps, this.burst);
    this.buckets.reschedule(tenant, undefined, reservation.fullAt);
    return reservation.delayMs;
  }

  // Budgets belong to tenants: there is no per-key history to forget.
  forget(_key: K): void {}

  retries(_key: K): number {
    return 0;
  }

  private evictFull(now: number): void {
    for (let top = this.buckets.peek(); top !== undefined && top.dueAt <= now; top = this.buckets.peek()) this.buckets.pop();
  }
}

/** The longest delay any of its limiters asks for; every limiter records each retry. */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(first: RateLimiter<K>, ...rest: RateLimiter<K>[]) {
    this.limiters = [first, ...rest];
  }

  when(key: K, tenant: string): number {
    // Every limiter must see every retry, so no short-circuit here.
    return Math.max(...this.limiters.map((limiter) => limiter.when(key, tenant)));
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.retries(key)));
  }
}

export interface DefaultControllerRateLimiterOptions {
  /** Clock of the token buckets. Default `realClock`. */
  readonly clock?: Clock;
  /** Source of the backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * controller-runtime's default, with its bucket per tenant: per-key backoff
 * from 5 ms to 1000 s, and at most 10 retries per second with bursts of 100
 * for each tenant, where controller-runtime allows that for all keys
 * together. One shared bucket lets a tenant with many failing keys spend
 * every other tenant's retries; per tenant, each gets controller-runtime's
 * whole budget. The backoff carries this package's default jitter, which
 * controller-runtime's has not.
 */
export function defaultControllerRateLimiter<K = string>(options: DefaultControllerRateLimiterOptions = {}): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ExponentialFailureRateLimiter<K>({ baseDelayMs: 5, maxDelayMs: 1_000_000, random: options.random }),
    new TenantTokenBucketRateLimiter<K>({ qps: 10, burst: 100, clock: options.clock }),
  );
}
