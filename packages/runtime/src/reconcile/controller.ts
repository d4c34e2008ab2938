/**
 * The reconcile loop: N workers take requests from a fair per-tenant queue,
 * call the reconciler, and turn its outcome into the next step for that key
 * (see reconciler.ts for the table). Owns workers, timeouts and outcome
 * bookkeeping; knows nothing about where requests come from (handlers.ts).
 *
 * Guarantees: a key is never reconciled by two workers at once; triggers that
 * arrive while a key waits fold into one reconcile; one tenant's backlog
 * cannot starve another tenant (the queue serves tenants round-robin).
 */
import { randomUUID } from "node:crypto";
import { FairQueue } from "../queue/fair-queue.js";
import type { ReconcileResult } from "../observability/metrics.js";
import type { Clock } from "../queue/clock.js";
import type { QueueMetrics } from "../queue/queue-metrics.js";
import type { RateLimiter } from "../queue/rate-limiter.js";
import { TerminalError, type Reconciler } from "./reconciler.js";
import { describeRequest, requestKey, tenantOf, type Request } from "./request.js";

/** What the controller reports; RuntimeMetrics implements it. */
export interface ControllerMetrics {
  registerController(controller: string, maxConcurrentReconciles: number): void;
  queueMetrics(controller: string, name: string): QueueMetrics;
  recordReconcile(controller: string, result: ReconcileResult, seconds: number): void;
  recordError(controller: string, options: { terminal: boolean }): void;
  recordPanic(controller: string): void;
  setWorkers(controller: string, active: number): void;
}

/** The slice of a pino logger the controller uses. */
export interface Logger {
  child(bindings: Record<string, unknown>): Logger;
  debug(obj: object, message: string): void;
  info(obj: object, message: string): void;
  warn(obj: object, message: string): void;
  error(obj: object, message: string): void;
}

export interface ControllerOptions {
  /** Names the controller in logs and metrics. */
  readonly name: string;
  readonly reconciler: Reconciler;
  /** Workers, hence reconciles in flight (of different keys). Default 1. */
  readonly maxConcurrentReconciles?: number;
  /** Aborts a reconcile's signal after this long. Default: no timeout. */
  readonly reconcileTimeoutMs?: number;
  /** Backoff for failed keys. Default: the queue's (5 ms → 1000 s per key, 10 qps overall). */
  readonly rateLimiter?: RateLimiter<string>;
  readonly metrics?: ControllerMetrics;
  readonly logger?: Logger;
  /**
   * Whether this replica may reconcile a request now (sharding). Checked on
   * enqueue and again before each reconcile. Default: everything.
   */
  readonly admit?: (request: Request) => boolean;
  /** Time source of the queue's delays. Default: the real clock. */
  readonly clock?: Clock;
}

/** Errors that are bugs in the reconciler rather than trouble in the world. */
const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

export class Controller {
  readonly name: string;
  readonly queue: FairQueue<Request>;
  private readonly log: Logger | undefined;
  private readonly inFlight = new Map<string, Request>();
  private idleWaiters: { predicate: (request: Request) => boolean; resolve: () => void }[] = [];

  constructor(private readonly options: ControllerOptions) {
    this.name = options.name;
    this.log = options.logger?.child({ controller: options.name });
    this.queue = new FairQueue<Request>({
      name: options.name,
      key: requestKey,
      tenant: tenantOf,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.metrics ? { metrics: options.metrics.queueMetrics(options.name, options.name) } : {}),
    });
  }

  /** Asks for a reconcile of `request`; repeated asks before it runs fold into one. */
  enqueue(request: Request): void {
    if (this.admitted(request)) this.queue.add(request);
  }

  /** Resolves once no reconcile matching `predicate` is in flight. */
  whenIdle(predicate: (request: Request) => boolean): Promise<void> {
    if (![...this.inFlight.values()].some(predicate)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ predicate, resolve }));
  }

  /**
   * Runs the workers until `signal` aborts, then stops taking work and waits
   * for the reconciles in flight to finish.
   */
  async start(signal: AbortSignal): Promise<void> {
    const workers = this.options.maxConcurrentReconciles ?? 1;
    this.options.metrics?.registerController(this.name, workers);
    const stop = (): void => this.queue.shutDown();
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    await Promise.all(Array.from({ length: workers }, () => this.work(signal)));
    await this.queue.drain();
  }

  private async work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const request = await this.queue.get();
      if (request === undefined) return;
      if (!this.admitted(request)) {
        // Its shard moved away while it waited; the new owner resyncs it.
        this.queue.forget(request);
        this.queue.done(request);
        continue;
      }
      const key = requestKey(request);
      this.inFlight.set(key, request);
      this.reportWorkers();
      try {
        await this.reconcileOne(request, signal);
      } finally {
        this.inFlight.delete(key);
        this.reportWorkers();
        this.queue.done(request);
        this.wakeIdleWaiters();
      }
    }
  }

  private async reconcileOne(request: Request, stop: AbortSignal): Promise<void> {
    const reconcileID = randomUUID();
    const log = this.log?.child({ cluster: request.cluster, namespace: request.namespace, name: request.name, reconcileID });
    const signals = [stop, ...(this.options.reconcileTimeoutMs ? [AbortSignal.timeout(this.options.reconcileTimeoutMs)] : [])];
    const started = performance.now();
    let outcome: ReconcileResult;
    try {
      const result = await this.options.reconciler.reconcile(request, {
        signal: signals.length === 1 ? stop : AbortSignal.any(signals),
        reconcileID,
      });
      this.queue.forget(request);
      const after = result?.requeueAfterMs ?? 0;
      if (after > 0) {
        this.queue.addAfter(request, after);
        outcome = "requeue_after";
      } else {
        outcome = "success";
      }
      log?.debug({ requeueAfterMs: after || undefined }, "reconciled");
    } catch (err) {
      outcome = "error";
      const terminal = err instanceof TerminalError;
      this.options.metrics?.recordError(this.name, { terminal });
      if (PROGRAMMING_ERRORS.some((kind) => err instanceof kind)) this.options.metrics?.recordPanic(this.name);
      if (terminal) {
        this.queue.forget(request);
      } else {
        this.queue.addRateLimited(request);
      }
      log?.error({ err, retry: !terminal, request: describeRequest(request) }, "reconcile failed");
    }
    this.options.metrics?.recordReconcile(this.name, outcome, (performance.now() - started) / 1000);
  }

  private admitted(request: Request): boolean {
    return this.options.admit?.(request) ?? true;
  }

  private wakeIdleWaiters(): void {
    const inFlight = [...this.inFlight.values()];
    this.idleWaiters = this.idleWaiters.filter((waiter) => {
      if (inFlight.some(waiter.predicate)) return true;
      waiter.resolve();
      return false;
    });
  }

  private reportWorkers(): void {
    this.options.metrics?.setWorkers(this.name, this.inFlight.size);
  }
}
