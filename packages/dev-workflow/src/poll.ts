/** The targets' waits: ask again and again until the world is as wanted, within a bound. */
import { setTimeout as sleep } from "node:timers/promises";

export interface PollOptions {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Ctrl-C: ends the wait by rejecting. */
  readonly signal?: AbortSignal;
}

/** Asks `done` every `intervalMs` until it holds (true), or `timeoutMs` has passed (false). */
export async function pollUntil(done: () => Promise<boolean>, options: PollOptions): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > deadline) return false;
    await sleep(options.intervalMs, undefined, options.signal === undefined ? {} : { signal: options.signal });
  }
}
