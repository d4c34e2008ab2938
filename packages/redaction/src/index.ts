/**
 * @edgeconnect/redaction: no credential leaves the process. Three pieces,
 * used by the clients (kcp-ts, otc), the runtime's logger and its Events:
 *
 * - `isSensitiveKey`: object keys whose values are never shown, at any depth
 *   (`authorization`, `token`, `secretKey`, `sk`, `x-security-token`,
 *   `client-key-data`, a Secret's `data`, ...).
 * - A process-wide registry of credential values: clients `registerSecret`
 *   what they authenticate with, and `scrubText` replaces those values (as
 *   is, JSON-escaped, URL-encoded, base64) and any `Bearer` token in text.
 * - `scrubDeep`: a copy of any value with both applied everywhere, errors
 *   reduced to an allow-list of fields; cycle-safe and depth-bounded.
 *
 * No dependencies, so that every package can use it.
 *
 * @module
 */
export { isSensitiveKey } from "./sensitive-keys.js";
export { credentialForms, MIN_SECRET_LENGTH, REDACTED, registerSecret, scrubText } from "./secret-registry.js";
export { CIRCULAR, MAX_SCRUB_DEPTH, scrubDeep, TRUNCATED, type ScrubbedError } from "./scrub-deep.js";
