/**
 * Kubernetes Events (core/v1) for the objects a controller acts on: what
 * `kubectl describe` shows a user under "Events".
 *
 * Follows client-go's recorder where users can see it: repeats of the same
 * event (same object, type, reason and message) within ten minutes bump
 * `count` and `lastTimestamp` of one Event instead of creating new ones, and
 * a per-object token bucket (burst 25, one more every five minutes) keeps a
 * hot loop from flooding the API server. Events of cluster-scoped objects go
 * to the `default` namespace, as client-go puts them.
 *
 * Recording never blocks or fails the caller: writes run in the background,
 * one at a time per event key, and failures are logged. `flush()` waits for
 * what was recorded so far (tests, shutdown).
 *
 * An Event is readable by everyone who can read its namespace (a tenant,
 * for one about a tenant's object), so messages are scrubbed of registered
 * credentials and bearer tokens before anything else sees them: a message
 * built from a client error that quotes a credential does not publish it.
 * Credentials nobody registered still pass: keep them out of messages.
 */
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { noteContainedFailure, scrubText } from "@edgeconnect/redaction";
import { realClock, type Clock } from "../queue/clock.js";
import { tenantMessage } from "../reconcile/tenant-message.js";

export type EventType = "Normal" | "Warning";

/** What the recorder needs of a client. */
export type EventClient = Pick<RestClient, "create" | "request">;

export interface EventRecorderOptions {
  /**
   * Where Events go: one client, or, for a controller whose subjects live in
   * many clusters (kcp tenants), the client of the subject's cluster;
   * undefined drops the Event (the cluster is not served here any more).
   */
  readonly client: EventClient | ((regarding: KubeObject) => EventClient | undefined);
  /** `source.component` and `reportingComponent`, e.g. "cloud-controller-manager". */
  readonly component: string;
  /** `source.host` and `reportingInstance`; default none. */
  readonly instance?: string;
  /** Drives aggregation and rate limits (monotonic). */
  readonly clock?: Clock;
  /** Wall-clock time for the Event timestamps. */
  readonly now?: () => Date;
  readonly logger?: { warn(obj: object, msg: string): void };
  /** Default 25 events per object in a burst. */
  readonly burst?: number;
  /** Default 300 000 (one more event per object every five minutes). */
  readonly refillIntervalMs?: number;
  /**
   * Who reads these Events. "tenant": the subjects are tenants' objects, so
   * every message passes `tenantMessage` (no infrastructure URLs, hosts,
   * namespaces, project ids or upstream bodies). Default "operator": the
   * cluster's own admins, who see messages whole but for credentials.
   */
  readonly audience?: "operator" | "tenant";
}

interface Aggregate {
  name: string;
  namespace: string;
  count: number;
  lastSeenMs: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** client-go's aggregation window. */
const AGGREGATION_WINDOW_MS = 10 * 60_000;
/** Bounds the memory of both caches; the oldest entries go first. */
const MAX_TRACKED = 4096;
/** The API server rejects longer messages. */
const MAX_MESSAGE_CHARS = 1024;

export class EventRecorder {
  private readonly clock: Clock;
  private readonly burst: number;
  private readonly refillIntervalMs: number;
  private readonly aggregates = new Map<string, Aggregate>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.burst = options.burst ?? 25;
    this.refillIntervalMs = options.refillIntervalMs ?? 300_000;
  }

  /** Records an event about `regarding` (which needs kind, name and uid). */
  event(regarding: KubeObject, type: EventType, reason: string, message: string): void {
    // An Event is a side note to a reconcile: nothing in recording it may fail the reconcile, or show what made it fail.
    try {
      const uid = regarding.metadata?.uid ?? "";
      if (!this.takeToken(uid)) return;
      const safeMessage = this.options.audience === "tenant" ? tenantMessage(message) : scrubText(message);
      const key = JSON.stringify([uid, type, reason, safeMessage]);
      const previous = this.pending.get(key) ?? Promise.resolve();
      const next = previous.then(() => this.write(key, regarding, type, reason, safeMessage.slice(0, MAX_MESSAGE_CHARS)));
      this.pending.set(key, next);
      void next.finally(() => {
        if (this.pending.get(key) === next) this.pending.delete(key);
      });
    } catch {
      noteContainedFailure("event");
      this.options.logger?.warn({ reason }, "event dropped: it could not be recorded");
    }
  }

  /** Resolves once every event recorded so far has been written or given up on. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending.values());
  }

  private async write(key: string, regarding: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    try {
      const nowMs = this.clock.now();
      const wall = this.options.now?.() ?? new Date();
      const now = wall.toISOString().replace(/\.\d{3}Z$/, "Z");
      const client = typeof this.options.client === "function" ? this.options.client(regarding) : this.options.client;
      if (client === undefined) {
        this.options.logger?.warn({ reason, kind: regarding.kind, name: regarding.metadata?.name }, "event dropped: no client serves its object's cluster");
        return;
      }
      const aggregate = this.aggregates.get(key);
      if (aggregate !== undefined && nowMs - aggregate.lastSeenMs < AGGREGATION_WINDOW_MS) {
        const count = aggregate.count + 1;
        const patched = await this.bump(client, aggregate, count, now);
        if (patched) {
          this.remember(key, { ...aggregate, count, lastSeenMs: nowMs });
          return;
        }
      }
      const namespace = regarding.metadata?.namespace || "default";
      // client-go's naming: the object's name and a unique suffix from the time.
      const name = `${regarding.metadata?.name ?? "unknown"}.${(wall.getTime() * 1000 + Math.floor(Math.random() * 1000)).toString(16)}`;
      await client.create(`/api/v1/namespaces/${namespace}/events`, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          namespace: regarding.metadata?.namespace,
          name: regarding.metadata?.name,
          uid: regarding.metadata?.uid,
          resourceVersion: regarding.metadata?.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: this.options.component, ...(this.options.instance ? { host: this.options.instance } : {}) },
        reportingComponent: this.options.component,
        reportingInstance: this.options.instance ?? "",
      });
      this.remember(key, { name, namespace, count: 1, lastSeenMs: nowMs });
    } catch (err) {
      this.options.logger?.warn({ err, reason, object: regarding.metadata?.name }, "could not record event");
    }
  }

  /** False when the Event to bump is gone (expired by the server's TTL). */
  private async bump(client: EventClient, aggregate: Aggregate, count: number, now: string): Promise<boolean> {
    try {
      await client.request("PATCH", `/api/v1/namespaces/${aggregate.namespace}/events/${aggregate.name}`, {
        body: { count, lastTimestamp: now },
        contentType: "application/merge-patch+json",
      });
      return true;
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return false;
      throw err;
    }
  }

  private takeToken(uid: string): boolean {
    const nowMs = this.clock.now();
    const bucket = this.buckets.get(uid) ?? { tokens: this.burst, updatedMs: nowMs };
    const refilled = Math.min(this.burst, bucket.tokens + (nowMs - bucket.updatedMs) / this.refillIntervalMs);
    const allowed = refilled >= 1;
    this.buckets.delete(uid);
    this.buckets.set(uid, { tokens: allowed ? refilled - 1 : refilled, updatedMs: nowMs });
    trim(this.buckets);
    return allowed;
  }

  private remember(key: string, aggregate: Aggregate): void {
    this.aggregates.delete(key);
    this.aggregates.set(key, aggregate);
    trim(this.aggregates);
  }
}

function trim(map: Map<string, unknown>): void {
  for (const key of map.keys()) {
    if (map.size <= MAX_TRACKED) return;
    map.delete(key);
  }
}
