/**
 * How long a ServiceAccount token for an AccessRequest lives and when to
 * replace it. The request's `spec.ttl` is a metav1.Duration, i.e. Go's
 * `time.Duration` text ("1h30m", "90m0s", "1.5h"); the CRD declares it a
 * plain string, so anything may arrive.
 */

/** The API server refuses a TokenRequest for less. */
export const TOKEN_REQUEST_MIN_SECONDS = 600;
/** Renew once this fraction of the lifetime has passed, as the other openMCP providers do. */
export const RENEWAL_FRACTION = 0.8;

/** A `spec.ttl` that is no positive duration; the message quotes it. */
export class DurationError extends Error {
  override readonly name = "DurationError";
}

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  "\u00b5s": 1e-6,
  "\u03bcs": 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};
// Longer units first, so that "ms" is not read as "m" followed by "s".
const COMPONENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;

/** Seconds in a Go duration string; throws `DurationError` for anything `time.ParseDuration` refuses. */
export function durationSeconds(text: string): number {
  const sign = text.startsWith("-") ? -1 : 1;
  const body = text.startsWith("-") || text.startsWith("+") ? text.slice(1) : text;
  if (body === "0") return 0;
  if (body === "") throw new DurationError(`${JSON.stringify(text)} is not a duration such as 1h30m`);
  let seconds = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < body.length) {
    const match = COMPONENT.exec(body);
    if (match === null) throw new DurationError(`${JSON.stringify(text)} is not a duration such as 1h30m`);
    seconds += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ""] ?? 0);
  }
  return sign * seconds;
}

export interface TokenLifetimeOptions {
  /** Without `spec.ttl`. */
  readonly default: number;
  /** At least `TOKEN_REQUEST_MIN_SECONDS`, which is the default. */
  readonly min?: number;
  /** Tokens of longer-lived requests are renewed instead. */
  readonly max: number;
}

/**
 * The `expirationSeconds` to ask a TokenRequest for: the request's TTL (or
 * the default) in whole seconds, raised to `min` and capped at `max`.
 * Throws `DurationError` for a TTL that is not a positive duration, which
 * the user has to fix; `RangeError` for options no TokenRequest accepts.
 */
export function tokenExpirationSeconds(ttl: string | undefined, options: TokenLifetimeOptions): number {
  const min = options.min ?? TOKEN_REQUEST_MIN_SECONDS;
  if (!Number.isInteger(min) || min < TOKEN_REQUEST_MIN_SECONDS) throw new RangeError(`min must be an integer of at least ${TOKEN_REQUEST_MIN_SECONDS} seconds, got ${min}`);
  if (!Number.isInteger(options.max) || options.max < min) throw new RangeError(`max must be an integer of at least min (${min}) seconds, got ${options.max}`);
  let seconds = options.default;
  if (ttl !== undefined) {
    seconds = durationSeconds(ttl);
    if (seconds <= 0) throw new DurationError(`spec.ttl ${JSON.stringify(ttl)} must be positive`);
  }
  return Math.min(options.max, Math.max(min, Math.floor(seconds)));
}

/** When to replace a token: after `RENEWAL_FRACTION` of its lifetime. */
export function renewAt(issuedAt: Date, expiresAt: Date): Date {
  const lifetime = expiresAt.getTime() - issuedAt.getTime();
  return new Date(issuedAt.getTime() + Math.floor(lifetime * RENEWAL_FRACTION));
}

export function needsRenewal(now: Date, issuedAt: Date, expiresAt: Date): boolean {
  return now.getTime() >= renewAt(issuedAt, expiresAt).getTime();
}
