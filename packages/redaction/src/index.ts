/**
 * @edgeconnect/redaction: no credential leaves the process. Three pieces,
 * used by the clients (kcp-ts, otc), the runtime's logger and its Events:
 *
 * - `isSensitiveKey`: object keys whose values are never shown, at any depth
 *   (`authorization`, `token`, `secretKey`, `sk`, `x-security-token`,
 *   `client-key-data`, a Secret's `data`, ...).
 * - A process-wide registry of credential values, each held by someone:
 *   the process (`registerSecret`: what it authenticates with), a holder
 *   (`holdSecrets`: a tenant's credential set, a kubeconfig) or a deadline
 *   (an expiring token); let-go values are forgotten after a grace period.
 *   `scrubText` replaces held values (as is, JSON-escaped, URL-encoded,
 *   base64) in time linear in the text, whatever their number, and
 *   credentials of a known shape, registered or not (shapes.ts).
 * - Nothing here throws: what fails is contained and counted (failures.ts).
 * - `scrubDeep`: a copy of any value with both applied everywhere, errors
 *   reduced to an allow-list of fields; cycle-safe and depth-bounded.
 *
 * No dependencies, so that every package can use it.
 *
 * @module
 */
export { CONTAINED_FAILURE_STAGES, containedFailures, noteContainedFailure, type ContainedFailureStage } from "./failures.js";
export { credentialForms, MIN_SECRET_LENGTH } from "./credential-forms.js";
export { isSensitiveKey } from "./sensitive-keys.js";
export {
  heldSecretCount,
  holdSecrets,
  processSecrets,
  registerSecret,
  releaseSecrets,
  releaseTenantSecrets,
  RELEASE_GRACE_MS,
  scrubHeldValues,
  scrubText,
  SecretRegistry,
  UNSCRUBBABLE,
  type HoldOptions,
  type SecretHolder,
  type SecretRegistryOptions,
} from "./secret-registry.js";
export { REDACTED, scrubShapes } from "./shapes.js";
export { CIRCULAR, MAX_AGGREGATED_ERRORS, MAX_SCRUB_DEPTH, scrubDeep, TRUNCATED, UNREADABLE, type ScrubbedError } from "./scrub-deep.js";
