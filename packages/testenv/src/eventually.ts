/**
 * Polling with an explanation: a condition returns whether it holds and, when
 * it does not, why; a timeout reports the last reason instead of "timed out".
 * A process the test relies on that died unasked ends the wait at once
 * (unexpected-exits.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { FatalError, TimeoutError } from "./errors.js";
import { unexpectedExitSignal } from "./unexpected-exits.js";

/** `[true, value]` when the condition holds, `[false, reason]` while it does not. */
export type Check<T> = readonly [true, T] | readonly [false, string];

/** A Check from a condition: `value` once `ok`, else `reason`. */
export function holds<T = undefined>(ok: boolean, reason: string, value?: T): Check<T> {
  return ok ? [true, value as T] : [false, reason];
}

export interface EventuallyOptions {
  /** Give up after this long. Default 60 s. */
  readonly timeoutMs?: number;
  /**
   * Pause between attempts. Default 100 ms: it is how late a wait notices
   * that its condition holds, nothing a server needs; a check is a read or
   * two on loopback, so polling faster than this would only add load.
   */
  readonly intervalMs?: number;
  /** What is awaited, for the error message. */
  readonly description?: string;
}

/**
 * Calls `check` until it holds and returns its value. A thrown error counts as
 * "not yet" (its message becomes the reason), so transient API errors during
 * start-up need no special handling by callers; a FatalError ends the wait,
 * and so does the exit of a watched process (`ServerProcess.watchExit`), even
 * while a check or the pause runs.
 */
export async function eventually<T>(check: () => Promise<Check<T>> | Check<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  const died = unexpectedExitSignal();
  for (;;) {
    let reason: string;
    try {
      const result = await untilAborted(Promise.resolve().then(check), died);
      if (result[0]) return result[1];
      reason = result[1];
    } catch (err) {
      if (err instanceof FatalError) throw err;
      reason = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() + intervalMs > deadline) {
      const what = options.description ?? "condition";
      throw new TimeoutError(`${what} did not hold within ${timeoutMs} ms: ${reason}`);
    }
    await untilAborted(sleep(intervalMs), died);
  }
}

/** `promise`, or a rejection with the signal's reason (a FatalError) as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
