import { describe, expect, it } from "@jest/globals";
import { ManualClock, realClock } from "./clock.js";

describe("ManualClock", () => {
  describe("advance", () => {
    it("fires due timers in due-time order, ties in the order they were set", () => {
      const clock = new ManualClock();
      const fired: string[] = [];
      clock.setTimeout(() => fired.push("c"), 30);
      clock.setTimeout(() => fired.push("a1"), 10);
      clock.setTimeout(() => fired.push("b"), 20);
      clock.setTimeout(() => fired.push("a2"), 10);
      clock.advance(25);
      expect(fired).toEqual(["a1", "a2", "b"]);
      clock.advance(5);
      expect(fired).toEqual(["a1", "a2", "b", "c"]);
    });

    it("shows each timer's due time as now() while it runs, and the target afterwards", () => {
      const clock = new ManualClock(1000);
      const seen: number[] = [];
      clock.setTimeout(() => seen.push(clock.now()), 5);
      clock.setTimeout(() => seen.push(clock.now()), 7);
      clock.advance(100);
      expect(seen).toEqual([1005, 1007]);
      expect(clock.now()).toBe(1100);
    });

    it("fires timers that callbacks set when they fall due within the same step", () => {
      const clock = new ManualClock();
      const fired: number[] = [];
      clock.setTimeout(() => {
        fired.push(clock.now());
        clock.setTimeout(() => fired.push(clock.now()), 10);
        clock.setTimeout(() => fired.push(clock.now()), 100);
      }, 10);
      clock.advance(50);
      expect(fired).toEqual([10, 20]);
      expect(clock.pendingTimers).toBe(1);
    });

    it("rejects a negative step", () => {
      expect(() => new ManualClock().advance(-1)).toThrow(RangeError);
    });
  });

  describe("clearTimeout", () => {
    it("stops a pending timer from firing and is a no-op for a fired one", () => {
      const clock = new ManualClock();
      const fired: string[] = [];
      const cancelled = clock.setTimeout(() => fired.push("cancelled"), 10);
      const kept = clock.setTimeout(() => fired.push("kept"), 10);
      clock.clearTimeout(cancelled);
      expect(clock.pendingTimers).toBe(1);
      clock.advance(10);
      clock.clearTimeout(kept);
      expect(fired).toEqual(["kept"]);
      expect(clock.pendingTimers).toBe(0);
    });
  });
});

describe("realClock", () => {
  it("reads a monotonic time and cancels timers", async () => {
    const first = realClock.now();
    let cancelledFired = false;
    const cancelled = realClock.setTimeout(() => {
      cancelledFired = true;
    }, 0);
    realClock.clearTimeout(cancelled);
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 0));
    expect(cancelledFired).toBe(false);
    expect(realClock.now()).toBeGreaterThanOrEqual(first);
  });
});
