/**
 * The `openmcp.cloud/operation` annotation every openMCP controller honours
 * (`reconcile`: run now, then remove it; `ignore`: leave the object alone).
 * The controllers' event handlers (the runtime's enqueueObject) already wake
 * on any annotation change, so honouring it needs only these two.
 */
import { OPERATION, OPERATION_ANNOTATION } from "./constants.js";

export type Operation = (typeof OPERATION)[keyof typeof OPERATION];

export interface AnnotatedObject {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
}

/** The requested operation; any other value of the annotation means none. */
export function operationOf(obj: AnnotatedObject): Operation | undefined {
  const value = obj.metadata?.annotations?.[OPERATION_ANNOTATION];
  return value === OPERATION.Reconcile || value === OPERATION.Ignore ? value : undefined;
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
