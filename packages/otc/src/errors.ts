/**
 * Errors of the OTC client: `OtcApiError` for answers an OTC API refused,
 * `OtcConfigError` for configuration that cannot work. Neither ever carries
 * credentials, the Authorization header or other request headers: what an
 * OTC answer says is scrubbed of registered credentials (the client
 * registers its AK, SK and security token) before it becomes a message.
 */
import { scrubText } from "@edgeconnect/redaction";

/** Configuration that cannot work (missing credentials, ambiguous project, bad endpoint). */
export class OtcConfigError extends Error {
  override readonly name = "OtcConfigError";
}

/** What OTC's error bodies say, whichever of their shapes they use. */
export interface OtcErrorDetail {
  readonly code: string | undefined;
  readonly message: string | undefined;
}

/**
 * An OTC API answered with a non-2xx status, or did not answer at all
 * (`status` 0: network error or timeout). `retryable` is true for the
 * conditions OTC clears by itself: 409 (load balancer busy), 429, 5xx,
 * network failures, and the API gateway's 404 for a route it does not serve
 * (`APIGW.0101`: an API not published in the region, or not yet).
 */
export class OtcApiError extends Error {
  override readonly name = "OtcApiError";
  readonly code: string | undefined;
  readonly otcMessage: string | undefined;
  readonly retryable: boolean;

  constructor(
    readonly method: string,
    /** The path only: queries may hold markers or names but never belong in logs by accident. */
    readonly path: string,
    readonly status: number,
    body: string,
    /** Seconds from a Retry-After header, if any. */
    readonly retryAfterSeconds?: number,
    cause?: unknown,
  ) {
    const detail = parseErrorBody(body);
    const what = status === 0 ? "network error" : `HTTP ${status}`;
    const code = detail.code === undefined ? "" : ` ${detail.code}`;
    const text = detail.message ?? (status === 0 ? causeMessage(cause) : body.slice(0, 300));
    super(scrubText(`${method} ${path}: ${what}${code}${text ? `: ${text}` : ""}`), cause === undefined ? undefined : { cause });
    this.code = detail.code === undefined ? undefined : scrubText(detail.code);
    this.otcMessage = detail.message === undefined ? undefined : scrubText(detail.message);
    this.retryable = isRetryableStatus(status) || (status === 404 && this.fromGateway);
  }

  /** Whether the API gateway answered (`APIGW.*` codes), not the service behind it: the service never saw the request. */
  get fromGateway(): boolean {
    return this.code?.startsWith("APIGW.") ?? false;
  }

  /**
   * The resource does not exist: a 404 with the service's own error code.
   * The gateway's 404 (a route not published) and a 404 without a code (a
   * proxy's) say nothing of the resource, and a teardown that took them for
   * "gone" would leave it behind.
   */
  get notFound(): boolean {
    return this.status === 404 && this.code !== undefined && !this.fromGateway;
  }
}

/**
 * Whether IAM or a service refused the credentials themselves (401, 403),
 * as opposed to being unreachable or failing otherwise: what tells a
 * "credentials invalid" condition from a retry later.
 */
export function isCredentialRejection(error: unknown): error is OtcApiError {
  return error instanceof OtcApiError && (error.status === 401 || error.status === 403);
}

/** 409 (LB busy), 429 (throttled), 5xx and 0 (no answer) clear by themselves; everything else is the request's fault. */
export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 409 || status === 429 || status >= 500;
}

/**
 * The shapes OTC services answer with: `{error_code, error_msg}` (ECS, VPC,
 * APIG, CCE), `{error: {code, message}}` (ELB v3, IAM), CCE's Kubernetes
 * `{kind: "Status", reason, message, code}` (whose `code` repeats the HTTP
 * status, so `reason` is taken), `{code, message}`,
 * `{NeutronError: {type, message}}` (ELB v2, VPC Neutron) and
 * `{badRequest: {code, message}}`-style Nova wrappers.
 */
export function parseErrorBody(body: string): OtcErrorDetail {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { code: undefined, message: undefined };
  }
  if (!isRecord(value)) return { code: undefined, message: undefined };
  if ("error_code" in value || "error_msg" in value) return detail(value.error_code, value.error_msg);
  if (isRecord(value.error)) return detail(value.error.code, value.error.message);
  if (isRecord(value.NeutronError)) return detail(value.NeutronError.type, value.NeutronError.message);
  if (value.kind === "Status") return detail(value.reason ?? value.code, value.message);
  if ("code" in value || "message" in value) return detail(value.code, value.message);
  const entries = Object.values(value);
  const [only] = entries;
  if (entries.length === 1 && isRecord(only)) return detail(only.code, only.message);
  return { code: undefined, message: undefined };
}

function detail(code: unknown, message: unknown): OtcErrorDetail {
  return {
    code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined,
    message: typeof message === "string" ? message : undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Duck-typed: errors from Node's own realm fail `instanceof Error` under test VMs. */
function causeMessage(cause: unknown): string {
  if (!isRecord(cause)) return "";
  if (typeof cause.message === "string" && cause.message !== "") return cause.message;
  return typeof cause.code === "string" ? cause.code : "";
}
