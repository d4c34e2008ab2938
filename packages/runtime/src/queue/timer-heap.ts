/**
 * A binary min-heap of values by due time, at most one entry per key, so
 * that the earliest of many delayed items is found in O(1), and one is
 * added, moved or taken off the top in O(log n). Owns ordering only:
 * it never reads a clock or sets a timer.
 */

interface Entry<V> {
  readonly key: string;
  value: V;
  dueAt: number;
  // Breaks due-time ties first-come-first-served, so equal delays keep order.
  order: number;
  index: number;
}

/** What `peek` shows of the earliest entry. */
export interface DueEntry<V> {
  readonly key: string;
  readonly value: V;
  readonly dueAt: number;
}

export class TimerHeap<V> {
  private readonly entries: Entry<V>[] = [];
  private readonly byKey = new Map<string, Entry<V>>();
  private nextOrder = 0;

  get size(): number {
    return this.entries.length;
  }

  /**
   * Schedules `key`. If it is already scheduled, the earlier due time wins
   * and the value is replaced with this one: values of one key are
   * interchangeable, and the newest is the freshest.
   */
  schedule(key: string, value: V, dueAt: number): void {
    const existing = this.byKey.get(key);
    if (existing !== undefined) {
      existing.value = value;
      if (dueAt < existing.dueAt) {
        existing.dueAt = dueAt;
        existing.order = this.nextOrder++;
        this.up(existing.index);
      }
      return;
    }
    const entry: Entry<V> = { key, value, dueAt, order: this.nextOrder++, index: this.entries.length };
    this.entries.push(entry);
    this.byKey.set(key, entry);
    this.up(entry.index);
  }

  /**
   * Schedules `key` at exactly `dueAt`, later or earlier than before, for
   * entries whose time only ever moves by the owner's own arithmetic (a
   * token bucket's refill time) rather than by competing delays.
   */
  reschedule(key: string, value: V, dueAt: number): void {
    const existing = this.byKey.get(key);
    if (existing === undefined) {
      this.schedule(key, value, dueAt);
      return;
    }
    existing.value = value;
    existing.dueAt = dueAt;
    existing.order = this.nextOrder++;
    this.up(existing.index);
    this.down(existing.index);
  }

  /** When `key` is due; `undefined` while it is not scheduled. */
  dueAt(key: string): number | undefined {
    return this.byKey.get(key)?.dueAt;
  }

  /** The entry due first, left in place. */
  peek(): DueEntry<V> | undefined {
    return this.entries[0];
  }

  /** Removes and returns the entry due first. */
  pop(): DueEntry<V> | undefined {
    const top = this.entries[0];
    const last = this.entries.pop();
    if (top === undefined || last === undefined) return undefined;
    this.byKey.delete(top.key);
    if (last !== top) {
      last.index = 0;
      this.entries[0] = last;
      this.down(0);
    }
    return top;
  }

  clear(): void {
    this.entries.length = 0;
    this.byKey.clear();
  }

  private up(index: number): void {
    const entry = this.entries[index];
    if (entry === undefined) return;
    let i = index;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = this.entries[parentIndex];
      if (parent === undefined || !before(entry, parent)) break;
      this.place(parent, i);
      i = parentIndex;
    }
    this.place(entry, i);
  }

  private down(index: number): void {
    const entry = this.entries[index];
    if (entry === undefined) return;
    let i = index;
    for (;;) {
      const leftIndex = 2 * i + 1;
      const left = this.entries[leftIndex];
      if (left === undefined) break;
      const right = this.entries[leftIndex + 1];
      const [child, childIndex] = right !== undefined && before(right, left) ? [right, leftIndex + 1] : [left, leftIndex];
      if (!before(child, entry)) break;
      this.place(child, i);
      i = childIndex;
    }
    this.place(entry, i);
  }

  private place(entry: Entry<V>, index: number): void {
    this.entries[index] = entry;
    entry.index = index;
  }
}

function before<V>(a: Entry<V>, b: Entry<V>): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.order < b.order);
}
