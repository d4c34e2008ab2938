import { describe, expect, it } from "@jest/globals";
import { pollUntil } from "./poll.js";

describe("pollUntil", () => {
  it("asks until the answer is yes", async () => {
    let asked = 0;
    expect(await pollUntil(() => Promise.resolve(++asked === 3), { timeoutMs: 5_000, intervalMs: 1 })).toBe(true);
    expect(asked).toBe(3);
  });

  it("gives up after the timeout, having asked at least once", async () => {
    let asked = 0;
    expect(await pollUntil(() => Promise.resolve(++asked < 0), { timeoutMs: 30, intervalMs: 5 })).toBe(false);
    expect(asked).toBeGreaterThan(1);
  });

  it("ends the wait when the signal aborts", async () => {
    const stop = new AbortController();
    const waiting = pollUntil(() => Promise.resolve(false), { timeoutMs: 60_000, intervalMs: 50, signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toThrow();
  });
});
