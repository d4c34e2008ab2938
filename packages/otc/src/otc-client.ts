/**
 * `OtcClient`: authenticated JSON requests to OTC services with retries.
 * With AK/SK every request is signed afresh (the gateway rejects dates more
 * than 15 minutes off) and project-scoped requests carry a signed
 * `X-Project-Id`; with an IAM user's password requests carry a
 * project-scoped IAM token (`X-Auth-Token`), renewed five minutes before it
 * expires and once when a service answers 401. The conditions OTC clears by
 * itself (409 load balancer busy, 429, 5xx, network errors) are retried with
 * jittered exponential backoff. A call's AbortSignal ends it at once, in
 * flight, between attempts or while it waits for a token.
 */
import { holdSecrets, registerSecret, releaseSecrets, type SecretHolder } from "@edgeconnect/redaction";
import type { Agent as HttpAgent, IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** The builtin, not an `import` of it: that would load undici at every start (see kcp-ts' rest-client.ts). */
const nodeHttp = process.getBuiltinModule("node:http");
import { setTimeout as delay } from "node:timers/promises";
import { abortable } from "./abort.js";
import { resolveEndpoints, serviceUrl, type Endpoints, type Service } from "./endpoints.js";
import { OtcApiError, OtcConfigError } from "./errors.js";
import {
  readIssuedToken,
  TOKEN_PATH,
  TokenCache,
  tokenRequestBody,
  validatePasswordCredentials,
  type IssuedToken,
  type PasswordCredentials,
} from "./iam-token.js";
import { signRequest, type Credentials } from "./signing/signer.js";

/** How a client authenticates: AK/SK signatures or an IAM token bought with a password. */
export type AuthMode = "accessKey" | "password";

/** Whether `credentials` are an IAM user's password rather than AK/SK. */
export function isPasswordCredentials(credentials: Credentials | PasswordCredentials): credentials is PasswordCredentials {
  return credentials.kind === "password";
}

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
  /** AK/SK (signed requests) or an IAM user's password (token requests). */
  readonly credentials: Credentials | PasswordCredentials;
  /** e.g. `eu-de`, `eu-nl`, `eu-ch2`. */
  readonly region: string;
  /**
   * Needed for project-scoped requests. AK/SK: `discoverProjectId` finds it
   * by name; password credentials: the token's project when unset.
   */
  readonly projectId?: string;
  /**
   * The project AK/SK credentials are checked against and discovery looks
   * for (`validateCredentials`, `connectOtcClient`); default the region.
   * Password credentials name theirs in `credentials.projectName`.
   */
  readonly projectName?: string;
  /** Base URL per service; default `https://{service}.{region}.otc.t-systems.com`. */
  readonly endpoints?: Partial<Record<Service, string>>;
  readonly retry?: RetryOptions;
  /** Clock for X-Sdk-Date, HTTP-date Retry-After values and token renewal. Default `() => new Date()`. */
  readonly now?: () => Date;
  /** Waits between attempts; the call stops waiting when `signal` aborts, whether or not this honours it. Default a timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of backoff jitter in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Per attempt, from sending to the end of the response body. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /**
   * Who holds the credentials in the redaction registry; `close()` lets
   * them go. Default: the process, for its life (the credentials a process
   * runs with). A controller with a client per tenant credential set names
   * a holder, so that a set it no longer uses is forgotten.
   */
  readonly secretHolder?: SecretHolder;
  /** Sent as `User-Agent` when set: names the program in the cloud's access logs. Default none. */
  readonly userAgent?: string;
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
  /**
   * AK/SK: sends and signs `X-Project-Id`. Default true; IAM calls pass
   * false. A token names its project itself, so token requests never carry it.
   */
  readonly projectScoped?: boolean;
  /**
   * The request acts each time it arrives and nothing tells afterwards
   * whether it did (CCE's `clustercert` issues a certificate per call):
   * it is retried only after an answer that says it was not acted on
   * (429: throttled by the gateway) or when no connection was made. A
   * lost answer, a 5xx or a timeout ends the call instead. Given a
   * `signal`, its attempt is bounded by that signal alone, not by the
   * per-attempt `timeoutMs`: cutting off a slow answer is what loses a
   * certificate that was issued, so the caller's deadline (its whole
   * window for the call) is the only bound. Default false.
   */
  readonly once?: boolean;
}

/** What a client and the clients derived from it share; see `withSignal` and `withProjectId`. */
interface SharedState {
  readonly httpAgent?: HttpAgent;
  readonly httpsAgent?: HttpsAgent;
  readonly signal?: AbortSignal;
  readonly tokens?: TokenCache;
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const DEFAULT_RETRY = { attempts: 5, baseDelayMs: 500, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 } as const;

export class OtcClient {
  readonly region: string;
  readonly authMode: AuthMode;
  /** The project the credentials are checked against: `credentials.projectName` for a password, else `projectName` or the region. */
  readonly projectName: string;
  private readonly endpoints: Endpoints;
  private readonly accessKeys: Credentials | undefined;
  private readonly password: PasswordCredentials | undefined;
  /** Shared with derived clients: same credentials, same token. */
  private readonly tokens: TokenCache;
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
    shared: SharedState = {},
  ) {
    this.region = options.region;
    this.endpoints = resolveEndpoints(options.region, options.endpoints);
    const { credentials } = options;
    // So that no error, log line or Event of this process can show them, even when a gateway echoes the request.
    if (isPasswordCredentials(credentials)) {
      validatePasswordCredentials(credentials);
      holdCredentials(options.secretHolder, [credentials.password]);
      this.password = credentials;
      this.authMode = "password";
      this.projectName = credentials.projectName;
    } else {
      holdCredentials(options.secretHolder, [credentials.accessKey, credentials.secretKey, credentials.securityToken]);
      this.accessKeys = credentials;
      this.authMode = "accessKey";
      this.projectName = options.projectName ?? options.region;
    }
    this.tokens = shared.tokens ?? new TokenCache();
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
    this.httpAgent = shared.httpAgent ?? new nodeHttp.Agent({ keepAlive: true });
    this.httpsAgent = shared.httpsAgent ?? new HttpsAgent({ keepAlive: true });
    this.boundSignal = shared.signal;
  }

  /**
   * The project ID project-scoped requests use: the configured one, else
   * (password credentials) the project of the token once one was issued.
   * Throws while there is neither.
   */
  get projectId(): string {
    if (this.configuredProjectId !== undefined && this.configuredProjectId !== "") return this.configuredProjectId;
    if (this.password === undefined) throw new OtcConfigError("no project ID configured: set projectId or discover it with discoverProjectId");
    const fromToken = this.tokens.projectId;
    if (fromToken === undefined) throw new OtcConfigError("no project ID yet: set projectId, or get a token first (validateCredentials or connectOtcClient)");
    return fromToken;
  }

  /** A client for another project with the same settings (its own connection pool, the same token). */
  withProjectId(projectId: string): OtcClient {
    return new OtcClient({ ...this.options, projectId }, { tokens: this.tokens });
  }

  /**
   * The same client, connections included, whose every call also ends when
   * `signal` aborts: a reconcile binds its signal into the client its cloud
   * code uses, so a stop or a lost Lease reaches every OTC call it makes.
   */
  withSignal(signal: AbortSignal): OtcClient {
    const bound = this.boundSignal === undefined ? signal : AbortSignal.any([this.boundSignal, signal]);
    return new OtcClient(this.options, { httpAgent: this.httpAgent, httpsAgent: this.httpsAgent, signal: bound, tokens: this.tokens });
  }

  /**
   * Password credentials: the project ID of the client's token, getting a
   * token if none is fresh (what `validateCredentials` checks them with).
   * IAM's refusal is an `OtcApiError` 401 carrying IAM's message. AK/SK
   * requests are signed one by one and have no token: `OtcConfigError`.
   */
  async authenticate(options: OtcCallOptions = {}): Promise<string> {
    const signal = this.callSignal(options.signal);
    signal?.throwIfAborted();
    if (this.password === undefined) throw new OtcConfigError("AK/SK credentials have no token; validate them with validateCredentials");
    return (await this.token(this.password, signal)).projectId;
  }

  /** Closes pooled connections (requests in flight finish), and lets go of the credentials when `secretHolder` holds them. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    if (this.options.secretHolder !== undefined) releaseSecrets(this.options.secretHolder);
  }

  /**
   * Sends a signed (AK/SK) or token-carrying (password) JSON request and
   * returns the parsed response body (undefined for an empty one). Retries
   * retryable failures up to
   * `retry.attempts` times in total, then throws the last `OtcApiError`.
   * Note that a POST whose answer was lost (5xx, network) is retried too
   * unless `once` is set, so callers creating resources should look for
   * the resource before creating another.
   */
  async request<T>(service: Service, method: string, path: string, options: OtcRequestOptions = {}): Promise<T> {
    const signal = this.callSignal(options.signal);
    signal?.throwIfAborted();
    const url = serviceUrl(this.endpoints[service], path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? (value as readonly QueryValue[]) : [value as QueryValue]) url.searchParams.append(key, String(item));
    }
    const body = options.body === undefined ? "" : JSON.stringify(options.body);
    const headers = jsonHeaders(body);
    if ((options.projectScoped ?? true) && this.password === undefined) headers["X-Project-Id"] = this.projectId;
    return parseJson<T>(method, url.pathname, await this.exchange(method, url, headers, body, signal, this.password, options.once ?? false));
  }

  private callSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    return signal === undefined || this.boundSignal === undefined ? (signal ?? this.boundSignal) : AbortSignal.any([signal, this.boundSignal]);
  }

  /**
   * Sends until a 2xx answer, retrying what is retryable. With `password`
   * every attempt carries the current token, and a 401 gets the request
   * one fresh token (not counted as an attempt): tokens end early when
   * revoked or when the user's password changes. Without it, the request is
   * signed with the AK/SK if the client has them, else sent as is (the
   * token request itself).
   */
  private async exchange(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal | undefined,
    password: PasswordCredentials | undefined,
    once = false,
  ): Promise<RawResponse> {
    let renewed = false;
    let attempt = 1;
    const attemptTimeoutMs = once && signal !== undefined ? undefined : this.timeoutMs;
    for (;;) {
      let error: OtcApiError;
      try {
        const token = password === undefined ? undefined : await this.token(password, signal);
        const sent = token === undefined ? headers : { ...headers, "X-Auth-Token": token.value };
        const response = await abortable(this.send(method, url, sent, body, signal, token === undefined ? this.accessKeys : undefined, attemptTimeoutMs), signal);
        if (response.status >= 200 && response.status < 300) return response;
        if (response.status === 401 && token !== undefined && !renewed) {
          renewed = true;
          this.tokens.discard(token);
          continue;
        }
        error = new OtcApiError(method, url.pathname, response.status, response.body, retryAfterSeconds(response.headers["retry-after"], this.now()));
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        // Includes a failed token request, which has had its own retries.
        if (cause instanceof OtcApiError || cause instanceof OtcConfigError) throw cause;
        error = new OtcApiError(method, url.pathname, 0, "", undefined, cause);
      }
      if (!error.retryable || (once && !unanswered(error)) || attempt >= this.retry.attempts) throw error;
      await abortable(this.sleep(this.delayMs(attempt, error.retryAfterSeconds), signal), signal);
      attempt++;
    }
  }

  /** A fresh token for `password`: the shared current one, or one IAM issues now. */
  private token(password: PasswordCredentials, signal: AbortSignal | undefined): Promise<IssuedToken> {
    return this.tokens.get(this.now().getTime(), (flightSignal) => this.issueToken(password, flightSignal), signal);
  }

  private async issueToken(password: PasswordCredentials, signal: AbortSignal): Promise<IssuedToken> {
    const url = serviceUrl(this.endpoints.iam, TOKEN_PATH);
    const body = JSON.stringify(tokenRequestBody(password));
    const response = await this.exchange("POST", url, jsonHeaders(body), body, signal, undefined);
    return readIssuedToken(url.pathname, response.status, response.headers["x-subject-token"], response.body, this.now());
  }

  /** Exponential backoff with "equal jitter" (half fixed, half random), or the server's Retry-After (capped) when given. */
  private delayMs(attempt: number, retryAfterSeconds: number | undefined): number {
    if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, this.retry.maxRetryAfterMs);
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  /** One attempt, signed with `accessKeys` when given, ended after `timeoutMs` unless that is undefined (then `signal` bounds it). */
  private send(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal | undefined,
    accessKeys: Credentials | undefined,
    timeoutMs: number | undefined,
  ): Promise<RawResponse> {
    const bytes = Buffer.from(body, "utf8");
    const named = this.options.userAgent === undefined ? headers : { ...headers, "User-Agent": this.options.userAgent };
    const signed = accessKeys === undefined ? { ...named } : signRequest({ method, url, headers: named, body: bytes }, accessKeys, this.now());
    if (bytes.length > 0) signed["Content-Length"] = String(bytes.length);
    const isHttps = url.protocol === "https:";
    const send = isHttps ? httpsRequest : nodeHttp.request;
    return new Promise<RawResponse>((resolve, reject) => {
      // The signal destroys the request and its socket, so an abandoned attempt holds no connection.
      const req = send(url, { method, headers: signed, agent: isHttps ? this.httpsAgent : this.httpAgent, signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      });
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
        req.on("close", () => clearTimeout(timer));
      }
      req.on("error", reject);
      req.end(bytes);
    });
  }
}

/** Connection failures that mean the request never left: nothing can have acted on it. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

/** Whether `error` says for certain that the service did not act on the request. */
function unanswered(error: OtcApiError): boolean {
  if (error.status === 429) return true;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return error.status === 0 && typeof code === "string" && NOT_SENT.has(code);
}

function jsonHeaders(body: string): Record<string, string> {
  return body === "" ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json;charset=UTF-8" };
}

/**
 * A 2xx body is data and may hold credentials (a kubeconfig's client key, a
 * generated keypair's private key), so a malformed one is never quoted.
 */
function parseJson<T>(method: string, path: string, response: RawResponse): T {
  if (response.body.trim() === "") return undefined as T;
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new OtcApiError(method, path, response.status, JSON.stringify({ message: "answer is not JSON" }));
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

/** Held by `holder`, or by the process for its life. */
function holdCredentials(holder: SecretHolder | undefined, values: readonly (string | undefined)[]): void {
  if (holder === undefined) for (const value of values) registerSecret(value);
  else holdSecrets(holder, values);
}
