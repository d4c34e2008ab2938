/**
 * What a reflector drops from every object before it stores it or hands it
 * to a handler, as controller-runtime's `TransformStripManagedFields` does:
 * the field-ownership record no reconciler reads from a cache, yet often
 * half of an object's size, kept for every object of every watched resource.
 *
 * Only managedFields: an update (PUT) built from a cached object keeps the
 * server's managedFields when it omits them, but would delete any other
 * field dropped here (kubectl's last-applied annotation, say).
 */
import type { KubeObject, ObjectMeta } from "@edgeconnect/kcp-ts";

/**
 * `obj` without `metadata.managedFields`. Never changes `obj`: it may be
 * frozen already (a server or test that sends the same instance twice).
 * Returns `obj` itself when there is nothing to drop; else a copy of the
 * top level and of metadata that shares the rest.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata;
  if (metadata === undefined || !Object.hasOwn(metadata, "managedFields")) return obj;
  const kept: ObjectMeta = { ...metadata };
  delete kept.managedFields;
  return { ...obj, metadata: kept };
}
