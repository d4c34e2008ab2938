import { describe, expect, it } from "@jest/globals";
import { TimerHeap } from "./timer-heap.js";

// A fixed linear congruential sequence: varied but reproducible due times.
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
}

function drain<V>(heap: TimerHeap<V>): { key: string; value: V; dueAt: number }[] {
  const out: { key: string; value: V; dueAt: number }[] = [];
  for (let top = heap.pop(); top !== undefined; top = heap.pop()) out.push({ key: top.key, value: top.value, dueAt: top.dueAt });
  return out;
}

describe("TimerHeap", () => {
  describe("pop", () => {
    it("returns entries by due time, equal times first-come-first-served", () => {
      const heap = new TimerHeap<number>();
      const next = sequence(42);
      const dues: number[] = [];
      for (let i = 0; i < 500; i++) {
        const dueAt = next() % 100;
        dues.push(dueAt);
        heap.schedule(`k${i}`, i, dueAt);
      }
      const popped = drain(heap);
      const expected = dues.map((dueAt, i) => ({ dueAt, i })).sort((a, b) => a.dueAt - b.dueAt || a.i - b.i);
      expect(popped.map((entry) => entry.value)).toEqual(expected.map((entry) => entry.i));
      expect(heap.size).toBe(0);
      expect(heap.pop()).toBeUndefined();
    });
  });

  describe("schedule", () => {
    it("keeps one entry per key, moves it earlier but never later, and takes the newest value", () => {
      const heap = new TimerHeap<string>();
      heap.schedule("a", "a1", 50);
      heap.schedule("b", "b1", 40);
      heap.schedule("a", "a2", 30);
      heap.schedule("b", "b2", 90);
      expect(heap.size).toBe(2);
      expect(heap.peek()).toMatchObject({ key: "a", value: "a2", dueAt: 30 });
      expect(drain(heap)).toEqual([
        { key: "a", value: "a2", dueAt: 30 },
        { key: "b", value: "b2", dueAt: 40 },
      ]);
    });

    it("reports a key's due time while it is scheduled", () => {
      const heap = new TimerHeap<string>();
      heap.schedule("a", "a1", 50);
      expect([heap.dueAt("a"), heap.dueAt("b")]).toEqual([50, undefined]);
      heap.pop();
      expect(heap.dueAt("a")).toBeUndefined();
    });

    it("accepts a key again after it was popped or cleared", () => {
      const heap = new TimerHeap<number>();
      heap.schedule("a", 1, 10);
      heap.pop();
      heap.schedule("a", 2, 99);
      expect(heap.peek()?.dueAt).toBe(99);
      heap.clear();
      heap.schedule("a", 3, 500);
      expect(drain(heap)).toEqual([{ key: "a", value: 3, dueAt: 500 }]);
    });
  });

  describe("reschedule", () => {
    it("moves a key to exactly the new time, later as well as earlier, keeping the order of the rest", () => {
      const heap = new TimerHeap<number>();
      const next = sequence(7);
      const due = new Map<string, number>();
      for (let i = 0; i < 300; i++) {
        const key = `k${i % 60}`;
        const dueAt = next() % 1000;
        heap.reschedule(key, i, dueAt);
        due.set(key, dueAt);
      }
      expect(heap.size).toBe(60);
      const popped = drain(heap);
      expect(popped.map((entry) => entry.dueAt)).toEqual([...due.values()].sort((a, b) => a - b));
      expect(popped.every((entry) => due.get(entry.key) === entry.dueAt)).toBe(true);
    });

    it("schedules a key that is not there yet", () => {
      const heap = new TimerHeap<string>();
      heap.reschedule("a", "a1", 20);
      heap.schedule("b", "b1", 10);
      heap.reschedule("b", "b2", 30);
      expect(drain(heap)).toEqual([
        { key: "a", value: "a1", dueAt: 20 },
        { key: "b", value: "b2", dueAt: 30 },
      ]);
    });
  });
});
