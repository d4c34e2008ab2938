/**
 * The contract between the HTTP server and the per-service modules: the
 * parsed request a module sees, the response it returns, OTC-shaped errors,
 * and readers for typed fields of untrusted JSON bodies.
 *
 * Error codes other than the API gateway's (`APIGW.*`) are the simulator's
 * own; only the body shapes follow OTC, so clients must key on the HTTP
 * status, as they have to against the real cloud.
 */

/** Who sent a request that carried an IAM token instead of an AK/SK signature. */
export interface TokenScope {
  /** The one project the token may act in. */
  readonly projectId: string;
  readonly userId: string;
}

/** A request after authentication, as the service modules see it. */
export interface ApiRequest {
  readonly method: string;
  /** Decoded path segments, without empty ones: `/v2.0/lbaas/pools` → `["v2.0","lbaas","pools"]`. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; undefined when the body was empty. */
  readonly body: unknown;
  /** Set when the request was authenticated with an X-Auth-Token; undefined for AK/SK. */
  readonly token?: TokenScope;
}

export interface ApiResponse {
  readonly status: number;
  readonly body?: unknown;
  /** Response headers besides x-request-id and content-type (IAM's X-Subject-Token). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * `otc` is the API gateway / ELB / VPC shape `{error_msg, error_code}`;
 * `ecs` is ECS's `{error: {code, message}}`; `iam` is Keystone's
 * `{error: {code: <status>, message, title}}`; `nova` wraps `{code, message}`
 * in a key naming the fault (`itemNotFound`, `conflictingRequest`, …); `cce`
 * is a Kubernetes `Status` that also carries `error_code`/`error_msg`, as
 * CCE's answers do.
 */
export type ErrorFormat = "otc" | "ecs" | "iam" | "nova" | "cce";

/** Thrown by handlers; the server turns it into an error response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly format: ErrorFormat = "otc",
  ) {
    super(message);
    this.name = "ApiError";
  }
}

const TITLES: Readonly<Record<number, string>> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict" };
const NOVA_FAULTS: Readonly<Record<number, string>> = { 400: "badRequest", 403: "forbidden", 404: "itemNotFound", 409: "conflictingRequest" };
const STATUS_REASONS: Readonly<Record<number, string>> = { 400: "BadRequest", 403: "Forbidden", 404: "NotFound", 409: "Conflict" };

export function errorBody(error: ApiError, requestId: string): unknown {
  const { status, code, message } = error;
  switch (error.format) {
    case "ecs":
      return { error: { code, message } };
    case "iam":
      return { error: { code: status, message, title: TITLES[status] ?? "Error" } };
    case "nova":
      return { [NOVA_FAULTS[status] ?? "computeFault"]: { code: status, message } };
    case "cce":
      return {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message,
        reason: STATUS_REASONS[status] ?? "InternalError",
        code: status,
        error_code: code,
        error_msg: message,
      };
    case "otc":
      return { error_msg: message, error_code: code, request_id: requestId };
  }
}

export function json(status: number, body?: unknown): ApiResponse {
  return body === undefined ? { status } : { status, body };
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Readers for one JSON object. Every failure is a 400 naming the field, with
 * `code` chosen by the caller's service so errors look like that service's.
 */
export class Fields {
  private constructor(
    private readonly object: JsonObject,
    private readonly where: string,
    private readonly code: string,
    private readonly format: ErrorFormat,
  ) {}

  /** `body[key]` must be an object (OTC wraps every resource in a singular key). */
  static wrapped(body: unknown, key: string, code: string, format: ErrorFormat = "otc"): Fields {
    if (!isObject(body) || !isObject(body[key])) throw new ApiError(400, code, `request body must be {"${key}": {...}}`, format);
    return new Fields(body[key], key, code, format);
  }

  /** The body itself must be an object (CCE's Kubernetes-style bodies); field paths start at its keys. */
  static body(body: unknown, code: string, format: ErrorFormat): Fields {
    if (!isObject(body)) throw new ApiError(400, code, "request body must be a JSON object", format);
    return new Fields(body, "", code, format);
  }

  has(key: string): boolean {
    return this.object[key] !== undefined;
  }

  /** True when the key is present with an explicit null (how EIP unbinding is written). */
  isNull(key: string): boolean {
    return key in this.object && this.object[key] === null;
  }

  string(key: string): string {
    const value = this.optionalString(key);
    if (value === undefined) throw this.invalid(key, "is required");
    return value;
  }

  optionalString(key: string): string | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw this.invalid(key, "must be a string");
    return value;
  }

  /** A string no longer than `max` characters (OTC's name and description limits). */
  optionalText(key: string, max: number): string | undefined {
    const value = this.optionalString(key);
    if (value !== undefined && value.length > max) throw this.invalid(key, `must be at most ${max} characters`);
    return value;
  }

  integer(key: string, min: number, max: number): number {
    const value = this.optionalInteger(key, min, max);
    if (value === undefined) throw this.invalid(key, "is required");
    return value;
  }

  optionalInteger(key: string, min: number, max: number): number | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw this.invalid(key, `must be an integer from ${min} to ${max}`);
    }
    return value;
  }

  optionalBoolean(key: string): boolean | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") throw this.invalid(key, "must be a boolean");
    return value;
  }

  optionalEnum<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.optionalString(key);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) throw this.invalid(key, `must be one of ${allowed.join(", ")}`);
    return value as T;
  }

  enumValue<T extends string>(key: string, allowed: readonly T[]): T {
    const value = this.optionalEnum(key, allowed);
    if (value === undefined) throw this.invalid(key, "is required");
    return value;
  }

  optionalStringList(key: string): string[] | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw this.invalid(key, "must be a list of strings");
    return value;
  }

  optionalObject(key: string): Fields | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw this.invalid(key, "must be an object");
    return new Fields(value, this.path(key), this.code, this.format);
  }

  requiredObject(key: string): Fields {
    const value = this.optionalObject(key);
    if (value === undefined) throw this.invalid(key, "is required");
    return value;
  }

  optionalObjectList(key: string): Fields[] | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every(isObject)) throw this.invalid(key, "must be a list of objects");
    return value.map((item, index) => new Fields(item, `${this.path(key)}[${index}]`, this.code, this.format));
  }

  invalid(key: string, problem: string): ApiError {
    return new ApiError(400, this.code, `${this.path(key)} ${problem}`, this.format);
  }

  private path(key: string): string {
    return this.where === "" ? key : `${this.where}.${key}`;
  }
}
