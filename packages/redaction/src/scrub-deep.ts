/**
 * `scrubDeep`: a copy of any value that is safe to write out. Values under
 * keys that name credentials are replaced at every depth, in objects and in
 * arrays; every string (keys included) is `scrubText`ed; errors shrink to an allow-list of fields (clients'
 * errors tend to carry the request, with its headers, or the whole response).
 */
import { noteContainedFailure } from "./failures.js";
import { scrubText } from "./secret-registry.js";
import { isSensitiveKey } from "./sensitive-keys.js";
import { REDACTED } from "./shapes.js";

/** An error as `scrubDeep` returns it. */
export interface ScrubbedError {
  name?: string;
  message: string;
  stack?: string;
  /** HTTP status (kcp-ts' HttpStatusError, otc's OtcApiError). */
  status?: number;
  /** Kubernetes Status reason (NotFound, Conflict, ...). */
  reason?: string;
  /** Node's system error code (ECONNREFUSED), or an API's error code. */
  code?: string | number;
  /** A failed request's response body. */
  body?: string;
  cause?: unknown;
  /** An AggregateError's first `MAX_AGGREGATED_ERRORS` errors. */
  errors?: unknown[];
}

/** An AggregateError (Promise.any's, a dual-stack connect's) shows this many of its errors. */
export const MAX_AGGREGATED_ERRORS = 8;

/**
 * Deeper values become this: a log line or message never needs them, and
 * the bound keeps a pathological value from costing unbounded time.
 * Kubernetes objects (managedFields included) stay well above it.
 */
export const MAX_SCRUB_DEPTH = 24;
export const TRUNCATED = "[Truncated]";
/** What a reference back to an enclosing object becomes. */
export const CIRCULAR = "[Circular]";
/**
 * What a value that throws when read becomes (a getter, a `toJSON`, a
 * Proxy): nothing of it is shown, since what it would have shown is unknown.
 */
export const UNREADABLE = "[Unreadable]";

/**
 * A copy of `value` with credentials removed. Walks what JSON.stringify
 * would write (own enumerable string keys, `toJSON` results), so the copy
 * serialises to what the original would have, minus credentials. Numbers,
 * booleans and null under a sensitive key are kept: they carry no credential
 * (a token bucket's `tokens: 3`), while strings, objects and arrays are replaced.
 */
export function scrubDeep<T>(value: T): T {
  return scrub(value, 0, new Set()) as T;
}

function scrub(value: unknown, depth: number, ancestors: Set<object>): unknown {
  if (typeof value === "string") return scrubText(value);
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.has(value)) return CIRCULAR;
  if (depth >= MAX_SCRUB_DEPTH) return TRUNCATED;
  ancestors.add(value);
  try {
    return scrubObject(value, depth, ancestors);
  } catch {
    noteContainedFailure("scrub-deep");
    return UNREADABLE;
  } finally {
    ancestors.delete(value);
  }
}

function scrubObject(value: object, depth: number, ancestors: Set<object>): unknown {
  if (isErrorLike(value)) return scrubError(value, depth, ancestors);
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return scrub(json.call(value), depth, ancestors);
  if (Array.isArray(value)) return value.map((item: unknown) => scrub(item, depth + 1, ancestors));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[scrubText(key)] = isSensitiveKey(key) && holdsText(item) ? REDACTED : scrub(item, depth + 1, ancestors);
  }
  return out;
}

function holdsText(value: unknown): boolean {
  return typeof value === "string" || (typeof value === "object" && value !== null);
}

/**
 * Errors from other realms (Node's own, under Jest's VM) and DOMExceptions
 * fail `instanceof Error`; what makes an error is its message and stack.
 */
function isErrorLike(value: object): value is Record<string, unknown> {
  if (value instanceof Error || Object.prototype.toString.call(value) === "[object Error]") return true;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.message === "string" && typeof candidate.stack === "string";
}

function scrubError(err: Record<string, unknown>, depth: number, ancestors: Set<object>): ScrubbedError {
  const out: ScrubbedError = { message: typeof err.message === "string" ? scrubText(err.message) : "" };
  if (typeof err.name === "string") out.name = err.name;
  if (typeof err.stack === "string") out.stack = scrubText(err.stack);
  if (typeof err.status === "number") out.status = err.status;
  if (typeof err.reason === "string") out.reason = scrubText(err.reason);
  if (typeof err.code === "string") out.code = scrubText(err.code);
  else if (typeof err.code === "number") out.code = err.code;
  if (typeof err.body === "string") out.body = scrubText(err.body);
  if (err.cause !== undefined) out.cause = scrub(err.cause, depth + 1, ancestors);
  if (Array.isArray(err.errors)) out.errors = err.errors.slice(0, MAX_AGGREGATED_ERRORS).map((inner: unknown) => scrub(inner, depth + 1, ancestors));
  return out;
}
