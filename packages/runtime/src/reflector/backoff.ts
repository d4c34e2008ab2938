/**
 * Delays between retries of one failing loop: exponential growth, a cap,
 * ±jitter so that many reflectors failing together (a server restart) do not
 * come back in lockstep, and a reset once the loop has been healthy for a
 * while.
 *
 * Owns: the arithmetic and the failure count. Must not: sleep, or decide what
 * counts as a failure (the caller says so by calling `next`).
 */

export interface BackoffOptions {
  /** Delay after the first failure, before jitter. Default 800 ms. */
  readonly initialMs?: number;
  /** Growth per consecutive failure. Default 2. */
  readonly factor?: number;
  /** No delay exceeds this, jitter included. Default 30 000 ms. */
  readonly maxMs?: number;
  /**
   * Jitter as a fraction of the delay: the delay is drawn uniformly from
   * `base × (1 ± jitter)` (and then capped at `maxMs`). Proportional rather
   * than full jitter (0..base) so that a retry is never almost immediate,
   * which matters when the failure is a server closing watches at once.
   * Default 0.2; 0 turns jitter off.
   */
  readonly jitter?: number;
  /** After this long without a failure, the next one starts over at `initialMs`. Default 120 000 ms. */
  readonly resetAfterMs?: number;
  /** Uniform in [0, 1). Default Math.random; tests inject their own. */
  readonly random?: () => number;
  /** A monotonic clock in ms. Default performance.now; tests inject their own. */
  readonly now?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly factor: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private consecutive = 0;
  private lastFailureAt = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.factor = options.factor ?? 2;
    this.maxMs = options.maxMs ?? 30_000;
    this.jitter = options.jitter ?? 0.2;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => performance.now());
    if (this.initialMs < 0 || this.factor < 1 || this.maxMs < this.initialMs || this.jitter < 0 || this.jitter > 1) {
      throw new RangeError("backoff needs 0 ≤ initialMs ≤ maxMs, factor ≥ 1 and 0 ≤ jitter ≤ 1");
    }
  }

  /** Consecutive failures counted since the last reset. */
  get failures(): number {
    return this.consecutive;
  }

  /** Records a failure and returns how long to wait before the next attempt, in whole ms. */
  next(): number {
    const now = this.now();
    if (this.consecutive > 0 && now - this.lastFailureAt >= this.resetAfterMs) this.consecutive = 0;
    this.lastFailureAt = now;
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.consecutive);
    this.consecutive += 1;
    const jittered = base * (1 + this.jitter * (2 * this.random() - 1));
    return Math.round(Math.min(this.maxMs, Math.max(0, jittered)));
  }
}
