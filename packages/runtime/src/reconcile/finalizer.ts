/**
 * The finalizer flow of kube-rs's `finalizer()`: a reconciler that creates
 * something outside the object (a cloud resource, an object in another
 * cluster) puts its finalizer on the object first, so that deleting the
 * object waits until `cleanup` has released what `apply` made.
 *
 * | object                    | finalizer | then                                             |
 * |---------------------------|-----------|--------------------------------------------------|
 * | live                      | missing   | add it (guarded), then `apply` the patched object |
 * | live                      | present   | `apply`                                          |
 * | being deleted             | present   | `cleanup`; remove it (guarded) once cleanup is done |
 * | being deleted             | missing   | nothing: not ours, or released already           |
 *
 * Unlike kube-rs, which returns after adding the finalizer and waits for the
 * patch's watch event, `apply` runs at once on the object the patch returned:
 * that is the server's current state, so nothing is skipped and a round
 * through the watch and the queue is saved. The watch event of the patch
 * still arrives and reconciles once more, which a level-triggered `apply`
 * takes as a no-op.
 *
 * Both guarded writes throw StaleObjectError when the object changed since
 * it was read; the reconcile then retries on fresh state. An object that is
 * gone (404) needs nothing more: the flow resolves with undefined, or with
 * what cleanup returned.
 */
import { isNotFound } from "@edgeconnect/kcp-ts";
import type { Result } from "./reconciler.js";
import { ensureFinalizer, hasFinalizer, removeFinalizer, type GuardedObject, type WriteClient, type WriteOptions } from "./writes.js";

export interface FinalizerHooks<T> {
  /** Drives a live object towards its desired state; the finalizer is in place whenever this runs. */
  apply(obj: T): Promise<Result | undefined | void>;
  /**
   * Releases what `apply` made, for an object being deleted; must be
   * idempotent, since a failed removal runs it again. Resolve with a requeue
   * while something is still going away: the finalizer stays until a call
   * resolves without one. A throw keeps the finalizer too. It must not write
   * the object itself: the removal is guarded by the resourceVersion read
   * before it, and would fail as stale.
   */
  cleanup(obj: T): Promise<Result | undefined | void>;
}

/** What the flow reads of an object; any KubeObject, read-only or not, has it. */
export interface FinalizableObject extends GuardedObject {
  readonly metadata?: GuardedObject["metadata"] & { readonly deletionTimestamp?: string };
}

/**
 * Runs `apply` or `cleanup` for `obj` (at `path`) behind `finalizer`, and
 * returns what the hook returned. Every write takes `options.signal`.
 */
export async function finalize<T extends FinalizableObject>(
  client: WriteClient,
  path: string,
  obj: T,
  finalizer: string,
  hooks: FinalizerHooks<T>,
  options: WriteOptions = {},
): Promise<Result | undefined> {
  const deleting = obj.metadata?.deletionTimestamp !== undefined;
  if (!deleting) {
    const withFinalizer = await goneAsUndefined(ensureFinalizer(client, path, obj, finalizer, options));
    // Gone before it had our finalizer: apply never made anything for it.
    if (withFinalizer === undefined) return undefined;
    return (await hooks.apply(withFinalizer)) ?? undefined;
  }
  if (!hasFinalizer(obj, finalizer)) return undefined;
  const result = (await hooks.cleanup(obj)) ?? undefined;
  if (result?.requeueAfterMs !== undefined) return result;
  // Gone means released: the read was from a cache that had not seen the removal of an earlier reconcile.
  await goneAsUndefined(removeFinalizer(client, path, obj, finalizer, options));
  return result;
}

async function goneAsUndefined<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
