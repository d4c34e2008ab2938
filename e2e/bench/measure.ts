/**
 * Measuring create→reconcile latency without keeping objects: a Tracker maps
 * `cluster|default/name` to the time just before the create request, and the
 * reconcile callback turns that into one number in its Probe. Memory stays
 * at a number per pending key plus a number per finished one.
 */
import { performance } from "node:perf_hooks";
import { HttpStatusError } from "@edgeconnect/kcp-ts";

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/**
 * Objects of one shape as one: each number the median of its values (the
 * mean of the two middle ones for an even count), anything else as in the
 * last object.
 */
export function medianOf<T>(values: readonly T[]): T {
  const last = values.at(-1);
  if (last === undefined) throw new Error("no values to take the median of");
  if (typeof last === "number") {
    const sorted = (values as readonly number[]).filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
    if (sorted.length === 0) return last;
    const upper = Math.floor(sorted.length / 2);
    return (sorted.length % 2 === 1 ? sorted[upper] : ((sorted[upper - 1] ?? 0) + (sorted[upper] ?? 0)) / 2) as T;
  }
  if (last === null || typeof last !== "object" || Array.isArray(last)) return last;
  return Object.fromEntries(Object.keys(last).map((key) => [key, medianOf(values.map((value) => (value as Record<string, unknown>)[key]))])) as T;
}

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One group of objects measured together (a burst, a flood, the quiet tenant's probes). */
export class Probe {
  readonly latencies: number[] = [];
  /** When the first create of the group was about to be sent. */
  firstStart = Number.POSITIVE_INFINITY;
  /** When the last object of the group was reconciled. */
  lastDone = Number.NEGATIVE_INFINITY;
  pending = 0;
  /** Last time anything was expected or finished, to tell a stall from a slow phase. */
  lastProgress = performance.now();

  constructor(readonly name: string) {}

  summary(): LatencySummary {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return { count: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1) ?? Number.NaN };
  }

  /** Milliseconds from the first create to the last reconcile. */
  spanMs(): number {
    return this.lastDone - this.firstStart;
  }

  /** Finished objects per second over the span. */
  perSecond(): number {
    return this.latencies.length / (this.spanMs() / 1000);
  }

  /**
   * Resolves once nothing is pending. Polling (every 20 ms) is fine: the
   * latencies were taken in the callbacks, not here. Fails when nothing moved
   * for `stallMs`, naming what is missing, instead of hanging the run, and as
   * soon as `failed` reports an error of whoever does the reconciling.
   */
  async drained(failed: () => Error | undefined = () => undefined, stallMs = 120_000): Promise<void> {
    while (this.pending > 0) {
      const error = failed();
      if (error !== undefined) throw error;
      if (performance.now() - this.lastProgress > stallMs) {
        throw new Error(`${this.name}: ${this.pending} object(s) not reconciled, no progress for ${stallMs / 1000} s`);
      }
      await sleep(20);
    }
  }
}

export class Tracker {
  private readonly pending = new Map<string, { readonly start: number; readonly probe: Probe }>();

  /** Registers `key` before its create is sent, so a reconcile that beats the create's response still counts. */
  expect(key: string, probe: Probe, start = performance.now()): void {
    this.pending.set(key, { start, probe });
    probe.pending++;
    probe.firstStart = Math.min(probe.firstStart, start);
    probe.lastProgress = performance.now();
  }

  /** Records the first reconcile of `key`; later ones (and keys nobody expects) are ignored. */
  complete(key: string, at = performance.now()): void {
    const entry = this.pending.get(key);
    if (entry === undefined) return;
    this.pending.delete(key);
    const { probe } = entry;
    probe.latencies.push(at - entry.start);
    probe.pending--;
    probe.lastDone = Math.max(probe.lastDone, at);
    probe.lastProgress = at;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Asks `done` every `intervalMs` until it holds (true) or `timeoutMs` has passed (false). */
export async function waitFor(done: () => Promise<boolean>, options: { readonly timeoutMs: number; readonly intervalMs: number }): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > deadline) return false;
    await sleep(options.intervalMs);
  }
}

/**
 * Runs `task(0..count-1)` with at most `concurrency` in flight. After a
 * failure no new task starts, so a broken run stops loading kcp quickly.
 */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < count) {
      const index = next++;
      try {
        await task(index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Retries counted over the whole run, reported so a noisy run is visible. */
export const retries = { count: 0 };

/**
 * Retries what a loaded API server may answer transiently: 429, 5xx and
 * connection errors (kcp on two cores does both under a 5,000-object flood).
 * Anything else is a bug in the benchmark and fails it. Latency keeps the
 * first attempt's start, so retries show up in the figures.
 */
export async function withRetry<T>(what: string, fn: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const transient = !(err instanceof HttpStatusError) || err.status === 429 || err.status >= 500;
      if (!transient || attempt >= attempts) throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      retries.count++;
      const hinted = err instanceof HttpStatusError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
      await sleep(Math.max(hinted, 100 * 2 ** attempt));
    }
  }
}
