/**
 * An unbounded first-in-first-out queue on a growable ring buffer: O(1)
 * amortized push and shift, where `Array.prototype.shift` is O(n). Owns only
 * ordering; it knows nothing about keys, tenants or deduplication.
 */

const MIN_CAPACITY = 8;

export class Fifo<T> {
  // Capacity stays a power of two so that wrapping is a bit mask.
  private slots: (T | undefined)[] = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(value: T): void {
    if (this.count === this.slots.length) this.resize(this.slots.length * 2);
    this.slots[(this.head + this.count) & (this.slots.length - 1)] = value;
    this.count++;
  }

  /** Removes and returns the oldest value; `undefined` when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const value = this.slots[this.head];
    // Clearing the slot lets the value be collected while the buffer lives on.
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & (this.slots.length - 1);
    this.count--;
    // Shrinking keeps a queue that once held a burst from pinning its memory.
    if (this.slots.length > MIN_CAPACITY && this.count <= this.slots.length / 4) this.resize(this.slots.length / 2);
    return value;
  }

  clear(): void {
    this.slots = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  /** Oldest first. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) {
      yield this.slots[(this.head + i) & (this.slots.length - 1)] as T;
    }
  }

  private resize(capacity: number): void {
    const next = new Array<T | undefined>(capacity).fill(undefined);
    for (let i = 0; i < this.count; i++) next[i] = this.slots[(this.head + i) & (this.slots.length - 1)];
    this.slots = next;
    this.head = 0;
  }
}
