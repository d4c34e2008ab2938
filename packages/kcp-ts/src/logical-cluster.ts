/**
 * Identity of kcp logical clusters as the rest of the system sees it: the
 * annotation that carries it on every object, and the tenant fingerprint
 * that keys queues and names infrastructure namespaces.
 */
import { createHash } from "node:crypto";

/** Annotation kcp sets on every object: the logical cluster it lives in. */
export const CLUSTER_ANNOTATION = "kcp.io/cluster";

/**
 * The first 12 hex characters of SHA-256 of the logical cluster name. Stable
 * across restarts and replicas, short enough for a DNS label
 * (`kcp-<fingerprint>`), and 48 bits make collisions between tenants of one
 * installation practically impossible.
 */
export function fingerprint(cluster: string): string {
  return createHash("sha256").update(cluster).digest("hex").slice(0, 12);
}

/** The logical cluster an object lives in, from its annotation. */
export function clusterOf(obj: { metadata?: { annotations?: Record<string, string> } }): string | undefined {
  return obj.metadata?.annotations?.[CLUSTER_ANNOTATION];
}
