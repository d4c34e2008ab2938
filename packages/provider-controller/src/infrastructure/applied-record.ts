/**
 * Which server-side applies would change nothing, told from the cache.
 *
 * Every pass over a cluster applies each of its objects again, as a
 * level-triggered reconcile should; but every managed resource's status
 * change wakes its cluster, so a cluster made once cost the infrastructure
 * API server about nine full applies of each object (measured at 1,000
 * tenants: 8,700 applies of each kind for 1,000 clusters, the API server
 * using more CPU than anything else on the machine). An apply whose body is
 * what the cache already shows is therefore skipped.
 *
 * "What the cache already shows" is two things, both needed:
 * - the object carries the digest of the body we would apply
 *   (`APPLIED_ANNOTATION`, written by that apply): a field we stopped
 *   setting must still be applied away, and only a changed digest says so;
 * - every field of that body has the same value in the cached object: a
 *   field someone else changed since is ours to set back.
 * The cache may lag our own last write; then the digest differs and the
 * apply happens, as it did before. Nothing is skipped for a kind without a
 * cache, Secrets included (whose digest would also say something about a
 * secret).
 */
import { createHash } from "node:crypto";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { DeepReadonly } from "@edgeconnect/runtime";

export const APPLIED_ANNOTATION = "platform.edgeconnect.eu/applied";

/** `obj` with the digest of itself (without any digest) in `APPLIED_ANNOTATION`. */
export function withAppliedRecord<T extends KubeObject>(obj: T): T {
  const annotations = { ...obj.metadata?.annotations };
  delete annotations[APPLIED_ANNOTATION];
  const body = { ...obj, metadata: { ...obj.metadata, annotations } };
  return { ...body, metadata: { ...body.metadata, annotations: { ...annotations, [APPLIED_ANNOTATION]: digest(body) } } };
}

/** Whether applying `desired` (made by `withAppliedRecord`) over `live` would change nothing of ours. */
export function appliedAlready(desired: KubeObject, live: DeepReadonly<KubeObject> | undefined): boolean {
  const record = desired.metadata?.annotations?.[APPLIED_ANNOTATION];
  if (live === undefined || record === undefined || live.metadata?.annotations?.[APPLIED_ANNOTATION] !== record) return false;
  // Type meta names the resource, which the path already does; list items may come without it.
  return contains(live, { ...desired, apiVersion: undefined, kind: undefined });
}

/** Whether `live` holds every field of `wanted` with the same value; lists must match element by element. */
function contains(live: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) return Array.isArray(live) && live.length === wanted.length && wanted.every((item, i) => contains(live[i], item));
  if (wanted !== null && typeof wanted === "object") {
    if (live === null || typeof live !== "object" || Array.isArray(live)) return false;
    const fields = live as Record<string, unknown>;
    return Object.entries(wanted).every(([key, value]) => value === undefined || contains(fields[key], value));
  }
  return live === wanted;
}

/** A digest of `value` that does not depend on the order of its keys. */
function digest(value: unknown): string {
  return createHash("sha256").update(canonical(value)).digest("hex").slice(0, 32);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
