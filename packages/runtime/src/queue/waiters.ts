/**
 * The `get` calls parked until an item is ready: served oldest first, and
 * each one cancellable by its AbortSignal in O(1), so callers that give up
 * leave nothing behind. Owns parking only; which item a waiter receives is
 * the queue's decision.
 */

interface Waiter<T> {
  readonly resolve: (value: T | undefined) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  prev: Waiter<T> | undefined;
  next: Waiter<T> | undefined;
}

// A doubly linked list rather than an array: an aborted waiter in the middle
// must go without a scan.
export class Waiters<T> {
  private head: Waiter<T> | undefined;
  private tail: Waiter<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /**
   * Parks a caller until `serve` or `releaseAll` reaches it, or `signal`
   * aborts (then it resolves `undefined`). The signal must not be aborted
   * yet: its abort event would never come.
   */
  wait(signal?: AbortSignal): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve) => {
      const waiter: Waiter<T> = {
        resolve,
        signal,
        onAbort: () => {
          this.unlink(waiter);
          resolve(undefined);
        },
        prev: this.tail,
        next: undefined,
      };
      if (this.tail === undefined) this.head = waiter;
      else this.tail.next = waiter;
      this.tail = waiter;
      this.count++;
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
    });
  }

  /** Resolves the oldest waiter with `value`; callers check `size` first. */
  serve(value: T): void {
    const waiter = this.head;
    if (waiter === undefined) return;
    this.settle(waiter, value);
  }

  /** Resolves every waiter with `undefined`. */
  releaseAll(): void {
    for (let waiter = this.head; waiter !== undefined; waiter = this.head) this.settle(waiter, undefined);
  }

  private settle(waiter: Waiter<T>, value: T | undefined): void {
    this.unlink(waiter);
    waiter.signal?.removeEventListener("abort", waiter.onAbort);
    waiter.resolve(value);
  }

  private unlink(waiter: Waiter<T>): void {
    if (waiter.prev === undefined) this.head = waiter.next;
    else waiter.prev.next = waiter.next;
    if (waiter.next === undefined) this.tail = waiter.prev;
    else waiter.next.prev = waiter.prev;
    waiter.prev = undefined;
    waiter.next = undefined;
    this.count--;
  }
}
