/**
 * The writes every controller makes: finalizers and status.
 *
 * Finalizers go through JSON patches that first test the resourceVersion the
 * controller read. Another writer in between makes the patch fail with 409
 * instead of silently dropping its finalizer, and the reconcile retries on
 * fresh state. Status goes through server-side apply on `/status` with the
 * controller's field manager, so fields other writers own stay theirs.
 */
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";

/** What these writes need of a client. */
export type WriteClient = Pick<RestClient, "request" | "apply">;

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * Adds `finalizer` to the object at `path` unless it is there. Returns the
 * updated object, or `obj` when nothing had to change.
 */
export async function ensureFinalizer<T extends KubeObject>(client: WriteClient, path: string, obj: T, finalizer: string): Promise<T> {
  if (hasFinalizer(obj, finalizer)) return obj;
  const existing = obj.metadata?.finalizers;
  const add =
    existing === undefined
      ? { op: "add", path: "/metadata/finalizers", value: [finalizer] }
      : { op: "add", path: "/metadata/finalizers/-", value: finalizer };
  return patchGuarded<T>(client, path, obj, [add]);
}

/** Removes `finalizer` from the object at `path` if it is there. */
export async function removeFinalizer<T extends KubeObject>(client: WriteClient, path: string, obj: T, finalizer: string): Promise<T> {
  const index = obj.metadata?.finalizers?.indexOf(finalizer) ?? -1;
  if (index === -1) return obj;
  return patchGuarded<T>(client, path, obj, [
    // Testing the entry too keeps the index honest if the list was reordered.
    { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
    { op: "remove", path: `/metadata/finalizers/${index}` },
  ]);
}

/**
 * Server-side applies `status` to `<path>/status`. `identity` carries the
 * apiVersion, kind, name and namespace of the object.
 */
export async function applyStatus<T extends KubeObject>(
  client: WriteClient,
  path: string,
  identity: KubeObject,
  status: unknown,
  fieldManager: string,
): Promise<T> {
  const { apiVersion, kind, metadata } = identity;
  const body = { apiVersion, kind, metadata: { name: metadata?.name, namespace: metadata?.namespace }, status };
  return client.apply<T>(`${path}/status`, body, fieldManager);
}

async function patchGuarded<T extends KubeObject>(client: WriteClient, path: string, obj: KubeObject, ops: object[]): Promise<T> {
  const resourceVersion = obj.metadata?.resourceVersion;
  if (resourceVersion === undefined) throw new Error(`${path}: cannot guard a patch without a resourceVersion`);
  return client.request<T>("PATCH", path, {
    body: [{ op: "test", path: "/metadata/resourceVersion", value: resourceVersion }, ...ops],
    contentType: "application/json-patch+json",
  });
}
