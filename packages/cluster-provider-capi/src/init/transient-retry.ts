/**
 * Retrying a write that the API server refuses for a while after an install:
 * a webhook whose Deployment, Service endpoints or certificate are not ready
 * yet makes the API server answer 500 ("failed calling webhook"), an API
 * server under load answers 429/503 or not at all. Such a write is retried
 * with backoff until the init deadline; any other refusal (400, 403, 422)
 * fails at once, since retrying cannot change it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { Backoff, scrubText } from "@edgeconnect/runtime";
import { InstallTimeoutError } from "./errors.js";

/** Node's codes of connections that failed or broke, as the API server restarts or is not up yet. */
const CONNECTION_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

export function isRetryableApplyError(err: unknown): boolean {
  if (err instanceof HttpStatusError) return err.status >= 500 || err.status === 429 || /failed calling webhook/.test(err.message);
  // The client's per-request deadline (RequestTimeoutError): the server or its webhook stalls.
  if (err instanceof Error && err.name === "TimeoutError") return true;
  return connectionErrorCode(err) !== undefined;
}

function connectionErrorCode(err: unknown): string | undefined {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_ERRORS.has(code)) return code;
  }
  return undefined;
}

export interface UntilAcceptedOptions {
  /** The init deadline: no attempt starts, and no wait goes on, after it. */
  readonly signal: AbortSignal;
  /** Default: from 500 ms, doubling, at most 10 s. */
  readonly backoff?: Backoff;
  /** Waits between attempts; default a timer. Tests pass their own. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
  /** Told each refusal that is retried, and the wait before the next attempt. */
  readonly onRetry?: (err: unknown, delayMs: number) => void;
}

/**
 * `attempt` until it succeeds, retrying refusals that pass with time. At the
 * deadline (during an attempt that stalls, or between attempts) it throws
 * InstallTimeoutError naming `what` and the last refusal.
 */
export async function untilAccepted<T>(what: string, attempt: () => Promise<T>, options: UntilAcceptedOptions): Promise<T> {
  const backoff = options.backoff ?? new Backoff({ initialMs: 500, maxMs: 10_000 });
  const wait = options.sleep ?? ((ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }));
  for (;;) {
    let failure: unknown;
    try {
      return await attempt();
    } catch (err) {
      if (!options.signal.aborted && !isRetryableApplyError(err)) throw err;
      failure = err;
    }
    if (options.signal.aborted) throw timedOut(what, failure);
    const delayMs = backoff.next();
    options.onRetry?.(failure, delayMs);
    try {
      await wait(delayMs, options.signal);
    } catch {
      throw timedOut(what, failure);
    }
  }
}

function timedOut(what: string, last: unknown): InstallTimeoutError {
  // Not instanceof Error: an abort's DOMException may come from another realm.
  const message = typeof last === "object" && last !== null && "message" in last ? String(last.message) : String(last);
  const reason = scrubText(message);
  return new InstallTimeoutError(`timed out ${what}; the last attempt failed: ${reason}`);
}
