import { describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TimeoutError } from "./errors.js";
import { acquirePortLock } from "./file-lock.js";

function lockName(): { name: string; path: string } {
  const name = `test-${randomBytes(4).toString("hex")}`;
  return { name, path: join(tmpdir(), `edgeconnect-${name}.lock`) };
}

describe("acquirePortLock", () => {
  it("holds the lock until released, and a second holder waits, then times out", async () => {
    const { name, path } = lockName();
    const first = await acquirePortLock(name, 1_000);
    expect(existsSync(path)).toBe(true);
    await expect(acquirePortLock(name, 1_500)).rejects.toThrow(TimeoutError);
    first.release();
    expect(existsSync(path)).toBe(false);
    const second = await acquirePortLock(name, 1_000);
    second.release();
  });

  it("takes over a lock whose owner is gone", async () => {
    const { name, path } = lockName();
    // Pids are below 2^22 on Linux: this one cannot be running.
    writeFileSync(path, "4194399");
    const lock = await acquirePortLock(name, 1_000);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("takes over a lock file without a pid", async () => {
    const { name, path } = lockName();
    writeFileSync(path, "");
    (await acquirePortLock(name, 1_000)).release();
  });
});
