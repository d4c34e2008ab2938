/**
 * Errors of the reflector and its store, each named after the step that
 * failed. Transient server and network failures are not wrapped here: the
 * reflector retries them and only logs them.
 */
import type { KubeObject, Status } from "@edgeconnect/kcp-ts";

/** An object cannot be keyed: it has no `metadata.name`. */
export class ObjectKeyError extends Error {
  override readonly name = "ObjectKeyError";

  constructor(readonly object: KubeObject) {
    const kind = object.kind ?? "object";
    const rv = object.metadata?.resourceVersion;
    super(`${kind} without metadata.name cannot be stored${rv === undefined ? "" : ` (resourceVersion ${rv})`}`);
  }
}

/**
 * The server put an ERROR event into a watch stream. `status` is the Status
 * it sent (also the `cause`); an expired resourceVersion (410) never becomes
 * this error, the reflector relists instead.
 */
export class WatchEventError extends Error {
  override readonly name = "WatchEventError";
  readonly code: number | undefined;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly path: string,
    readonly status: Status,
  ) {
    super(`watch ${path}: ERROR event${status.code === undefined ? "" : ` ${status.code}`}: ${status.message ?? status.reason ?? "no message"}`, {
      cause: status,
    });
    this.code = status.code;
    this.reason = status.reason;
    this.retryAfterSeconds = status.details?.retryAfterSeconds;
  }
}

/**
 * `synced` of a reflector that was stopped before its first list completed.
 * `cause` is the last list failure, when there was one: usually the reason
 * the sync took so long (403, 404 of a missing resource, an unreachable server).
 */
export class InitialSyncError extends Error {
  override readonly name = "InitialSyncError";

  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`${path}: stopped before the first list completed`, cause === undefined ? undefined : { cause });
  }
}
