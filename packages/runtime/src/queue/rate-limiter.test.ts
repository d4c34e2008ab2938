import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "./clock.js";
import {
  defaultControllerRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
  type RateLimiter,
} from "./rate-limiter.js";

const noJitter = { jitter: 0 } as const;

function delays(limiter: RateLimiter, key: string, count: number): number[] {
  return Array.from({ length: count }, () => limiter.when(key));
}

describe("ExponentialFailureRateLimiter", () => {
  describe("when", () => {
    it("doubles the delay with every retry of a key, starting at the base", () => {
      const limiter = new ExponentialFailureRateLimiter({ baseDelayMs: 5, ...noJitter });
      expect(delays(limiter, "a", 6)).toEqual([5, 10, 20, 40, 80, 160]);
    });

    it("caps the delay at maxDelayMs, even after enough retries to overflow 2^n", () => {
      const limiter = new ExponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 100, ...noJitter });
      expect(delays(limiter, "a", 7)).toEqual([5, 10, 20, 40, 80, 100, 100]);
      delays(limiter, "a", 1100);
      expect(limiter.when("a")).toBe(100);
      const zero = new ExponentialFailureRateLimiter({ baseDelayMs: 0, ...noJitter });
      delays(zero, "a", 1100);
      expect(zero.when("a")).toBe(0);
    });

    it("keeps a separate history per key", () => {
      const limiter = new ExponentialFailureRateLimiter(noJitter);
      delays(limiter, "a", 3);
      expect(limiter.when("b")).toBe(5);
      expect(limiter.when("a")).toBe(40);
    });

    it("shortens a delay by at most the jitter fraction, so the cap stays a bound", () => {
      const shortest = new ExponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 400, jitter: 0.25, random: () => 0.999_999 });
      const longest = new ExponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 400, jitter: 0.25, random: () => 0 });
      const low = delays(shortest, "a", 4);
      expect(delays(longest, "a", 4)).toEqual([100, 200, 400, 400]);
      [100, 200, 400, 400].forEach((full, i) => {
        expect(low[i]).toBeGreaterThan(full * 0.75);
        expect(low[i]).toBeLessThan(full);
      });
    });

    it("defaults to a 5 ms base and 10% jitter", () => {
      const limiter = new ExponentialFailureRateLimiter({ random: () => 0.5 });
      expect(delays(limiter, "a", 3)).toEqual([4.75, 9.5, 19]);
    });
  });

  describe("forget", () => {
    it("resets a key's backoff and retry count", () => {
      const limiter = new ExponentialFailureRateLimiter(noJitter);
      delays(limiter, "a", 4);
      expect(limiter.retries("a")).toBe(4);
      limiter.forget("a");
      expect(limiter.retries("a")).toBe(0);
      expect(limiter.when("a")).toBe(5);
    });
  });

  describe("constructor", () => {
    it("rejects options outside their range", () => {
      expect(() => new ExponentialFailureRateLimiter({ baseDelayMs: -1 })).toThrow(RangeError);
      expect(() => new ExponentialFailureRateLimiter({ maxDelayMs: Number.NaN })).toThrow(RangeError);
      expect(() => new ExponentialFailureRateLimiter({ jitter: 1.5 })).toThrow(RangeError);
    });
  });
});

describe("TokenBucketRateLimiter", () => {
  describe("when", () => {
    it("lets a burst through without delay, then spaces callers 1/qps apart", () => {
      const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock: new ManualClock() });
      expect(delays(limiter, "any", 6)).toEqual([0, 0, 0, 100, 200, 300]);
    });

    it("refills at qps, pays off debt first, and never holds more than the burst", () => {
      const clock = new ManualClock();
      const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock });
      delays(limiter, "a", 5);
      clock.advance(200);
      expect(limiter.when("a")).toBe(100);
      clock.advance(60_000);
      expect(delays(limiter, "a", 4)).toEqual([0, 0, 0, 100]);
    });

    it("shares one bucket across keys and keeps no per-key history", () => {
      const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock: new ManualClock() });
      expect(limiter.when("a")).toBe(0);
      expect(limiter.when("b")).toBe(1000);
      limiter.forget("b");
      expect(limiter.retries("a")).toBe(0);
      expect(limiter.when("c")).toBe(2000);
    });
  });

  describe("constructor", () => {
    it("rejects a rate or burst that could never let anything through", () => {
      expect(() => new TokenBucketRateLimiter({ qps: 0 })).toThrow(RangeError);
      expect(() => new TokenBucketRateLimiter({ qps: Number.POSITIVE_INFINITY })).toThrow(RangeError);
      expect(() => new TokenBucketRateLimiter({ burst: 0 })).toThrow(RangeError);
    });
  });
});

describe("MaxOfRateLimiter", () => {
  it("returns the longest delay while every limiter records the retry", () => {
    const clock = new ManualClock();
    const backoff = new ExponentialFailureRateLimiter({ baseDelayMs: 50, ...noJitter });
    const bucket = new TokenBucketRateLimiter({ qps: 10, burst: 2, clock });
    const limiter = new MaxOfRateLimiter(backoff, bucket);
    // backoff 50, 100, 200, 400; bucket 0, 0, 100, 200 (the bucket still counts the first two)
    expect(delays(limiter, "a", 4)).toEqual([50, 100, 200, 400]);
    expect(delays(limiter, "b", 2)).toEqual([300, 400]);
  });

  it("forgets in every limiter and reports the highest retry count", () => {
    const fast = new ExponentialFailureRateLimiter(noJitter);
    const slow = new ExponentialFailureRateLimiter({ baseDelayMs: 1000, ...noJitter });
    const limiter = new MaxOfRateLimiter(fast, slow);
    fast.when("a");
    delays(limiter, "a", 2);
    expect(limiter.retries("a")).toBe(3);
    limiter.forget("a");
    expect([fast.retries("a"), slow.retries("a"), limiter.retries("a")]).toEqual([0, 0, 0]);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("backs off per key from 5 ms up to 1000 s", () => {
    const limiter = defaultControllerRateLimiter({ clock: new ManualClock(), random: () => 0 });
    expect(delays(limiter, "a", 4)).toEqual([5, 10, 20, 40]);
    delays(limiter, "b", 40);
    expect(limiter.when("b")).toBe(1_000_000);
    limiter.forget("a");
    expect(limiter.when("a")).toBe(5);
  });

  it("lets 100 retries through in a burst, then 10 per second", () => {
    const limiter = defaultControllerRateLimiter({ clock: new ManualClock(), random: () => 0 });
    const first = Array.from({ length: 100 }, (_, i) => limiter.when(`k${i}`));
    expect(Math.max(...first)).toBe(5);
    expect(limiter.when("k100")).toBe(100);
    expect(limiter.when("k101")).toBe(200);
  });
});
