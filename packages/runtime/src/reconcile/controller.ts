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
import { sinceProcessStartMs } from "../observability/boot-timing.js";
import { defaultMaxInFlightPerTenant, FairQueue } from "../queue/fair-queue.js";
import type { ReconcileResult } from "../observability/metrics.js";
import type { Clock } from "../queue/clock.js";
import type { QueueMetrics } from "../queue/queue-metrics.js";
import type { RateLimiter } from "../queue/rate-limiter.js";
import { settlesWithin } from "./bounded-wait.js";
import { SILENT, TerminalError, type Logger, type NoScope, type Reconciler } from "./reconciler.js";
import { describeRequest, requestKey, tenantOf, type Request } from "./request.js";
import { StaleObjectError } from "./writes.js";

/** What the controller reports; RuntimeMetrics implements it. */
export interface ControllerMetrics {
  registerController(controller: string, maxConcurrentReconciles: number): void;
  queueMetrics(controller: string, name: string): QueueMetrics;
  recordReconcile(controller: string, result: ReconcileResult, seconds: number): void;
  recordError(controller: string, options: { terminal: boolean }): void;
  recordPanic(controller: string): void;
  setWorkers(controller: string, active: number): void;
}

interface BaseControllerOptions<S> {
  /** Names the controller in logs and metrics. */
  readonly name: string;
  readonly reconciler: Reconciler<S>;
  /** Workers, hence reconciles in flight (of different keys). Default 1. */
  readonly maxConcurrentReconciles?: number;
  /**
   * Most reconciles of one tenant in flight at once; the tenant's other
   * requests wait while its other reconciles run, so a tenant whose
   * reconciles hang cannot take every worker. Default
   * `defaultMaxInFlightPerTenant(maxConcurrentReconciles)`: half the
   * workers rounded up (1 for one worker), which leaves the other half to
   * the other tenants and still gives a tenant alone with a backlog half the
   * throughput. Of what the cap leaves, the queue also keeps
   * `reservedWorkers(maxConcurrentReconciles, maxInFlightPerTenant)` workers
   * (a quarter, rounded up) for tenants with no reconcile in flight, so that
   * two or three slow tenants together cannot take every worker either; a
   * cap of every worker reserves none.
   */
  readonly maxInFlightPerTenant?: number;
  /** Aborts a reconcile's signal after this long. Default: no timeout. */
  readonly reconcileTimeoutMs?: number;
  /**
   * After a stop, how long to wait for reconciles in flight (their signals
   * have aborted) before returning anyway. Default 30 000, controller-runtime's
   * graceful shutdown timeout. A reconcile that ignores its signal must not
   * keep a replica that lost its Lease alive; its calls through a bound
   * client fail at once, so it can no longer act.
   */
  readonly drainTimeoutMs?: number;
  /** Backoff for failed keys. Default: the queue's (5 ms → 1000 s per key, 10 qps and bursts of 100 per tenant). */
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

/**
 * The cluster a request's reconcile may see, or undefined when its tenant is
 * out of reach (not engaged yet, or gone): then the request is dropped, and
 * engaging the tenant enqueues its objects again. `signal` is the
 * reconcile's, to bind into the scope's client.
 */
export type ScopeOf<S> = (request: Request, signal: AbortSignal) => S | undefined;

/** `scope` may be left out only by controllers whose reconcilers take no scope. */
export type ControllerOptions<S = NoScope> = BaseControllerOptions<S> &
  ([S] extends [NoScope] ? { readonly scope?: ScopeOf<S> } : { readonly scope: ScopeOf<S> });

const NO_SCOPE: NoScope = Object.freeze({});

/** Why a reconcile's signal aborted before it ended on its own. */
export class ReconcileAbortedError extends Error {
  override readonly name = "ReconcileAbortedError";
}

/** Errors that are bugs in the reconciler rather than trouble in the world. */
const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

/** Stale writes in a row that are logged at debug level, before they are errors. */
const ROUTINE_STALE_RETRIES = 3;

export class Controller<S = NoScope> {
  readonly name: string;
  readonly queue: FairQueue<Request>;
  private readonly log: Logger | undefined;
  /** Reconciles running now, each with the controller that aborts its signal. */
  private readonly inFlight = new Map<string, { readonly request: Request; readonly abort: AbortController }>();
  private idleWaiters: { predicate: (request: Request) => boolean; resolve: () => void }[] = [];
  /** Whether a reconcile has ended in this process: the first one is logged, as the end of boot. */
  private reconciledOnce = false;

  private readonly scope: ScopeOf<S>;

  constructor(private readonly options: ControllerOptions<S>) {
    this.scope = options.scope ?? ((): S => NO_SCOPE as S);
    this.name = options.name;
    this.log = options.logger?.child({ controller: options.name });
    this.queue = new FairQueue<Request>({
      name: options.name,
      key: requestKey,
      tenant: tenantOf,
      maxInFlightPerTenant: options.maxInFlightPerTenant ?? defaultMaxInFlightPerTenant(options.maxConcurrentReconciles ?? 1),
      workers: options.maxConcurrentReconciles ?? 1,
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
    if (!this.inFlightRequests().some(predicate)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ predicate, resolve }));
  }

  /**
   * Aborts the signals of the reconciles in flight that match `predicate`
   * (their tenant's slot went to another replica, say). They end as failures
   * and are not retried here unless admitted again.
   */
  abortInFlight(predicate: (request: Request) => boolean, reason: string): void {
    for (const { request, abort } of this.inFlight.values()) {
      if (predicate(request)) abort.abort(new ReconcileAbortedError(reason));
    }
  }

  /**
   * Runs the workers until `signal` aborts, then stops taking work, aborts
   * the reconciles in flight and waits for them, at most `drainTimeoutMs`.
   * Resolves false when some did not end in time (they are abandoned).
   */
  async start(signal: AbortSignal): Promise<boolean> {
    const workers = this.options.maxConcurrentReconciles ?? 1;
    this.options.metrics?.registerController(this.name, workers);
    // The manager starts a controller once the caches it reads have synced: with the line below, boot's phases are in the log.
    this.log?.info({ workers, sinceProcessStartMs: sinceProcessStartMs() }, "starting workers");
    const running = Promise.all(Array.from({ length: workers }, () => this.work(signal)));
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    this.queue.shutDown();
    this.abortInFlight(() => true, "the controller is stopping");
    const drained = await settlesWithin(running.then(() => this.queue.drain()), this.options.drainTimeoutMs ?? 30_000);
    if (!drained) {
      this.log?.error({ abandoned: this.inFlightRequests().map(describeRequest) }, "reconciles did not end after their signals aborted; abandoning them");
    }
    return drained;
  }

  private inFlightRequests(): Request[] {
    return Array.from(this.inFlight.values(), (entry) => entry.request);
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
      const abort = new AbortController();
      this.inFlight.set(key, { request, abort });
      this.reportWorkers();
      try {
        await this.reconcileOne(request, AbortSignal.any([signal, abort.signal]));
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
    const log = (this.log ?? SILENT).child({ cluster: request.cluster, namespace: request.namespace, name: request.name, reconcileID });
    const signals = [stop, ...(this.options.reconcileTimeoutMs ? [AbortSignal.timeout(this.options.reconcileTimeoutMs)] : [])];
    const signal = signals.length === 1 ? stop : AbortSignal.any(signals);
    const scope = this.scope(request, signal);
    if (scope === undefined) {
      // The tenant left this replica's view (unbound, its shard gone) or is
      // not engaged yet; engaging it enqueues all of its objects again.
      this.queue.forget(request);
      log.debug({}, "tenant not engaged; dropping the request");
      return;
    }
    const started = performance.now();
    let outcome: ReconcileResult;
    try {
      const result = await this.options.reconciler.reconcile(request, { signal, reconcileID, log, scope });
      this.queue.forget(request);
      const after = result?.requeueAfterMs ?? 0;
      if (after > 0) {
        this.queue.addAfter(request, after);
        outcome = "requeue_after";
      } else {
        outcome = "success";
      }
      log.debug({ requeueAfterMs: after || undefined }, "reconciled");
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
      // A stale read is a cache behind a write, routine in a level-triggered
      // controller; only one that keeps coming back (writers fighting) is worth an error.
      const routine = err instanceof StaleObjectError && this.queue.retries(request) <= ROUTINE_STALE_RETRIES;
      const fields = { err, retry: !terminal, request: describeRequest(request) };
      if (routine) log.debug(fields, "reconcile failed");
      else log.error(fields, "reconcile failed");
    }
    this.options.metrics?.recordReconcile(this.name, outcome, (performance.now() - started) / 1000);
    if (!this.reconciledOnce) {
      this.reconciledOnce = true;
      this.log?.info({ result: outcome, sinceProcessStartMs: sinceProcessStartMs() }, "first reconcile finished");
    }
  }

  private admitted(request: Request): boolean {
    return this.options.admit?.(request) ?? true;
  }

  private wakeIdleWaiters(): void {
    const inFlight = this.inFlightRequests();
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
