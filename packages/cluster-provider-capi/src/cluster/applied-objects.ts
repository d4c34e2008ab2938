/**
 * What a Cluster's template made, as applied: the record of the template
 * objects (not the Cluster API Cluster, which has its own name) that the
 * cluster controller applied for one openMCP Cluster. Cleanup and pruning
 * go by this record, not by re-rendering today's config, which may have
 * changed or gone since.
 *
 * The record is an annotation on the openMCP Cluster itself: that object
 * lives exactly as long as the controller has something to clean up (its
 * finalizer holds it until then), the controller reads it from its cache,
 * and it needs no further object, RBAC or garbage collection. The Cluster
 * API Cluster would not do: it is deleted first, and what the template made
 * is removed after it is gone. It holds names only, never content.
 */
import { annotationRecord } from "@edgeconnect/provisioning";

/** Applied by its own field manager, so that the other metadata this controller applies does not have to repeat it. */
export const APPLIED_OBJECTS_ANNOTATION = "capi.clusters.openmcp.cloud/applied-objects";

export interface AppliedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string };
}

export function appliedObjectsOf(resources: readonly RenderedObject[]): AppliedObject[] {
  return resources.map((r) => ({ apiVersion: r.apiVersion, kind: r.kind, namespace: r.metadata.namespace, name: r.metadata.name }));
}

/** The record in the annotation; entries not of the recorded form are left out (the annotation can be edited by hand). */
export function recordedObjects(annotations: Readonly<Record<string, string>> | undefined): AppliedObject[] {
  return annotationRecord(annotations, APPLIED_OBJECTS_ANNOTATION)
    .filter(isAppliedObject)
    .map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, namespace, name }));
}

export function recordText(objects: readonly AppliedObject[]): string {
  return JSON.stringify(objects);
}

/** `first` and then what of `second` it lacks: what may exist while `second` is being applied over `first`. */
export function unionOf(first: readonly AppliedObject[], second: readonly AppliedObject[]): AppliedObject[] {
  const known = new Set(first.map(identity));
  return [...first, ...second.filter((o) => !known.has(identity(o)))];
}

/** What of `recorded` the template no longer makes. */
export function droppedFrom(recorded: readonly AppliedObject[], desired: readonly AppliedObject[]): AppliedObject[] {
  const kept = new Set(desired.map(identity));
  return recorded.filter((o) => !kept.has(identity(o)));
}

/**
 * One object whatever version of its kind names it: a template that moves a
 * kind to a newer version still makes the same object, which must not be
 * pruned as dropped.
 */
function identity(o: AppliedObject): string {
  const group = o.apiVersion.includes("/") ? o.apiVersion.slice(0, o.apiVersion.indexOf("/")) : "";
  return JSON.stringify([group, o.kind, o.namespace, o.name]);
}

function isAppliedObject(value: unknown): value is AppliedObject {
  if (typeof value !== "object" || value === null) return false;
  const o = value as Record<string, unknown>;
  return ["apiVersion", "kind", "namespace", "name"].every((key) => typeof o[key] === "string" && o[key] !== "");
}
