import { describe, expect, it } from "@jest/globals";
import { Backoff } from "./backoff.js";

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 0;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

describe("Backoff", () => {
  it("grows exponentially from 800 ms by a factor of 2 by default", () => {
    const backoff = new Backoff({ random: () => 0.5, now: manualClock().now });
    expect([1, 2, 3, 4, 5].map(() => backoff.next())).toEqual([800, 1600, 3200, 6400, 12800]);
    expect(backoff.failures).toBe(5);
  });

  it("caps at 30 s by default", () => {
    const backoff = new Backoff({ random: () => 0.5, now: manualClock().now });
    const delays = Array.from({ length: 12 }, () => backoff.next());
    expect(delays.slice(6)).toEqual([30_000, 30_000, 30_000, 30_000, 30_000, 30_000]);
    expect(Math.max(...delays)).toBe(30_000);
  });

  it("keeps jitter within ±20% by default and never above the cap", () => {
    const backoff = new Backoff({ jitter: 0.2 });
    const first = Array.from({ length: 200 }, () => new Backoff().next());
    expect(Math.min(...first)).toBeGreaterThanOrEqual(640);
    expect(Math.max(...first)).toBeLessThanOrEqual(960);
    // Spread, not a constant: without jitter, reflectors retry in lockstep.
    expect(new Set(first).size).toBeGreaterThan(10);
    const capped = Array.from({ length: 200 }, () => backoff.next()).slice(20);
    expect(Math.min(...capped)).toBeGreaterThanOrEqual(24_000);
    expect(Math.max(...capped)).toBeLessThanOrEqual(30_000);
  });

  it("draws the extremes of the jitter from the random source", () => {
    expect(new Backoff({ random: () => 0 }).next()).toBe(640);
    expect(new Backoff({ random: () => 0.999999 }).next()).toBe(960);
    expect(new Backoff({ random: () => 0, jitter: 0 }).next()).toBe(800);
  });

  it("starts over after 120 s without a failure", () => {
    const clock = manualClock();
    const backoff = new Backoff({ random: () => 0.5, now: clock.now });
    backoff.next();
    backoff.next();
    clock.advance(119_999);
    expect(backoff.next()).toBe(3200);
    clock.advance(120_000);
    expect(backoff.next()).toBe(800);
    expect(backoff.failures).toBe(1);
  });

  it("takes its settings from options", () => {
    const backoff = new Backoff({ initialMs: 10, factor: 3, maxMs: 100, jitter: 0, now: manualClock().now });
    expect([1, 2, 3, 4].map(() => backoff.next())).toEqual([10, 30, 90, 100]);
  });

  it("rejects settings that make no sense", () => {
    expect(() => new Backoff({ factor: 0.5 })).toThrow(RangeError);
    expect(() => new Backoff({ initialMs: 10, maxMs: 5 })).toThrow(RangeError);
    expect(() => new Backoff({ jitter: 2 })).toThrow(RangeError);
  });
});
