/**
 * The reconciler contract. Reconciliation is level-triggered: the reconciler
 * gets only the request, reads the current state itself, drives the world
 * towards the desired state idempotently, and reports how it went:
 *
 * | outcome                          | the controller then                                |
 * |----------------------------------|----------------------------------------------------|
 * | resolves `{}` / undefined        | forgets the key's backoff; waits for the next event|
 * | resolves `{ requeueAfterMs: n }` | forgets the backoff and reconciles again after n ms |
 * | throws a TerminalError           | counts the error, does not retry                   |
 * | throws anything else             | retries with per-key exponential backoff           |
 *
 * A reconciler must tolerate being called for objects that no longer exist
 * (the request outlives the event) and must never assume it runs alone for a
 * tenant: only the same key is guaranteed not to run twice at once.
 */
import type { Request } from "./request.js";

export interface Result {
  /** Reconcile again after this long even without an event. */
  readonly requeueAfterMs?: number;
}

/** What the controller hands a reconcile besides the request. */
export interface ReconcileContext {
  /** Aborts when the controller stops or the reconcile timeout passes. */
  readonly signal: AbortSignal;
  /** Unique per reconcile, also in the logs. */
  readonly reconcileID: string;
}

export interface Reconciler {
  reconcile(request: Request, context: ReconcileContext): Promise<Result | undefined | void>;
}

/** A reconciler from a function. */
export function reconcilerFn(reconcile: Reconciler["reconcile"]): Reconciler {
  return { reconcile };
}

/**
 * An error that retrying cannot fix (invalid input the user must change).
 * Counted in controller_runtime_terminal_reconcile_errors_total; the key is
 * not requeued.
 */
export class TerminalError extends Error {
  override readonly name = "TerminalError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
