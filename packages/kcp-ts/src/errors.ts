/** Errors of the client. */

/** Kubernetes' `Status` object, as servers send it with failures. */
export interface Status {
  kind?: "Status";
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { retryAfterSeconds?: number; [key: string]: unknown };
}

/**
 * The server answered with a non-2xx status. `reason` is the Status reason
 * (NotFound, Conflict, Expired, ...) when the body was a Status;
 * `retryAfterSeconds` comes from the Retry-After header or the Status details
 * (429 and some 5xx). The message never contains request headers.
 */
export class HttpStatusError extends Error {
  override readonly name = "HttpStatusError";
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly body: string,
    retryAfterHeader?: string,
  ) {
    const parsed = parseStatus(body);
    super(`${method} ${url}: HTTP ${status}${parsed?.message ? `: ${parsed.message}` : body ? `: ${body.slice(0, 300)}` : ""}`);
    this.reason = parsed?.reason;
    const header = retryAfterHeader === undefined ? Number.NaN : Number(retryAfterHeader);
    this.retryAfterSeconds = Number.isFinite(header) ? header : parsed?.details?.retryAfterSeconds;
  }
}

function parseStatus(body: string): Status | undefined {
  try {
    const value = JSON.parse(body) as Status;
    return value !== null && typeof value === "object" && value.kind === "Status" ? value : undefined;
  } catch {
    return undefined;
  }
}
