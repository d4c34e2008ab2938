import { describe, expect, it } from "@jest/globals";
import { Poller } from "./poll.js";

describe("Poller", () => {
  it("reads at once, then pauses 50 ms doubling up to the interval until the value is done", async () => {
    const pauses: number[] = [];
    const poller = new Poller({ pollIntervalMs: 400, sleep: async (ms) => void pauses.push(ms) });
    let reads = 0;
    const value = await poller.until(async () => ++reads, (n) => n === 7, "the seventh read");
    expect(value).toBe(7);
    expect(pauses).toEqual([50, 100, 200, 400, 400, 400]);
  });

  it("never pauses longer than a short interval, and returns the first read when it is done", async () => {
    const pauses: number[] = [];
    const poller = new Poller({ pollIntervalMs: 2, sleep: async (ms) => void pauses.push(ms) });
    expect(await poller.until(async () => "ACTIVE", (status) => status === "ACTIVE", "nothing")).toBe("ACTIVE");
    let reads = 0;
    await poller.until(async () => ++reads, (n) => n === 3, "the third read");
    expect(pauses).toEqual([2, 2]);
  });

  it("gives up after the timeout, naming what it waited for", async () => {
    const poller = new Poller({ pollTimeoutMs: 0, sleep: async () => undefined });
    await expect(poller.until(async () => "PENDING_UPDATE", (status) => status === "ACTIVE", "load balancer lb-1 to become ACTIVE")).rejects.toThrow(
      "timed out after 0 ms waiting for load balancer lb-1 to become ACTIVE",
    );
  });
});
