/**
 * The `openmcp.cloud/operation` annotation every openMCP controller honours
 * (`reconcile`: run now, then remove it; `ignore`: leave the object alone),
 * and the event filter openMCP recommends around it: a status write of our
 * own must not wake us, an explicit request must.
 */
import { OPERATION, OPERATION_ANNOTATION } from "./constants.js";

export type Operation = (typeof OPERATION)[keyof typeof OPERATION];

export interface AnnotatedObject {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
}

export interface WatchedObject {
  readonly metadata?:
    | {
        readonly annotations?: Readonly<Record<string, string>> | undefined;
        readonly generation?: number | undefined;
        readonly deletionTimestamp?: string | undefined;
      }
    | undefined;
}

/** The requested operation; any other value of the annotation means none. */
export function operationOf(obj: AnnotatedObject): Operation | undefined {
  const value = obj.metadata?.annotations?.[OPERATION_ANNOTATION];
  return value === OPERATION.Reconcile || value === OPERATION.Ignore ? value : undefined;
}

/** A newly seen object (also every object of an initial list) is reconciled unless ignored. */
export function shouldReconcileCreate(obj: AnnotatedObject): boolean {
  return operationOf(obj) !== OPERATION.Ignore;
}

/**
 * An update is reconciled when the spec changed (generation), deletion
 * started or was undone, the object just got `reconcile`, or it just lost
 * `ignore` (so that changes made while it was ignored are picked up) -
 * and never while it has `ignore`.
 */
export function shouldReconcileUpdate(old: WatchedObject, current: WatchedObject): boolean {
  const currentOperation = operationOf(current);
  if (currentOperation === OPERATION.Ignore) return false;
  const oldOperation = operationOf(old);
  return (
    old.metadata?.generation !== current.metadata?.generation ||
    old.metadata?.deletionTimestamp !== current.metadata?.deletionTimestamp ||
    (oldOperation !== OPERATION.Reconcile && currentOperation === OPERATION.Reconcile) ||
    oldOperation === OPERATION.Ignore
  );
}

export interface RemoveOperationPatch {
  metadata: { annotations: { [OPERATION_ANNOTATION]: null } };
}

/**
 * The JSON merge patch that removes a `reconcile` annotation, or undefined
 * when there is none to remove (an `ignore` annotation is the user's to
 * remove, never ours).
 */
export function withoutReconcileAnnotation(obj: AnnotatedObject): RemoveOperationPatch | undefined {
  if (operationOf(obj) !== OPERATION.Reconcile) return undefined;
  return { metadata: { annotations: { [OPERATION_ANNOTATION]: null } } };
}
