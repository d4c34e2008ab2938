/**
 * The three writes the node controllers make on Nodes. Spec and label
 * changes are JSON merge patches of what the change touched, guarded by
 * resourceVersion: a kubelet or another controller writing in between makes
 * ours fail with 409, and the change is recomputed on the fresh object
 * instead of overwriting theirs; and what our copy of the Node lacks (a
 * field of a newer kubelet, what a cache leaves out) is never written back.
 */
import { HttpStatusError, jsonMergePatch } from "@edgeconnect/kcp-ts";
import { nodePath, type Node, type NodeAddress } from "../kube/objects.js";
import type { NodeClient } from "./node-controllers-options.js";

/** Updates in a row that may lose a race before the reconcile gives up (and is retried with backoff). */
const CONFLICT_ATTEMPTS = 5;

/**
 * Applies `change` to `node` and writes what it changed; on 409 re-reads the
 * node and applies `change` again. Returns the node as written, or as read
 * when `change` found nothing to do (it answers undefined then, or the same).
 */
export async function updateNode(client: NodeClient, node: Node, change: (current: Node) => Node | undefined, signal?: AbortSignal): Promise<Node> {
  const path = nodePath(node.metadata?.name ?? "");
  let current = node;
  for (let attempt = 1; ; attempt++) {
    const next = change(current);
    const patch = next === undefined ? undefined : jsonMergePatch(current, next);
    if (patch === undefined) return current;
    const guarded = { ...patch, metadata: { ...(patch["metadata"] as Record<string, unknown> | undefined), resourceVersion: current.metadata?.resourceVersion } };
    try {
      return await client.request<Node>("PATCH", path, { body: guarded, contentType: "application/merge-patch+json", signal });
    } catch (error) {
      if (!(error instanceof HttpStatusError && error.status === 409) || attempt >= CONFLICT_ATTEMPTS) throw error;
      current = await client.get<Node>(path, { signal });
    }
  }
}

/**
 * Replaces status.addresses. A JSON merge patch replaces the list whole,
 * where a strategic merge would merge entries by type and cannot express two
 * InternalIPs.
 */
export async function patchNodeAddresses(client: NodeClient, name: string, addresses: readonly NodeAddress[], signal?: AbortSignal): Promise<Node> {
  return client.request<Node>("PATCH", `${nodePath(name)}/status`, {
    body: { status: { addresses } },
    contentType: "application/merge-patch+json",
    signal,
  });
}

/**
 * Deletes the node; false when it was gone already or is another node by now.
 * The UID precondition keeps a node that re-registered under the same name
 * (a replaced machine) from being deleted for its predecessor's instance.
 */
export async function deleteNode(client: NodeClient, node: Node, signal?: AbortSignal): Promise<boolean> {
  const uid = node.metadata?.uid;
  try {
    await client.delete(nodePath(node.metadata?.name ?? ""), {
      ...(uid === undefined ? {} : { body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid } } }),
      signal,
    });
    return true;
  } catch (error) {
    if (error instanceof HttpStatusError && (error.status === 404 || error.status === 409)) return false;
    throw error;
  }
}
