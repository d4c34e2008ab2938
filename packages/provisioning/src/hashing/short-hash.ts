import { createHash } from "node:crypto";

/**
 * The first `length` hex characters of SHA-256 over `parts`. Parts are
 * joined with a NUL, which no Kubernetes name or label contains, so
 * ("a-b", "c") and ("a", "b-c") hash differently.
 */
export function shortHash(parts: readonly string[], length = 8): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, length);
}
