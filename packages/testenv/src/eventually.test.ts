import { describe, expect, it } from "@jest/globals";
import { FatalError, TimeoutError } from "./errors.js";
import { eventually } from "./eventually.js";

describe("eventually", () => {
  it("returns the value once the condition holds", async () => {
    let calls = 0;
    const value = await eventually(() => (++calls === 3 ? [true, "done"] : [false, `call ${calls}`]), { intervalMs: 1 });
    expect(value).toBe("done");
    expect(calls).toBe(3);
  });

  it("treats a thrown error as not yet", async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        if (++calls < 2) throw new Error("connection refused");
        return [true, calls];
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(2);
  });

  it("reports the last reason when it times out", async () => {
    let calls = 0;
    const waiting = eventually(() => [false, `attempt ${++calls}`], { timeoutMs: 30, intervalMs: 5, description: "widget ready" });
    await expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    await expect(waiting).rejects.toThrow(new RegExp(`widget ready did not hold within 30 ms: attempt \\d+`));
  });

  it("stops at once on a FatalError", async () => {
    let calls = 0;
    const waiting = eventually(
      () => {
        calls++;
        throw new FatalError("server exited");
      },
      { timeoutMs: 10_000, intervalMs: 1 },
    );
    await expect(waiting).rejects.toThrow("server exited");
    expect(calls).toBe(1);
  });
});
