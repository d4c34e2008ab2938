import { createHash } from "node:crypto";

/**
 * The first `length` hex characters of SHA-256 over `parts`, joined with a
 * NUL (which no Kubernetes name contains, so `("a-b", "c")` and
 * `("a", "b-c")` differ). The same scheme as provisioning's `shortHash`,
 * which that package does not export.
 */
export function nameHash(parts: readonly string[], length: number): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, length);
}
