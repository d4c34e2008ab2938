/** Errors of the client. */
import { scrubDeep, scrubText } from "@edgeconnect/redaction";

/** Kubernetes' `Status` object, as servers send it with failures. */
export interface Status {
  kind?: "Status";
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    retryAfterSeconds?: number;
    /** Invalid fields (422) and apply conflicts (409), as the server lists them. */
    causes?: { reason?: string; message?: string; field?: string }[];
    [key: string]: unknown;
  };
}

/**
 * The server answered with a non-2xx status. `reason` is the Status reason
 * (NotFound, Conflict, Expired, ...) when the body was a Status;
 * `retryAfterSeconds` comes from the Retry-After header or the Status details
 * (429 and some 5xx). The message never contains request headers, and
 * message, URL and body are scrubbed of registered credentials and bearer
 * tokens (a server or proxy that echoes the request would otherwise hand
 * the Authorization header to whoever logs the error).
 */
export class HttpStatusError extends Error {
  override readonly name = "HttpStatusError";
  readonly url: string;
  readonly body: string;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** The body when it was a Status, scrubbed like the rest. */
  readonly statusObject: Status | undefined;

  constructor(
    readonly method: string,
    url: string,
    readonly status: number,
    body: string,
    retryAfterHeader?: string,
  ) {
    const parsed = parseStatus(body);
    const detail = parsed?.message ? `: ${parsed.message}` : body ? `: ${body.slice(0, 300)}` : "";
    super(scrubText(`${method} ${url}: HTTP ${status}${detail}`));
    this.url = scrubText(url);
    this.body = scrubText(body);
    this.statusObject = parsed === undefined ? undefined : scrubDeep(parsed);
    this.reason = this.statusObject?.reason;
    const header = retryAfterHeader === undefined ? Number.NaN : Number(retryAfterHeader);
    this.retryAfterSeconds = Number.isFinite(header) ? header : parsed?.details?.retryAfterSeconds;
  }
}

/**
 * A request had no complete answer (headers and body) within its deadline.
 * Named TimeoutError like the reason of `AbortSignal.timeout`, so code that
 * recognises one recognises both; unlike Node's bare AbortError it says which
 * call it was. The URL is scrubbed as in HttpStatusError.
 */
export class RequestTimeoutError extends Error {
  override readonly name = "TimeoutError";
  readonly url: string;

  constructor(
    readonly method: string,
    url: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(scrubText(`${method} ${url}: no answer within ${timeoutMs} ms`), options);
    this.url = scrubText(url);
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
