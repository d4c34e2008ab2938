import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "./clock.js";
import {
  defaultControllerRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  reserveToken,
  TenantTokenBucketRateLimiter,
  TokenBucketRateLimiter,
  type RateLimiter,
} from "./rate-limiter.js";

const noJitter = { jitter: 0 } as const;

function delays(limiter: RateLimiter, key: string, count: number, tenant = "t"): number[] {
  return Array.from({ length: count }, () => limiter.when(key, tenant));
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

describe("reserveToken", () => {
  it("is free while the bucket is at most burst tokens short, then costs 1/qps per token of debt", () => {
    let fullAt = 0;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reservation = reserveToken(fullAt, 0, 10, 3);
      fullAt = reservation.fullAt;
      waits.push(reservation.delayMs);
    }
    expect(waits).toEqual([0, 0, 0, 100, 200]);
    expect(fullAt).toBe(500);
  });

  it("treats a refill time in the past as a full bucket, never as saved-up tokens", () => {
    expect(reserveToken(0, 60_000, 10, 3)).toEqual({ fullAt: 60_100, delayMs: 0 });
    expect(reserveToken(Number.NEGATIVE_INFINITY, 5, 10, 1)).toEqual({ fullAt: 105, delayMs: 0 });
  });

  it("lets time pay off debt before the next reservation", () => {
    expect(reserveToken(1000, 700, 10, 3)).toEqual({ fullAt: 1100, delayMs: 100 });
    expect(reserveToken(1000, 800, 10, 3)).toEqual({ fullAt: 1100, delayMs: 0 });
  });
});

describe("TenantTokenBucketRateLimiter", () => {
  describe("when", () => {
    it("gives each tenant a bucket of its own, shared by that tenant's keys", () => {
      const limiter = new TenantTokenBucketRateLimiter({ qps: 10, burst: 3, clock: new ManualClock() });
      expect([0, 1, 2, 3, 4].map((i) => limiter.when(`noisy-${i}`, "noisy"))).toEqual([0, 0, 0, 100, 200]);
      expect([0, 1, 2, 3].map((i) => limiter.when(`quiet-${i}`, "quiet"))).toEqual([0, 0, 0, 100]);
      expect(limiter.when("noisy-5", "noisy")).toBe(300);
    });

    it("refills each bucket at qps, as the overall bucket does", () => {
      const clock = new ManualClock();
      const perTenant = new TenantTokenBucketRateLimiter({ qps: 10, burst: 3, clock });
      const overall = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock });
      const both = (): number[] => [perTenant.when("a", "t"), overall.when("a")];
      const seen: number[][] = [];
      for (const step of [0, 0, 0, 0, 0, 200, 50, 1000, 0, 0, 0]) {
        clock.advance(step);
        seen.push(both());
      }
      expect(seen.map(([tenant]) => tenant)).toEqual([0, 0, 0, 100, 200, 100, 150, 0, 0, 0, 100]);
      expect(seen.map(([, shared]) => shared)).toEqual(seen.map(([tenant]) => tenant));
    });
  });

  describe("tenants", () => {
    it("holds a bucket only until it has refilled, however many tenants retried", () => {
      const clock = new ManualClock();
      const limiter = new TenantTokenBucketRateLimiter({ qps: 10, burst: 100, clock });
      for (let i = 0; i < 10_000; i++) limiter.when("k", `tenant-${i}`);
      expect(limiter.tenants).toBe(10_000);
      clock.advance(99);
      expect(limiter.tenants).toBe(10_000);
      clock.advance(1);
      expect(limiter.tenants).toBe(0);
    });

    it("keeps a bucket that is still short, dropping the refilled ones around it", () => {
      const clock = new ManualClock();
      const limiter = new TenantTokenBucketRateLimiter({ qps: 10, burst: 2, clock });
      limiter.when("k", "a");
      delays(limiter, "k", 4, "busy");
      limiter.when("k", "b");
      clock.advance(100);
      expect(limiter.tenants).toBe(1);
      clock.advance(299);
      expect(limiter.tenants).toBe(1);
      expect(limiter.when("k", "busy")).toBe(0);
      clock.advance(101);
      expect(limiter.tenants).toBe(0);
    });

    it("after a refill, answers as a limiter that never saw the tenant", () => {
      const clock = new ManualClock();
      const limiter = new TenantTokenBucketRateLimiter({ qps: 10, burst: 3, clock });
      delays(limiter, "k", 8, "a");
      clock.advance(800);
      expect(delays(limiter, "k", 5, "a")).toEqual(delays(new TenantTokenBucketRateLimiter({ qps: 10, burst: 3, clock }), "k", 5, "a"));
    });
  });

  describe("forget and retries", () => {
    it("keep no per-key history: the budget belongs to the tenant", () => {
      const limiter = new TenantTokenBucketRateLimiter({ qps: 1, burst: 1, clock: new ManualClock() });
      expect(limiter.when("a", "t")).toBe(0);
      limiter.forget("a");
      expect(limiter.retries("a")).toBe(0);
      expect(limiter.when("a", "t")).toBe(1000);
    });
  });

  describe("constructor", () => {
    it("rejects a rate or burst that could never let anything through", () => {
      expect(() => new TenantTokenBucketRateLimiter({ qps: 0 })).toThrow(RangeError);
      expect(() => new TenantTokenBucketRateLimiter({ qps: Number.NaN })).toThrow(RangeError);
      expect(() => new TenantTokenBucketRateLimiter({ burst: 0.5 })).toThrow(RangeError);
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
    expect(limiter.when("b", "t")).toBe(1_000_000);
    limiter.forget("a");
    expect(limiter.when("a", "t")).toBe(5);
  });

  it("lets 100 retries of a tenant through in a burst, then 10 per second", () => {
    const limiter = defaultControllerRateLimiter({ clock: new ManualClock(), random: () => 0 });
    const first = Array.from({ length: 100 }, (_, i) => limiter.when(`k${i}`, "t"));
    expect(Math.max(...first)).toBe(5);
    expect(limiter.when("k100", "t")).toBe(100);
    expect(limiter.when("k101", "t")).toBe(200);
  });

  it("gives every tenant that budget of its own, whatever another tenant's keys spent", () => {
    const clock = new ManualClock();
    const limiter = defaultControllerRateLimiter({ clock, random: () => 0 });
    for (let i = 0; i < 1000; i++) limiter.when(`noisy-${i}`, "noisy");
    expect(limiter.when("noisy-1000", "noisy")).toBe(90_100);
    const quiet = Array.from({ length: 100 }, (_, i) => limiter.when(`quiet-${i}`, "quiet"));
    expect(Math.max(...quiet)).toBe(5);
    expect(limiter.when("quiet-100", "quiet")).toBe(100);
  });
});
