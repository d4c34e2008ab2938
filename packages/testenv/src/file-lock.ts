/**
 * A lock between processes on this machine. The lock is a file created
 * exclusively and holding its owner's pid; a lock whose owner has died is
 * taken over. Two uses:
 * - components that bind fixed ports: Cluster API's in-memory development
 *   provider listens on :19000 and 20000-30000 with no flag to move it, so two
 *   stacks with it (two suites, two developers' runs) would take each other's
 *   ports (`acquirePortLock`);
 * - a binary's build: parallel Jest workers and the background build of
 *   `scripts/test.sh` wait for one build instead of compiling the same
 *   packages side by side on two cores (binaries.ts).
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TimeoutError } from "./errors.js";

export interface FileLock {
  release(): void;
}

/** Waits until the port range `name` is free, up to `timeoutMs`, then holds it until `release`. */
export function acquirePortLock(name: string, timeoutMs: number, log: (message: string) => void = () => undefined): Promise<FileLock> {
  return acquireFileLock(join(tmpdir(), `edgeconnect-${name}.lock`), timeoutMs, log);
}

/** Waits until the lock file `path` is free, up to `timeoutMs`, then holds it until `release`. */
export async function acquireFileLock(path: string, timeoutMs: number, log: (message: string) => void = () => undefined): Promise<FileLock> {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = Number(readOwner(path));
    if (!Number.isInteger(owner) || owner <= 0 || !alive(owner)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new TimeoutError(`${path} is still held by process ${owner} after ${Math.round(timeoutMs / 1000)} s`);
    if (!announced) log(`waiting: process ${owner} holds ${path}`);
    announced = true;
    await sleep(1_000);
  }
}

function readOwner(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
