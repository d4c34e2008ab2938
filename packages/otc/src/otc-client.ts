/**
 * `OtcClient`: signed JSON requests to OTC services with retries. Every
 * request is signed afresh (the gateway rejects dates more than 15 minutes
 * off), project-scoped requests carry a signed `X-Project-Id`, and the
 * conditions OTC clears by itself (409 load balancer busy, 429, 5xx, network
 * errors) are retried with jittered exponential backoff. A call's
 * AbortSignal ends it at once, in flight or between attempts.
 */
import { registerSecret } from "@edgeconnect/redaction";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { setTimeout as delay } from "node:timers/promises";
import { resolveEndpoints, serviceUrl, type Endpoints, type Service } from "./endpoints.js";
import { OtcApiError, OtcConfigError } from "./errors.js";
import { signRequest, type Credentials } from "./signing/signer.js";

export interface RetryOptions {
  /** Attempts in total, the first included. Default 5. */
  readonly attempts?: number;
  /** Backoff before the second attempt; it doubles per attempt. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** Ceiling of the exponential backoff (not of a server's Retry-After). Default 10 000 ms. */
  readonly maxDelayMs?: number;
  /**
   * Ceiling of a server's Retry-After: a gateway asking for an hour would
   * otherwise hold the caller (a reconcile worker) that long. Default 60 000 ms.
   */
  readonly maxRetryAfterMs?: number;
}

export interface OtcClientOptions {
  readonly credentials: Credentials;
  /** e.g. `eu-de`, `eu-nl`, `eu-ch2`. */
  readonly region: string;
  /** Needed for project-scoped requests; `discoverProjectId` finds it by name. */
  readonly projectId?: string;
  /** Base URL per service; default `https://{service}.{region}.otc.t-systems.com`. */
  readonly endpoints?: Partial<Record<Service, string>>;
  readonly retry?: RetryOptions;
  /** Clock for X-Sdk-Date and HTTP-date Retry-After values. Default `() => new Date()`. */
  readonly now?: () => Date;
  /** Waits between attempts; the call stops waiting when `signal` aborts, whether or not this honours it. Default a timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of backoff jitter in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Per attempt, from sending to the end of the response body. Default 30 000 ms. */
  readonly timeoutMs?: number;
}

export type QueryValue = string | number | boolean;

/** What every call of this package accepts last. */
export interface OtcCallOptions {
  /**
   * Ends the call: the attempt in flight (its socket is destroyed) or the
   * wait before the next one. The call then rejects with `signal.reason`
   * (a DOMException named AbortError, or TimeoutError for
   * `AbortSignal.timeout`), never with an `OtcApiError`; an already aborted
   * signal sends nothing.
   */
  readonly signal?: AbortSignal;
}

export interface OtcRequestOptions extends OtcCallOptions {
  /** Repeated keys for arrays; undefined values are left out. */
  readonly query?: Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sends and signs `X-Project-Id`. Default true; IAM calls pass false. */
  readonly projectScoped?: boolean;
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const DEFAULT_RETRY = { attempts: 5, baseDelayMs: 500, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 } as const;

export class OtcClient {
  readonly region: string;
  private readonly endpoints: Endpoints;
  private readonly credentials: Credentials;
  private readonly configuredProjectId: string | undefined;
  private readonly retry: Required<RetryOptions>;
  private readonly now: () => Date;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly timeoutMs: number;
  // Keep-alive saves a TLS handshake per call; controllers poll the same few hosts.
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;
  /** Ends every call of this client too; see `withSignal`. */
  private readonly boundSignal: AbortSignal | undefined;

  constructor(
    private readonly options: OtcClientOptions,
    shared?: { readonly httpAgent: HttpAgent; readonly httpsAgent: HttpsAgent; readonly signal: AbortSignal },
  ) {
    this.region = options.region;
    this.endpoints = resolveEndpoints(options.region, options.endpoints);
    this.credentials = options.credentials;
    // So that no error, log line or Event of this process can show them, even when a gateway echoes the request.
    for (const value of [options.credentials.accessKey, options.credentials.secretKey, options.credentials.securityToken]) registerSecret(value);
    this.configuredProjectId = options.projectId;
    this.retry = {
      attempts: options.retry?.attempts ?? DEFAULT_RETRY.attempts,
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs,
    };
    if (!Number.isInteger(this.retry.attempts) || this.retry.attempts < 1) throw new OtcConfigError("retry.attempts must be a positive integer");
    this.now = options.now ?? (() => new Date());
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.httpAgent = shared?.httpAgent ?? new HttpAgent({ keepAlive: true });
    this.httpsAgent = shared?.httpsAgent ?? new HttpsAgent({ keepAlive: true });
    this.boundSignal = shared?.signal;
  }

  /** The project ID project-scoped requests use; throws if none was configured. */
  get projectId(): string {
    if (this.configuredProjectId === undefined || this.configuredProjectId === "") {
      throw new OtcConfigError("no project ID configured: set projectId or discover it with discoverProjectId");
    }
    return this.configuredProjectId;
  }

  /** A client for another project with the same settings (its own connection pool). */
  withProjectId(projectId: string): OtcClient {
    return new OtcClient({ ...this.options, projectId });
  }

  /**
   * The same client, connections included, whose every call also ends when
   * `signal` aborts: a reconcile binds its signal into the client its cloud
   * code uses, so a stop or a lost Lease reaches every OTC call it makes.
   */
  withSignal(signal: AbortSignal): OtcClient {
    const bound = this.boundSignal === undefined ? signal : AbortSignal.any([this.boundSignal, signal]);
    return new OtcClient(this.options, { httpAgent: this.httpAgent, httpsAgent: this.httpsAgent, signal: bound });
  }

  /** Closes pooled connections; requests in flight finish. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * Sends a signed JSON request and returns the parsed response body
   * (undefined for an empty one). Retries retryable failures up to
   * `retry.attempts` times in total, then throws the last `OtcApiError`.
   * Note that a POST whose answer was lost (5xx, network) is retried too, so
   * callers creating resources should look for the resource before
   * creating another.
   */
  async request<T>(service: Service, method: string, path: string, options: OtcRequestOptions = {}): Promise<T> {
    const signal = options.signal === undefined || this.boundSignal === undefined ? (options.signal ?? this.boundSignal) : AbortSignal.any([options.signal, this.boundSignal]);
    signal?.throwIfAborted();
    const url = serviceUrl(this.endpoints[service], path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? (value as readonly QueryValue[]) : [value as QueryValue]) url.searchParams.append(key, String(item));
    }
    const body = options.body === undefined ? "" : JSON.stringify(options.body);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== "") headers["Content-Type"] = "application/json;charset=UTF-8";
    if (options.projectScoped ?? true) headers["X-Project-Id"] = this.projectId;

    for (let attempt = 1; ; attempt++) {
      let error: OtcApiError;
      try {
        const response = await abortable(this.send(method, url, headers, body, signal), signal);
        if (response.status >= 200 && response.status < 300) return parseJson<T>(method, url.pathname, response);
        error = new OtcApiError(method, url.pathname, response.status, response.body, retryAfterSeconds(response.headers["retry-after"], this.now()));
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        if (cause instanceof OtcApiError || cause instanceof OtcConfigError) throw cause;
        error = new OtcApiError(method, url.pathname, 0, "", undefined, cause);
      }
      if (!error.retryable || attempt >= this.retry.attempts) throw error;
      await abortable(this.sleep(this.delayMs(attempt, error.retryAfterSeconds), signal), signal);
    }
  }

  /** Exponential backoff with "equal jitter" (half fixed, half random), or the server's Retry-After (capped) when given. */
  private delayMs(attempt: number, retryAfterSeconds: number | undefined): number {
    if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, this.retry.maxRetryAfterMs);
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  private send(method: string, url: URL, headers: Record<string, string>, body: string, signal: AbortSignal | undefined): Promise<RawResponse> {
    const bytes = Buffer.from(body, "utf8");
    const signed = signRequest({ method, url, headers, body: bytes }, this.credentials, this.now());
    if (bytes.length > 0) signed["Content-Length"] = String(bytes.length);
    const isHttps = url.protocol === "https:";
    const send = isHttps ? httpsRequest : httpRequest;
    return new Promise<RawResponse>((resolve, reject) => {
      // The signal destroys the request and its socket, so an abandoned attempt holds no connection.
      const req = send(url, { method, headers: signed, agent: isHttps ? this.httpsAgent : this.httpAgent, signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      });
      const timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on("close", () => clearTimeout(timer));
      req.on("error", reject);
      req.end(bytes);
    });
  }
}

/**
 * `work`, or `signal.reason` as soon as the signal aborts: whatever `work`
 * does on abort (an injected sleep may ignore it, a socket error may come
 * later), the caller learns at once and by the signal's reason.
 */
async function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const done = await Promise.race([work.then((value) => ({ value })), aborted]);
    if (done === undefined) throw signal.reason;
    return done.value;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function parseJson<T>(method: string, path: string, response: RawResponse): T {
  if (response.body.trim() === "") return undefined as T;
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new OtcApiError(method, path, response.status, response.body);
  }
}

/** Retry-After is either delta-seconds or an HTTP date. */
function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now.getTime()) / 1000);
}
