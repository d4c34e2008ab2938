/**
 * Keeps a Store in step with one resource at one endpoint: a paged LIST, then
 * WATCH from the list's resourceVersion, again and again until stopped, and
 * tells handlers what changed. Every failure is logged and retried; callers
 * only see `synced` and the handler calls.
 *
 * Owns: the endpoint's single resourceVersion cursor, when to relist, retry
 * timing, and turning store changes into handler calls (each change exactly
 * once). Must not: look into objects beyond key and resourceVersion (and
 * the fields it strips, see transform.ts), order resourceVersions, or share
 * its store with another reflector (a relist removes whatever it did not
 * list).
 *
 * A relist is streamed: each page goes into the store (and its changes to
 * the handlers) as it arrives and is then dropped; only after the last page
 * are the objects it did not contain removed and reported deleted. So memory
 * holds the store, one page and the listed keys, never the old store, every
 * page and a new store at once. The price: while a relist runs, readers see
 * objects from before it beside objects from its snapshot, and objects
 * already deleted on the server until its end. Each object is whole and
 * consistent, and a store never was one snapshot across objects anyway (a
 * watch applies one event at a time). That suits level-triggered
 * reconcilers: each reads the latest state of what it reconciles, and every
 * object that the relist changes or removes is reported, so anything decided
 * on the mix is reconciled again once its object settles. A relist that
 * fails midway keeps what it stored (newer than what it replaced), removes
 * nothing, and moves neither the cursor nor `hasSynced`; the next relist
 * starts over and finishes the job.
 */
import { HttpStatusError, type KubeObject, type RestClient, type Status, type WatchEvent } from "@edgeconnect/kcp-ts";
import { Backoff, type BackoffOptions } from "./backoff.js";
import { InitialSyncError, ObjectKeyError, WatchEventError } from "./errors.js";
import { objectKey } from "./object-key.js";
import { deepFreeze, Store, type DeepReadonly, type StoreChange } from "./store.js";
import { stripManagedFields } from "./transform.js";

/** All a reflector needs of a client; RestClient has it. */
export type ListWatchClient = Pick<RestClient, "list" | "watch">;

/**
 * Called synchronously, in event order, after the store has changed. A throw
 * is logged and does not stop the reflector (the store keeps the change).
 */
export interface ReflectorHandlers<T> {
  added?(obj: DeepReadonly<T>): void;
  updated?(old: DeepReadonly<T>, current: DeepReadonly<T>): void;
  /** With the object's last state: the DELETED event's object, or after a relist the last stored one. */
  deleted?(obj: DeepReadonly<T>): void;
}

/** The part of a pino logger the reflector uses. */
export interface ReflectorLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface ReflectorOptions<T extends KubeObject> {
  readonly client: ListWatchClient;
  /** The collection's path below the client's server, e.g. `/clusters/*` followed by `/apis/g/v/res`. */
  readonly path: string;
  /** Objects per LIST page (`limit`). Default 500. */
  readonly pageSize?: number;
  /** Sent with every LIST and WATCH. Default: none. */
  readonly labelSelector?: string;
  /** Sent with every LIST and WATCH. Default: none. */
  readonly fieldSelector?: string;
  /**
   * The server ends each watch after about this long (`timeoutSeconds`,
   * jittered ±10% so that reflectors started together do not re-watch
   * together). Default 300.
   */
  readonly watchTimeoutSeconds?: number;
  /**
   * A watch that delivers nothing, not even a bookmark, for this long is
   * aborted and re-opened from the cursor: a half-open connection or a stuck
   * proxy would otherwise leave the store silently stale. Bookmarks arrive
   * about every minute, hence the default 90 000.
   */
  readonly inactivityTimeoutMs?: number;
  /**
   * A watch that ends sooner than this, for whatever reason, is followed by a
   * backoff rather than an immediate new request, so that a server or proxy
   * that closes watches at once cannot cause a request loop. Default 1 000.
   */
  readonly shortWatchMs?: number;
  /** A LIST page that has not fully arrived after this long fails (and is retried). Default 60 000. */
  readonly listTimeoutMs?: number;
  /** Delays after failures. Defaults: see BackoffOptions. */
  readonly backoff?: BackoffOptions;
  /** Where objects go; must not be filled by anything else. Default: a new Store without custom indexes. */
  readonly store?: Store<T>;
  /** Default: none (the reflector only fills the store). */
  readonly handlers?: ReflectorHandlers<T>;
  /**
   * Applied to every listed object and every watch event's object before it
   * is stored or reported, after the built-in strip of managedFields (which
   * always runs: see transform.ts): to drop
   * more that no reader needs, such as a Node's `status.images`. Gets an
   * object only the reflector holds, not frozen yet, and may change it or
   * return another; must keep its name, namespace, logical cluster and
   * resourceVersion, and must be pure. A throw fails the list or watch like
   * a server error would (and is retried). Default: none.
   */
  readonly transform?: (obj: T) => T;
  /** Default: discards everything. */
  readonly logger?: ReflectorLogger;
}

/** How one watch request ended. */
type WatchEnd =
  | { readonly kind: "stopped" }
  /** The cursor is too old (410): relist. */
  | { readonly kind: "expired" }
  /** The server ended it, or it went silent and was aborted: watch again from the cursor. */
  | { readonly kind: "closed" | "silent" }
  | { readonly kind: "failed"; readonly error: unknown };

/** What one LIST stored, for the relist to finish with. */
interface ListOutcome {
  /** The keys of every object in the snapshot: the rest is gone. */
  readonly listed: Set<string>;
  resourceVersion: string;
  added: number;
  updated: number;
}

/**
 * How often a LIST whose continue token expired (410) starts over at once
 * before the failure goes to the backoff: each start over is a full list
 * again, and a list that keeps expiring is too slow for the server's token
 * lifetime, so retrying it at full speed would not help.
 */
const EXPIRED_LIST_RESTARTS = 2;

/** Retry-After is honoured up to this: a longer wait is likelier a misconfigured server than a useful request. */
const MAX_RETRY_AFTER_MS = 60_000;

const NO_LOGGER: ReflectorLogger = { warn: () => undefined, info: () => undefined, debug: () => undefined };

export class Reflector<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  /** Settles once: resolves after the first complete list is stored and reported; rejects with InitialSyncError when stopped before. */
  readonly synced: Promise<void>;

  private readonly client: ListWatchClient;
  private readonly path: string;
  private readonly pageSize: number;
  private readonly selectors: { readonly labelSelector?: string; readonly fieldSelector?: string };
  private readonly watchTimeoutSeconds: number;
  private readonly inactivityTimeoutMs: number;
  private readonly shortWatchMs: number;
  private readonly listTimeoutMs: number;
  private readonly backoff: Backoff;
  private readonly handlers: ReflectorHandlers<T>;
  private readonly transform: (obj: T) => T;
  private readonly logger: ReflectorLogger;
  private readonly stopping = new AbortController();
  private resolveSynced: () => void = () => undefined;
  private rejectSynced: (err: InitialSyncError) => void = () => undefined;
  private running: Promise<void> | undefined;
  private isSynced = false;
  /** The resourceVersion of the last list or event applied: where the next watch starts. */
  private cursor = "";
  private lastListError: unknown;

  constructor(options: ReflectorOptions<T>) {
    this.client = options.client;
    this.path = options.path;
    this.pageSize = options.pageSize ?? 500;
    this.selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
    this.inactivityTimeoutMs = options.inactivityTimeoutMs ?? 90_000;
    this.shortWatchMs = options.shortWatchMs ?? 1_000;
    this.listTimeoutMs = options.listTimeoutMs ?? 60_000;
    this.backoff = new Backoff(options.backoff);
    this.store = options.store ?? new Store<T>();
    this.handlers = options.handlers ?? {};
    const custom = options.transform;
    this.transform = custom === undefined ? stripManagedFields : (obj) => custom(stripManagedFields(obj));
    this.logger = options.logger ?? NO_LOGGER;
    this.synced = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    // Nobody has to await `synced`; a stop before the first list must not
    // then become an unhandled rejection.
    this.synced.catch(() => undefined);
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  /** The resourceVersion of the last list or event applied ("" before the first list). */
  get lastSyncResourceVersion(): string {
    return this.cursor;
  }

  /** Lists and watches until `stop()`; then resolves. Failures are retried, never thrown. One start per reflector. */
  start(): Promise<void> {
    if (this.running !== undefined) throw new Error(`reflector for ${this.path} was started already`);
    this.running = this.run();
    return this.running;
  }

  /** Aborts the request in flight and resolves once `start()` has returned. Final: a stopped reflector stays stopped. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    if (!this.isSynced) this.rejectSynced(new InitialSyncError(this.path, this.lastListError));
  }

  private async run(): Promise<void> {
    const stop = this.stopping.signal;
    let relist = true;
    while (!stop.aborted) {
      if (relist) {
        try {
          await this.relist();
          relist = false;
        } catch (err) {
          if (stop.aborted) return;
          this.lastListError = err;
          const wait = this.retryDelay(err);
          this.logger.warn({ path: this.path, err, retryInMs: wait }, "list failed");
          await sleep(wait, stop);
          continue;
        }
      }
      const startedAt = performance.now();
      const end = await this.watch();
      if (end.kind === "stopped") return;
      const short = performance.now() - startedAt < this.shortWatchMs;
      const wait = end.kind === "failed" ? this.retryDelay(end.error) : short ? this.backoff.next() : 0;
      const context = { path: this.path, resourceVersion: this.cursor, retryInMs: wait };
      switch (end.kind) {
        case "expired":
          relist = true;
          this.logger.info(context, "watch resourceVersion expired; relisting");
          break;
        case "silent":
          this.logger.info({ ...context, inactivityTimeoutMs: this.inactivityTimeoutMs }, "watch went silent; watching again");
          break;
        case "closed":
          this.logger.debug(context, "watch ended; watching again");
          break;
        case "failed":
          this.logger.warn({ ...context, err: end.error }, "watch failed");
          break;
      }
      await sleep(wait, stop);
    }
  }

  /** One streamed relist (see the top of this file); reports the first complete one as synced. */
  private async relist(): Promise<void> {
    const { listed, resourceVersion, added, updated } = await this.listAll();
    const deleted = this.store.removeExcept(listed);
    this.cursor = resourceVersion;
    for (const obj of deleted) this.notify("deleted", () => this.handlers.deleted?.(obj));
    this.logger.info({ path: this.path, resourceVersion, objects: this.store.size, added, updated, deleted: deleted.length }, "listed");
    if (!this.isSynced) {
      this.isSynced = true;
      this.resolveSynced();
    }
  }

  /** All pages of one consistent LIST, stored as they arrive; starts over when a continue token expires. */
  private async listAll(): Promise<ListOutcome> {
    for (let restarts = 0; ; restarts += 1) {
      try {
        return await this.listPages();
      } catch (err) {
        if (!isExpired(err) || restarts >= EXPIRED_LIST_RESTARTS || this.stopping.signal.aborted) throw err;
        this.logger.info({ path: this.path, err }, "list continue token expired; listing again from the start");
      }
    }
  }

  /** Keys are collected afresh per attempt: an object listed by an abandoned attempt may be gone from the new snapshot. */
  private async listPages(): Promise<ListOutcome> {
    const outcome: ListOutcome = { listed: new Set(), resourceVersion: "", added: 0, updated: 0 };
    let token: string | undefined;
    do {
      const page = await this.client.list<T>(this.path, {
        query: { ...this.selectors, limit: this.pageSize, continue: token },
        signal: this.stopping.signal,
        timeoutMs: this.listTimeoutMs,
      });
      // Some servers encode an empty list's items as null.
      for (const item of page.items ?? []) this.storeListed(item, outcome);
      // Every page carries the resourceVersion of the first page's snapshot.
      outcome.resourceVersion = page.metadata.resourceVersion ?? outcome.resourceVersion;
      token = page.metadata.continue || undefined;
    } while (token !== undefined);
    return outcome;
  }

  /** Stores and reports one listed object; a nameless one is logged and left out so that it cannot block every relist. */
  private storeListed(item: T, outcome: ListOutcome): void {
    const obj = this.transform(item);
    let key: string;
    try {
      key = objectKey(obj);
    } catch (err) {
      if (!(err instanceof ObjectKeyError)) throw err;
      this.logger.warn({ path: this.path, err }, "skipping a listed object without a name");
      return;
    }
    outcome.listed.add(key);
    const change = this.store.upsert(obj);
    if (change === undefined) return;
    if (change.old === undefined) outcome.added += 1;
    else outcome.updated += 1;
    this.report(change);
  }

  /** One WATCH request from the cursor, applied event by event until it ends. */
  private async watch(): Promise<WatchEnd> {
    const stop = this.stopping.signal;
    const abort = new AbortController();
    const onStop = (): void => abort.abort();
    stop.addEventListener("abort", onStop, { once: true });
    let silent = false;
    let timer: NodeJS.Timeout | undefined;
    // Armed before the request, so a server that never answers counts as silent too.
    const rearm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        abort.abort();
      }, this.inactivityTimeoutMs);
    };
    rearm();
    const events = this.client.watch<T>(this.path, {
      query: {
        ...this.selectors,
        allowWatchBookmarks: true,
        resourceVersion: this.cursor || undefined,
        timeoutSeconds: Math.max(1, Math.round(this.watchTimeoutSeconds * (0.9 + 0.2 * Math.random()))),
      },
      signal: abort.signal,
    });
    try {
      for await (const event of events) {
        rearm();
        if (this.apply(event) === "expired") return { kind: "expired" };
      }
      return stop.aborted ? { kind: "stopped" } : { kind: silent ? "silent" : "closed" };
    } catch (err) {
      if (stop.aborted) return { kind: "stopped" };
      if (silent) return { kind: "silent" };
      if (isExpired(err)) return { kind: "expired" };
      return { kind: "failed", error: err };
    } finally {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    }
  }

  /**
   * Applies one event to the store, reports the change, and moves the cursor
   * past it. Returns "expired" for a 410 ERROR event; throws WatchEventError
   * for any other.
   */
  private apply(event: WatchEvent<T>): "expired" | undefined {
    if (event.type === "ERROR") {
      const status = event.object as unknown as Status;
      if (isExpiredStatus(status)) return "expired";
      throw new WatchEventError(this.path, status);
    }
    const obj = event.object;
    try {
      switch (event.type) {
        case "ADDED":
        case "MODIFIED": {
          // undefined: applied already (same resourceVersion), nothing to report.
          const change = this.store.upsert(this.transform(obj));
          if (change !== undefined) this.report(change);
          break;
        }
        case "DELETED": {
          const last = this.transform(obj);
          // Gone from the store already (a relist reported it): not again.
          // Frozen like every object handlers see: it may go to several handlers.
          if (this.store.remove(last) !== undefined) this.notify("deleted", () => this.handlers.deleted?.(deepFreeze(last)));
          break;
        }
        case "BOOKMARK":
          break;
        default:
          this.logger.warn({ path: this.path, type: String(event.type) }, "ignoring a watch event of unknown type");
      }
    } catch (err) {
      // Retrying cannot fix a nameless object; stopping at it would block every later event.
      if (!(err instanceof ObjectKeyError)) throw err;
      this.logger.warn({ path: this.path, err }, "skipping a watch event whose object has no name");
    }
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.cursor = rv;
    return undefined;
  }

  private report({ old, current }: StoreChange<T>): void {
    if (old === undefined) this.notify("added", () => this.handlers.added?.(current));
    else this.notify("updated", () => this.handlers.updated?.(old, current));
  }

  private notify(handler: keyof ReflectorHandlers<T>, call: () => void): void {
    try {
      call();
    } catch (err) {
      this.logger.warn({ path: this.path, handler, err }, "event handler failed");
    }
  }

  /** Retry-After when the server sent one (429, some 5xx), else the next backoff step. */
  private retryDelay(err: unknown): number {
    const seconds = err instanceof HttpStatusError || err instanceof WatchEventError ? err.retryAfterSeconds : undefined;
    return seconds !== undefined && seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : this.backoff.next();
  }
}

function isExpired(err: unknown): boolean {
  return err instanceof HttpStatusError && (err.status === 410 || err.reason === "Expired" || err.reason === "Gone");
}

function isExpiredStatus(status: Status): boolean {
  return status.code === 410 || status.reason === "Expired" || status.reason === "Gone";
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
