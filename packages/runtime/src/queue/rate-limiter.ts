/**
 * How long a failed key waits before its retry: per-key exponential backoff,
 * an overall token bucket, and their maximum, with controller-runtime's
 * defaults. Owns only the arithmetic of delays; it never sets timers or
 * touches a queue, which turns these delays into delayed adds.
 */
import { realClock, type Clock } from "./clock.js";

export interface RateLimiter<K = string> {
  /** Records one more retry of `key` and returns how many ms it should wait. */
  when(key: K): number;
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

/**
 * One bucket for all keys, limiting the overall retry rate. Each `when`
 * reserves a token, going into debt if none is left, and returns the wait
 * until that token exists, as golang.org/x/time/rate's Reserve does. Debt is
 * what makes back-to-back callers queue up at 1/qps apart instead of all
 * being told the same delay.
 */
export class TokenBucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.clock = options.clock ?? realClock;
    if (!(this.qps > 0 && Number.isFinite(this.qps))) throw new RangeError(`qps must be a positive finite number, got ${this.qps}`);
    if (!(this.burst >= 1)) throw new RangeError(`burst must be >= 1, got ${this.burst}`);
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_key: K): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  // The bucket is shared by all keys: there is no per-key history to forget.
  forget(_key: K): void {}

  retries(_key: K): number {
    return 0;
  }
}

/** The longest delay any of its limiters asks for; every limiter records each retry. */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(first: RateLimiter<K>, ...rest: RateLimiter<K>[]) {
    this.limiters = [first, ...rest];
  }

  when(key: K): number {
    // Every limiter must see every retry, so no short-circuit here.
    return Math.max(...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.retries(key)));
  }
}

export interface DefaultControllerRateLimiterOptions {
  /** Clock of the token bucket. Default `realClock`. */
  readonly clock?: Clock;
  /** Source of the backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * controller-runtime's default: per-key backoff from 5 ms to 1000 s, and at
 * most 10 retries per second overall with bursts of 100. The backoff carries
 * this package's default jitter, which controller-runtime's has not.
 */
export function defaultControllerRateLimiter<K = string>(options: DefaultControllerRateLimiterOptions = {}): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ExponentialFailureRateLimiter<K>({ baseDelayMs: 5, maxDelayMs: 1_000_000, random: options.random }),
    new TokenBucketRateLimiter<K>({ qps: 10, burst: 100, clock: options.clock }),
  );
}
