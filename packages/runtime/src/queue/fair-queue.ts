/**
 * The work queue between informers and reconcilers: client-go's workqueue
 * semantics (dedup by key, a key never processed twice at once, delayed and
 * rate-limited adds) with one FIFO per tenant served round-robin, so one
 * tenant's flood cannot starve another; an optional cap on each tenant's
 * items in processing, so one tenant's slow work cannot occupy every worker;
 * and, given the worker count, a reserve of workers for tenants with nothing
 * in processing, so a few slow tenants together cannot either. Owns
 * ordering, dedup and hand-out only; it never runs work,
 * retries on its own, or decides what a key or a tenant is (the caller's
 * `key` and `tenant` functions do).
 */
import { realClock, type Clock } from "./clock.js";
import { Delaying } from "./delaying.js";
import { Fifo } from "./fifo.js";
import { NO_QUEUE_METRICS, type QueueMetrics } from "./queue-metrics.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";
import { Waiters } from "./waiters.js";

export interface FairQueueOptions<T> {
  /**
   * Identity for dedup: items with equal keys are one piece of work. No
   * default. Items of one key must belong to one tenant.
   */
  readonly key: (item: T) => string;
  /** The tenant an item is scheduled under. No default. */
  readonly tenant: (item: T) => string;
  /**
   * Delays of `addRateLimited`, asked with each key and its tenant. Default
   * `defaultControllerRateLimiter()` on this queue's clock: controller-runtime's
   * per-key backoff and its 10 qps, burst 100 token bucket, one bucket per
   * tenant.
   */
  readonly rateLimiter?: RateLimiter<string>;
  /**
   * Most items of one tenant in processing at once. A tenant at its cap
   * waits out of the round-robin until one of its items is `done`, so its
   * other items neither take a worker nor hold up other tenants. Default: no
   * cap (the Controller sets one, see `defaultMaxInFlightPerTenant`).
   */
  readonly maxInFlightPerTenant?: number;
  /**
   * How many callers `get` at once: the Controller's workers. With it, the
   * queue keeps `reservedWorkers(workers, maxInFlightPerTenant)` of them for
   * tenants with nothing in processing: once `workers` minus that many items
   * are in processing, tenants with items in processing wait and only the
   * others are served. Default: unknown, no reserve.
   */
  readonly workers?: number;
  /** Default `realClock`. */
  readonly clock?: Clock;
  /** Default `NO_QUEUE_METRICS`. */
  readonly metrics?: QueueMetrics;
  /** For logs and metrics of the caller. Default "queue". */
  readonly name?: string;
}

/**
 * The Controller's cap for `workers` workers: half of them, rounded up.
 * With two or more workers a tenant whose reconciles hang leaves at least
 * half of them to everyone else, and a tenant alone with a backlog still
 * gets half the throughput. For one worker the cap is one: no cap at all.
 */
export function defaultMaxInFlightPerTenant(workers: number): number {
  return Math.max(1, Math.ceil(workers / 2));
}

/**
 * Workers kept for tenants with nothing in processing: a quarter of them
 * rounded up, but never more than the cap leaves (`workers` minus the cap).
 *
 * Why a reserve: the cap alone stops one slow tenant, not two or three (two
 * at half the workers each take them all). Why this size: with the default
 * cap, one or two slow tenants never hold every worker from 4 workers on,
 * and three never from 6 on, since each holds at most one reserved worker
 * (it takes one only with nothing else in processing). When they do hold
 * every worker, the reserve is in use as soon as one frees, so it goes to a
 * tenant with nothing in processing, ahead of their queued items. A larger
 * reserve would leave more workers idle whenever only busy tenants have work.
 * Why the cap bounds it: a tenant alone keeps all its cap allows (half the
 * workers by default, as before the reserve), and a controller that lets one
 * tenant take every worker (one tenant per controller) reserves nothing.
 * With one worker nothing can be reserved: a slow reconcile holds everyone
 * up, and the next get serves tenants round-robin. With two, the default
 * cap of one already keeps every tenant to one worker, so the reserved one
 * changes nothing.
 */
export function reservedWorkers(workers: number, maxInFlightPerTenant: number): number {
  return Math.max(0, Math.min(Math.ceil(workers / 4), workers - maxInFlightPerTenant));
}

/** One key's pending work, from its add until it is handed out. */
interface Pending<T> {
  readonly key: string;
  readonly tenant: string;
  item: T;
  readyAt: number;
}

/** One key's work while a worker has it. */
interface InFlight {
  readonly tenant: string;
  readonly startedAt: number;
}

export class FairQueue<T> {
  readonly name: string;

  private readonly keyOf: (item: T) => string;
  private readonly tenantOf: (item: T) => string;
  private readonly rateLimiter: RateLimiter<string>;
  private readonly clock: Clock;
  private readonly metrics: QueueMetrics;
  private readonly maxInFlightPerTenant: number;
  // Items in processing from which on only tenants with none are served.
  private readonly shared: number;

  // Keys added and not yet handed out: queued in a tenant FIFO, or parked
  // behind their own processing until `done`.
  private readonly dirty = new Map<string, Pending<T>>();
  private readonly processing = new Map<string, InFlight>();
  // Tenant -> its items in processing; tenants with none are absent.
  private readonly inFlight = new Map<string, number>();
  // Only tenants with ready items have a FIFO here. The ring holds those of
  // them below their cap, each once: a tenant leaves it when it runs out of
  // items or reaches its cap, and comes back on an add or a `done`. While the
  // reserve is in use, tenants in it with items in processing are passed over.
  private readonly byTenant = new Map<string, Fifo<Pending<T>>>();
  private readonly ring = new Fifo<string>();
  private ready = 0;
  private readonly delayed: Delaying<T>;
  private readonly waiters = new Waiters<T>();
  private drainers: (() => void)[] = [];
  private stopped = false;

  constructor(options: FairQueueOptions<T>) {
    this.keyOf = options.key;
    this.tenantOf = options.tenant;
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
    this.metrics = options.metrics ?? NO_QUEUE_METRICS;
    this.name = options.name ?? "queue";
    this.maxInFlightPerTenant = options.maxInFlightPerTenant ?? Number.POSITIVE_INFINITY;
    const cap = this.maxInFlightPerTenant;
    if (!(cap >= 1 && (Number.isInteger(cap) || cap === Number.POSITIVE_INFINITY))) {
      throw new RangeError(`maxInFlightPerTenant must be an integer >= 1, got ${cap}`);
    }
    const { workers } = options;
    if (workers !== undefined && !(workers >= 1 && Number.isInteger(workers))) {
      throw new RangeError(`workers must be an integer >= 1, got ${workers}`);
    }
    this.shared = workers === undefined ? Number.POSITIVE_INFINITY : workers - reservedWorkers(workers, cap);
    this.delayed = new Delaying<T>(this.clock, (item, dueAt) => this.insert(item, dueAt));
  }

  /**
   * Items ready to be handed out (not processing, not delayed), those of
   * tenants at their cap included.
   */
  get length(): number {
    return this.ready;
  }

  get processingCount(): number {
    return this.processing.size;
  }

  get shuttingDown(): boolean {
    return this.stopped;
  }

  /** Ready items of one tenant. */
  tenantDepth(tenant: string): number {
    return this.byTenant.get(tenant)?.length ?? 0;
  }

  /** Items of one tenant in processing. */
  tenantInFlight(tenant: string): number {
    return this.inFlight.get(tenant) ?? 0;
  }

  /**
   * Tenants with ready items, in the order they will next be served; those
   * at their cap are left out until one of their items is `done`. While the
   * reserve is in use, those with items in processing are passed over.
   */
  tenants(): string[] {
    return [...this.ring];
  }

  /**
   * Makes `item` ready. A key already waiting stays where it is and takes
   * this item (the newest is the freshest); a key being processed is handed
   * out again after its `done`, never in parallel. Ignored after shutdown.
   */
  add(item: T): void {
    this.insert(item, this.clock.now());
  }

  /**
   * Adds `item` once `delayMs` has passed; at once if it is not positive.
   * While the key waits, an earlier due time replaces its time and a later
   * one does not postpone it. Ignored after shutdown.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.stopped) return;
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    this.delayed.schedule(this.keyOf(item), item, this.clock.now() + delayMs);
  }

  /** Adds `item` after the delay the rate limiter gives its key: a retry. */
  addRateLimited(item: T): void {
    if (this.stopped) return;
    this.metrics.retry();
    this.addAfter(item, this.rateLimiter.when(this.keyOf(item), this.tenantOf(item)));
  }

  /** Resets the backoff of `item`'s key; call it when the key succeeded. */
  forget(item: T): void {
    this.rateLimiter.forget(this.keyOf(item));
  }

  /** Rate-limited adds of `item`'s key since it was last forgotten. */
  retries(item: T): number {
    return this.rateLimiter.retries(this.keyOf(item));
  }

  /**
   * The next item, now marked processing until `done`; waits while none is
   * ready. Resolves `undefined` after shutdown or once `signal` aborts.
   * Concurrent callers are served oldest first, each with a different key.
   */
  get(signal?: AbortSignal): Promise<T | undefined> {
    if (this.stopped || signal?.aborted === true) return Promise.resolve(undefined);
    const next = this.takeNext();
    if (next !== undefined) return Promise.resolve(next.item);
    return this.waiters.wait(signal);
  }

  /**
   * Ends processing of `item`'s key; if it was added meanwhile, it becomes
   * ready again now, behind its tenant's waiting items. A tenant that was
   * at its cap is served again, and so are tenants with items in processing
   * once the reserve is free again. A key not processing is ignored, so a
   * worker's cleanup may call this twice.
   */
  done(item: T): void {
    const key = this.keyOf(item);
    const inFlight = this.processing.get(key);
    if (inFlight === undefined) return;
    this.processing.delete(key);
    const now = this.clock.now();
    this.metrics.workDuration((now - inFlight.startedAt) / 1000);
    const { tenant } = inFlight;
    const count = this.tenantInFlight(tenant) - 1;
    if (count === 0) this.inFlight.delete(tenant);
    else this.inFlight.set(tenant, count);
    if (count + 1 === this.maxInFlightPerTenant && this.byTenant.has(tenant)) this.ring.push(tenant);
    const parked = this.dirty.get(key);
    if (parked !== undefined) {
      parked.readyAt = now;
      this.enqueue(parked);
    }
    this.serveWaiters();
    if (this.processing.size === 0) this.releaseDrainers();
  }

  /**
   * Stops for good: waiting and future `get`s resolve `undefined`, adds are
   * ignored, and ready and delayed items are dropped. Items being processed
   * may still be `done`; `drain` tells when they all are.
   */
  shutDown(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.delayed.clear();
    this.waiters.releaseAll();
    this.dirty.clear();
    this.byTenant.clear();
    this.ring.clear();
    if (this.ready !== 0) {
      this.ready = 0;
      this.metrics.depth(0);
    }
    if (this.processing.size === 0) this.releaseDrainers();
  }

  /** Resolves once no item is being processed. */
  drain(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainers.push(resolve));
  }

  private insert(item: T, readyAt: number): void {
    if (this.stopped) return;
    const key = this.keyOf(item);
    const existing = this.dirty.get(key);
    if (existing !== undefined) {
      existing.item = item;
      return;
    }
    // Counted only past the fold, as client-go counts workqueue_adds_total:
    // an add of a key already waiting is no new work.
    this.metrics.add();
    const pending: Pending<T> = { key, tenant: this.tenantOf(item), item, readyAt };
    this.dirty.set(key, pending);
    if (!this.processing.has(key)) this.enqueue(pending);
  }

  private enqueue(pending: Pending<T>): void {
    let fifo = this.byTenant.get(pending.tenant);
    if (fifo === undefined) {
      fifo = new Fifo<Pending<T>>();
      this.byTenant.set(pending.tenant, fifo);
      if (this.tenantInFlight(pending.tenant) < this.maxInFlightPerTenant) this.ring.push(pending.tenant);
    }
    fifo.push(pending);
    this.ready++;
    this.metrics.depth(this.ready);
    this.serveWaiters();
  }

  // Waiters exist only while no tenant in the ring may be served, so the
  // item they get is the one the round-robin would pick anyway.
  private serveWaiters(): void {
    while (this.waiters.size > 0) {
      const next = this.takeNext();
      if (next === undefined) return;
      this.waiters.serve(next.item);
    }
  }

  // One item from the tenant at the head of the ring, which then goes to the
  // tail if it has more and is below its cap: each tenant gets one turn per
  // round.
  private takeNext(): Pending<T> | undefined {
    const tenant = this.nextTenant();
    if (tenant === undefined) return undefined;
    const fifo = this.byTenant.get(tenant);
    const next = fifo?.shift();
    if (fifo === undefined || next === undefined) return undefined;
    const inFlight = this.tenantInFlight(tenant) + 1;
    this.inFlight.set(tenant, inFlight);
    if (fifo.length === 0) this.byTenant.delete(tenant);
    else if (inFlight < this.maxInFlightPerTenant) this.ring.push(tenant);
    this.ready--;
    this.dirty.delete(next.key);
    const now = this.clock.now();
    this.processing.set(next.key, { tenant, startedAt: now });
    this.metrics.depth(this.ready);
    this.metrics.queueLatency((now - next.readyAt) / 1000, tenant);
    return next;
  }

  // The head of the ring, or while the reserve is in use the first tenant in
  // it with nothing in processing. The tenants passed over go to the tail:
  // the ring turns, so their round-robin order among themselves holds. They
  // number at most the items in processing, so the scan stays short however
  // many tenants wait.
  private nextTenant(): string | undefined {
    if (this.processing.size < this.shared) return this.ring.shift();
    for (let left = this.ring.length; left > 0; left--) {
      const tenant = this.ring.shift();
      if (tenant === undefined || !this.inFlight.has(tenant)) return tenant;
      this.ring.push(tenant);
    }
    return undefined;
  }

  private releaseDrainers(): void {
    const drainers = this.drainers;
    this.drainers = [];
    for (const resolve of drainers) resolve();
  }
}
