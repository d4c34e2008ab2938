/**
 * Time as the queue and its rate limiters see it: a monotonic millisecond
 * reading and one-shot timers, behind an interface so that tests drive time
 * by hand. Owns nothing else: no scheduling policy, no retry logic, and it
 * must never be the place where wall-clock dates come from.
 */

/** Opaque: only hand it back to `clearTimeout` of the clock that made it. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds on a monotonic scale; only differences are meaningful. */
  now(): number;
  /** Calls `fn` once, no earlier than `ms` from now. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; a no-op if it already fired or was cancelled. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The process clock. `performance.now()` rather than `Date.now()` because a
 * wall-clock step (NTP, a suspended VM) must not make backoffs negative or
 * huge.
 *
 * Timers are not `unref()`-ed: a pending delayed add is a retry the process
 * still owes, and exiting early would drop it silently. Queues clear their
 * timer on shutdown, so an idle or stopped queue never holds the process.
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  // Every handle this clock hands out is a Node timer.
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface ManualTimer {
  readonly dueAt: number;
  readonly order: number;
  readonly fn: () => void;
}

/**
 * A clock that moves only when a test calls `advance`, firing due timers in
 * due-time order (ties in the order they were set), each with `now()` equal
 * to its due time, as a real clock with no lag would.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextOrder = 0;
  private readonly timers = new Map<TimerHandle, ManualTimer>();

  /** @param start the first reading of `now()`; default 0. */
  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {};
    this.timers.set(handle, { dueAt: this.current + Math.max(0, ms), order: this.nextOrder++, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle);
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`. Timers that callbacks set along the way fire
   * too if they fall due within the step, so one call settles a whole chain.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be >= 0, got ${ms}`);
    const target = this.current + ms;
    for (let next = this.earliestDue(target); next !== undefined; next = this.earliestDue(target)) {
      const [handle, timer] = next;
      this.timers.delete(handle);
      this.current = timer.dueAt;
      timer.fn();
    }
    this.current = target;
  }

  // A linear scan: this clock serves tests with a handful of timers.
  private earliestDue(limit: number): [TimerHandle, ManualTimer] | undefined {
    let best: [TimerHandle, ManualTimer] | undefined;
    for (const [handle, timer] of this.timers) {
      if (timer.dueAt > limit) continue;
      if (best === undefined || timer.dueAt < best[1].dueAt || (timer.dueAt === best[1].dueAt && timer.order < best[1].order)) {
        best = [handle, timer];
      }
    }
    return best;
  }
}
