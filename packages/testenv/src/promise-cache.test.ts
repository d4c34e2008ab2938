import { describe, expect, it } from "@jest/globals";
import { cachedPromise } from "./promise-cache.js";

describe("cachedPromise", () => {
  it("makes a key's value once and shares it, also with callers that came while it was made", async () => {
    const cache = new Map<string, Promise<number>>();
    let made = 0;
    const make = async (): Promise<number> => {
      made += 1;
      await Promise.resolve();
      return 42;
    };
    const [a, b] = await Promise.all([cachedPromise(cache, "k", make), cachedPromise(cache, "k", make)]);
    expect([a, b, await cachedPromise(cache, "k", make)]).toEqual([42, 42, 42]);
    expect(made).toBe(1);
    await cachedPromise(cache, "other", make);
    expect(made).toBe(2);
  });

  it("drops a rejected promise, so that the next call tries again", async () => {
    const cache = new Map<string, Promise<string>>();
    let attempts = 0;
    const make = async (): Promise<string> => {
      attempts += 1;
      if (attempts === 1) throw new Error("no network");
      return "downloaded";
    };
    await expect(cachedPromise(cache, "k", make)).rejects.toThrow("no network");
    expect(await cachedPromise(cache, "k", make)).toBe("downloaded");
    expect(await cachedPromise(cache, "k", make)).toBe("downloaded");
    expect(attempts).toBe(2);
  });
});
