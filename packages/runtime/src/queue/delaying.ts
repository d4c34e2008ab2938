/**
 * Delayed adds: holds items until their due time and then hands them to a
 * callback, with a single clock timer armed for the earliest one however
 * many are waiting. Owns timing only: what "adding" means (dedup, tenants,
 * processing) belongs to the queue that receives the callback.
 */
import type { Clock, TimerHandle } from "./clock.js";
import { TimerHeap } from "./timer-heap.js";

export class Delaying<T> {
  private readonly heap = new TimerHeap<T>();
  private readonly clock: Clock;
  private readonly onDue: (item: T, dueAt: number) => void;
  private timer: TimerHandle | undefined;
  private timerDueAt = Number.POSITIVE_INFINITY;

  /**
   * @param onDue receives each item once it is due, in due-time order, with
   *   the time it fell due (not the possibly later time the timer ran).
   */
  constructor(clock: Clock, onDue: (item: T, dueAt: number) => void) {
    this.clock = clock;
    this.onDue = onDue;
  }

  /** Items waiting for their time. */
  get size(): number {
    return this.heap.size;
  }

  /**
   * Delivers `item` at `dueAt`. While `key` is waiting, an earlier due time
   * moves it forward and a later one leaves the time alone, as client-go's
   * delaying queue does: a retry already due sooner must not be postponed.
   */
  schedule(key: string, item: T, dueAt: number): void {
    this.heap.schedule(key, item, dueAt);
    this.arm();
  }

  /** Drops every waiting item and the timer. */
  clear(): void {
    this.heap.clear();
    this.arm();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.timerDueAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (let next = this.heap.peek(); next !== undefined && next.dueAt <= now; next = this.heap.peek()) {
      this.heap.pop();
      this.onDue(next.value, next.dueAt);
    }
    this.arm();
  };

  // Re-arms only when the earliest due time changed, so a stream of later
  // delays costs no timer churn.
  private arm(): void {
    const dueAt = this.heap.peek()?.dueAt ?? Number.POSITIVE_INFINITY;
    if (dueAt === this.timerDueAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = dueAt;
    if (dueAt !== Number.POSITIVE_INFINITY) this.timer = this.clock.setTimeout(this.fire, Math.max(0, dueAt - this.clock.now()));
  }
}
