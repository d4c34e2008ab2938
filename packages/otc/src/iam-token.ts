/**
 * IAM token authentication: an IAM user's password buys a project-scoped
 * token (`POST /v3/auth/tokens`, the token in the `X-Subject-Token` header)
 * that requests then carry as `X-Auth-Token`. `TokenCache` keeps the
 * current token, renews it shortly before it expires, and lets concurrent
 * calls share one token request.
 */
import { registerSecret } from "@edgeconnect/redaction";
import { abortable } from "./abort.js";
import { OtcApiError, OtcConfigError } from "./errors.js";

/** An IAM user's password credentials, as OpenStack tools and Crossplane's OTC provider take them. */
export interface PasswordCredentials {
  readonly kind: "password";
  readonly userName: string;
  readonly password: string;
  /** The account (IAM domain) the user belongs to, e.g. `OTC00000000001000000xxx`. */
  readonly domainName: string;
  /** The project the token is scoped to: the region (`eu-de`) or `<region>_<name>`. */
  readonly projectName: string;
}

export const TOKEN_PATH = "/v3/auth/tokens";

/** IAM tokens are valid for 24 hours at most (OTC's IAM API reference, "Obtaining a User Token"). */
export const MAX_TOKEN_LIFETIME_MS = 24 * 3_600_000;

/** Renewal this long before expiry, so that no token expires between being picked and arriving. */
const RENEWAL_MARGIN_MS = 5 * 60_000;

export interface IssuedToken {
  readonly value: string;
  /** `token.project.id`: the project the token is scoped to. */
  readonly projectId: string;
  /** Client clock (epoch ms) from which the token is renewed before use. */
  readonly renewAtMs: number;
}

/** Names the empty field, never a value. */
export function validatePasswordCredentials(credentials: PasswordCredentials): void {
  for (const field of ["userName", "password", "domainName", "projectName"] as const) {
    if (typeof credentials[field] !== "string" || credentials[field] === "") throw new OtcConfigError(`password credentials: ${field} is empty`);
  }
}

export function tokenRequestBody(credentials: PasswordCredentials): object {
  return {
    auth: {
      identity: {
        methods: ["password"],
        password: { user: { name: credentials.userName, password: credentials.password, domain: { name: credentials.domainName } } },
      },
      scope: { project: { name: credentials.projectName } },
    },
  };
}

interface TokenAnswer {
  readonly token?: { readonly expires_at?: unknown; readonly issued_at?: unknown; readonly project?: { readonly id?: unknown } };
}

/**
 * The token of a 2xx IAM answer, registered as a secret at once. The
 * renewal time is `receivedAt` plus the token's lifetime (`issued_at` to
 * `expires_at`, both IAM's clock, so a skewed local clock does not matter)
 * minus five minutes, or minus half the lifetime for short-lived tokens.
 * An answer without token, project or expiry breaks IAM's contract.
 */
export function readIssuedToken(path: string, status: number, subjectToken: string | string[] | undefined, body: string, receivedAt: Date): IssuedToken {
  const breach = (what: string): OtcApiError => new OtcApiError("POST", path, status, JSON.stringify({ message: `token answer ${what}` }));
  const value = Array.isArray(subjectToken) ? subjectToken[0] : subjectToken;
  if (value === undefined || value === "") throw breach("has no X-Subject-Token header");
  // Held from the first moment, before anything can fail; forgotten once it cannot be valid any more.
  // The registry's deadlines are on the process's clock, not the client's (which tests and skew may move).
  registerSecret(value, { until: Date.now() + MAX_TOKEN_LIFETIME_MS });
  let answer: TokenAnswer | undefined;
  try {
    answer = JSON.parse(body) as TokenAnswer;
  } catch {
    throw breach("is not JSON");
  }
  const projectId = answer?.token?.project?.id;
  if (typeof projectId !== "string" || projectId === "") throw breach('has no "token.project.id"');
  const expiresAtMs = typeof answer?.token?.expires_at === "string" ? Date.parse(answer.token.expires_at) : Number.NaN;
  if (Number.isNaN(expiresAtMs)) throw breach('has no valid "token.expires_at"');
  const issuedAtMs = typeof answer?.token?.issued_at === "string" ? Date.parse(answer.token.issued_at) : Number.NaN;
  const lifetimeMs = expiresAtMs - (Number.isNaN(issuedAtMs) ? receivedAt.getTime() : issuedAtMs);
  // An IAM that issues longer-lived tokens than its documentation says still gets them hidden for as long as they live.
  if (lifetimeMs > MAX_TOKEN_LIFETIME_MS) registerSecret(value, { until: Date.now() + lifetimeMs });
  const marginMs = Math.min(RENEWAL_MARGIN_MS, Math.max(0, lifetimeMs / 2));
  return { value, projectId, renewAtMs: receivedAt.getTime() + lifetimeMs - marginMs };
}

interface Flight {
  readonly promise: Promise<IssuedToken>;
  readonly controller: AbortController;
  /** Calls waiting for it; when the last one gives up, the request is ended. */
  waiters: number;
}

/**
 * The current token of one set of password credentials, shared by a client
 * and the clients derived from it. At most one token request is in flight:
 * calls that need a token while one is requested wait for it. A caller's
 * signal ends only its own wait; the request itself ends when every caller
 * waiting for it has given up.
 */
export class TokenCache {
  private token: IssuedToken | undefined;
  private flight: Flight | undefined;
  private scopedProjectId: string | undefined;

  /** The project of the tokens issued so far (it does not change with renewal). */
  get projectId(): string | undefined {
    return this.scopedProjectId;
  }

  /** The current token if fresh at `nowMs`, else the one `issue` gets (or is getting). */
  async get(nowMs: number, issue: (signal: AbortSignal) => Promise<IssuedToken>, signal: AbortSignal | undefined): Promise<IssuedToken> {
    const token = this.token;
    if (token !== undefined && nowMs < token.renewAtMs) return token;
    const flight = (this.flight ??= this.start(issue));
    flight.waiters++;
    try {
      return await abortable(flight.promise, signal);
    } finally {
      flight.waiters--;
      if (flight.waiters === 0 && signal?.aborted === true && this.flight === flight) {
        this.flight = undefined;
        flight.controller.abort(signal.reason);
      }
    }
  }

  /** Forgets `token` (IAM refused it) unless a newer one replaced it already. */
  discard(token: IssuedToken): void {
    if (this.token === token) this.token = undefined;
  }

  private start(issue: (signal: AbortSignal) => Promise<IssuedToken>): Flight {
    const controller = new AbortController();
    const promise = issue(controller.signal).then((token) => {
      this.token = token;
      this.scopedProjectId = token.projectId;
      return token;
    });
    const flight: Flight = { promise, controller, waiters: 0 };
    // Also handles the rejection of a request every caller left.
    void promise.then(
      () => this.land(flight),
      () => this.land(flight),
    );
    return flight;
  }

  private land(flight: Flight): void {
    if (this.flight === flight) this.flight = undefined;
  }
}
