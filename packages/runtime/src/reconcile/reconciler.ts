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

/** The scope of a controller that reads only what its own options gave it. */
export type NoScope = Readonly<Record<string, never>>;

/**
 * What the controller hands a reconcile besides the request. `scope` is the
 * one logical cluster the request belongs to (a client routed to its shard
 * and bound to `signal`, read-only listers of its objects), so reconciler
 * code stays single-cluster: it cannot name another tenant.
 */
export interface ReconcileContext<S = NoScope> {
  /**
   * Aborts when the controller stops, the reconcile timeout passes, or the
   * tenant's slot moves to another replica. Pass it to every call that
   * leaves the process (the scope's client has it bound already).
   */
  readonly signal: AbortSignal;
  /** Unique per reconcile, also in the logs. */
  readonly reconcileID: string;
  /** Carries `controller`, `cluster`, `namespace`, `name` and `reconcileID`. */
  readonly log: Logger;
  readonly scope: S;
}

export interface Reconciler<S = NoScope> {
  reconcile(request: Request, context: ReconcileContext<S>): Promise<Result | undefined | void>;
}

/** The slice of a pino logger the runtime's controllers use. */
export interface Logger {
  child(bindings: Record<string, unknown>): Logger;
  debug(obj: object, message: string): void;
  info(obj: object, message: string): void;
  warn(obj: object, message: string): void;
  error(obj: object, message: string): void;
}

/** Writes nothing: for controllers built without a logger. */
export const SILENT: Logger = {
  child: () => SILENT,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

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
