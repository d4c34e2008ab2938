import { describe, expect, it } from "@jest/globals";
import { Fifo } from "./fifo.js";

describe("Fifo", () => {
  it("returns undefined when empty", () => {
    expect(new Fifo<number>().shift()).toBeUndefined();
  });

  it("keeps first-in-first-out order across growth, wrap-around and shrinking", () => {
    const fifo = new Fifo<number>();
    const expected: number[] = [];
    let next = 0;
    // Interleaved bursts move the head around the ring while it grows and shrinks.
    for (const [pushes, shifts] of [[5, 3], [20, 10], [1000, 990], [3, 20], [50, 0], [0, 70]] as const) {
      for (let i = 0; i < pushes; i++) {
        fifo.push(next);
        expected.push(next++);
      }
      const shifted = Array.from({ length: shifts }, () => fifo.shift());
      expect(shifted).toEqual(expected.splice(0, shifts));
      expect(fifo.length).toBe(expected.length);
      expect([...fifo]).toEqual(expected);
    }
  });

  it("empties on clear and stays usable", () => {
    const fifo = new Fifo<string>();
    for (let i = 0; i < 100; i++) fifo.push(`x${i}`);
    fifo.clear();
    expect(fifo.length).toBe(0);
    expect([...fifo]).toEqual([]);
    fifo.push("y");
    expect(fifo.shift()).toBe("y");
  });
});
