/**
 * After a reconcile that `openmcp.cloud/operation: reconcile` asked for,
 * the annotation goes, as openMCP's contract says; not while the object is
 * being deleted, when its metadata is no longer ours to change.
 */
import type { RestClient } from "@edgeconnect/kcp-ts";
import { withoutReconcileAnnotation, type AnnotatedObject } from "../openmcp/operation-annotation.js";

export async function clearReconcileAnnotation(
  client: Pick<RestClient, "request">,
  path: string,
  obj: AnnotatedObject & { readonly metadata?: { readonly deletionTimestamp?: string | undefined } | undefined },
): Promise<void> {
  const patch = withoutReconcileAnnotation(obj);
  if (patch === undefined || obj.metadata?.deletionTimestamp !== undefined) return;
  await client.request("PATCH", path, { body: patch, contentType: "application/merge-patch+json" });
}
