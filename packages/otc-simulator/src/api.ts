/**
 * The contract between the HTTP server and the per-service modules: the
 * parsed request a module sees, the response it returns, OTC-shaped errors,
 * and readers for typed fields of untrusted JSON bodies.
 *
 * Error codes other than the API gateway's (`APIGW.*`) are the simulator's
 * own; only the body shapes follow OTC, so clients must key on the HTTP
 * status, as they have to against the real cloud.
 */

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
}

export interface ApiResponse {
  readonly status: number;
  readonly body?: unknown;
}

/**
 * `otc` is the API gateway / ELB / VPC shape `{error_msg, error_code}`;
 * `ecs` is ECS's `{error: {code, message}}`.
 */
export type ErrorFormat = "otc" | "ecs";

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

export function errorBody(error: ApiError, requestId: string): unknown {
  if (error.format === "ecs") return { error: { code: error.code, message: error.message } };
  return { error_msg: error.message, error_code: error.code, request_id: requestId };
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
  ) {}

  /** `body[key]` must be an object (OTC wraps every resource in a singular key). */
  static wrapped(body: unknown, key: string, code: string): Fields {
    if (!isObject(body) || !isObject(body[key])) throw new ApiError(400, code, `request body must be {"${key}": {...}}`);
    return new Fields(body[key], key, code);
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
    return new Fields(value, `${this.where}.${key}`, this.code);
  }

  invalid(key: string, problem: string): ApiError {
    return new ApiError(400, this.code, `${this.where}.${key} ${problem}`);
  }
}
