/**
 * The writes every controller makes: finalizers and status.
 *
 * Finalizers go through JSON patches that first test the resourceVersion the
 * controller read. Another writer in between makes the patch fail instead of
 * silently dropping its finalizer, and the failure becomes a
 * StaleObjectError: the reconcile retries on fresh state.
 *
 * Status goes through server-side apply on `/status` with the controller's
 * field manager and only the fields the controller owns, so the fields it
 * leaves out stay their owners'. Forced by default, for kcp's sake: its
 * APIExport virtual workspace (v0.32) records an apply as an Update of the
 * manager, so an unforced apply conflicts with the controller's own previous
 * write (seen in the widget e2e suite). `force: false` makes a field another
 * manager owns a FieldConflictError, where the API server keeps apply
 * records (a plain kube-apiserver).
 */
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { scrubDeep } from "@edgeconnect/redaction";

/** What these writes need of a client. */
export type WriteClient = Pick<RestClient, "request">;

export interface WriteOptions {
  /** Ends the request at the socket: pass the reconcile's signal. */
  readonly signal?: AbortSignal;
}

export interface ApplyStatusOptions extends WriteOptions {
  /** Take over conflicting fields (default true; see the module comment). */
  readonly force?: boolean;
  /**
   * Apply only to this version of the object: a status computed from a read
   * that another write has overtaken (a spec change, another writer's phase)
   * fails with StaleObjectError instead of putting the old state back.
   */
  readonly resourceVersion?: string;
}

/** What the finalizer writes read of an object; any KubeObject, read-only or not, has it. */
export interface GuardedObject {
  readonly metadata?: {
    readonly resourceVersion?: string;
    readonly finalizers?: readonly string[];
  };
}

/** Names the object a status apply is for; the object itself, read-only or not, does. */
export interface ObjectIdentity {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

/**
 * A guarded write found the object changed since it was read. Retryable: the
 * next reconcile reads fresh state. `cause` is the server's answer.
 *
 * The API server answers a JSON patch whose `test` op fails with 422 Invalid
 * and a fixed message, without details (checked against kube-apiserver in
 * finalizer.int.test.ts); a 409 Conflict comes when the object changed
 * between the server's read and its write.
 */
export class StaleObjectError extends Error {
  override readonly name = "StaleObjectError";

  constructor(
    readonly path: string,
    cause: HttpStatusError,
  ) {
    super(`${path}: the object changed since it was read (HTTP ${cause.status}); retry on fresh state`, { cause });
  }
}

/**
 * A status apply touched a field another field manager owns (409 of a
 * non-forced apply). `fields` are the conflicting field paths as the server
 * names them, e.g. `.status.phase`.
 */
export class FieldConflictError extends Error {
  override readonly name = "FieldConflictError";
  readonly fields: readonly string[];

  constructor(
    readonly path: string,
    cause: HttpStatusError,
  ) {
    const status = cause.statusObject;
    super(`${path}: ${status?.message ?? "apply conflicts with another field manager"}`, { cause });
    this.fields = (status?.details?.causes ?? []).flatMap((c) => (c.field === undefined ? [] : [c.field]));
  }
}

export function hasFinalizer(obj: GuardedObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * Adds `finalizer` to the object at `path` unless it is there. Returns the
 * updated object, or `obj` when nothing had to change. Throws
 * StaleObjectError when the object changed since `obj` was read.
 */
export async function ensureFinalizer<O extends GuardedObject>(
  client: WriteClient,
  path: string,
  obj: O,
  finalizer: string,
  options: WriteOptions = {},
): Promise<O> {
  if (hasFinalizer(obj, finalizer)) return obj;
  const existing = obj.metadata?.finalizers;
  const add =
    existing === undefined
      ? { op: "add", path: "/metadata/finalizers", value: [finalizer] }
      : { op: "add", path: "/metadata/finalizers/-", value: finalizer };
  return patchGuarded<O>(client, path, obj, [add], options);
}

/**
 * Removes `finalizer` from the object at `path` if it is there. Returns the
 * updated object, or `obj` when nothing had to change. Throws
 * StaleObjectError when the object changed since `obj` was read.
 */
export async function removeFinalizer<O extends GuardedObject>(
  client: WriteClient,
  path: string,
  obj: O,
  finalizer: string,
  options: WriteOptions = {},
): Promise<O> {
  const index = obj.metadata?.finalizers?.indexOf(finalizer) ?? -1;
  if (index === -1) return obj;
  return patchGuarded<O>(
    client,
    path,
    obj,
    [
      // Testing the entry too keeps the index honest if the list was reordered.
      { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: "remove", path: `/metadata/finalizers/${index}` },
    ],
    options,
  );
}

/**
 * Server-side applies `status` to `<path>/status` as `fieldManager`.
 * `status` holds only the fields this controller owns (its conditions from
 * `ownedConditions`, its observedGeneration, ...): what it leaves out and
 * owned before is removed, what other managers own stays theirs. Lists of
 * the status merge per entry only where the schema declares them
 * `x-kubernetes-list-type: map`; conditions need
 * `x-kubernetes-list-map-keys: [type]`, or one manager's apply replaces the
 * whole list. Unforced, throws FieldConflictError when another manager owns
 * a field with a different value.
 */
export async function applyStatus<T extends KubeObject>(
  client: WriteClient,
  path: string,
  identity: ObjectIdentity,
  status: object,
  fieldManager: string,
  options: ApplyStatusOptions = {},
): Promise<T> {
  const { apiVersion, kind, metadata } = identity;
  // Status is read by whoever may read the object: no credential this process holds may reach it.
  const guard = options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion };
  const body = { apiVersion, kind, metadata: { name: metadata?.name, namespace: metadata?.namespace, ...guard }, status: scrubDeep(status) };
  try {
    return await client.request<T>("PATCH", `${path}/status`, {
      body,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager, force: options.force ?? true },
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 409) {
      throw options.resourceVersion !== undefined && err.statusObject?.reason === "Conflict" && (err.statusObject.details?.causes ?? []).length === 0
        ? new StaleObjectError(`${path}/status`, err)
        : new FieldConflictError(`${path}/status`, err);
    }
    throw err;
  }
}

async function patchGuarded<O>(client: WriteClient, path: string, obj: GuardedObject, ops: object[], options: WriteOptions): Promise<O> {
  const resourceVersion = obj.metadata?.resourceVersion;
  if (resourceVersion === undefined) throw new Error(`${path}: cannot guard a patch without a resourceVersion`);
  try {
    return await client.request<O>("PATCH", path, {
      body: [{ op: "test", path: "/metadata/resourceVersion", value: resourceVersion }, ...ops],
      contentType: "application/json-patch+json",
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof HttpStatusError && (err.status === 409 || patchDidNotApply(err))) throw new StaleObjectError(path, err);
    throw err;
  }
}

/**
 * Whether a 422 says the patch could not be applied (a `test` op failed, a
 * path was missing), as opposed to a patched object that fails validation.
 * The server answers the former without details and the latter with the
 * invalid fields as causes. For a guarded patch the former means the object
 * is not the one that was read: every op after the resourceVersion test was
 * built from that object.
 */
function patchDidNotApply(err: HttpStatusError): boolean {
  if (err.status !== 422) return false;
  const status = err.statusObject;
  return status !== undefined && (status.details?.causes ?? []).length === 0;
}

