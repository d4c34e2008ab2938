/**
 * Structured logging for the runtime: one pino root logger writing JSON, the
 * list of paths that are redacted before anything reaches the output, the
 * error serializer, and the child loggers a controller and a single reconcile
 * log through. Field names follow controller-runtime (`controller`,
 * `controllerGroup`, `controllerKind`, `namespace`, `name`, `reconcileID`) so
 * existing log queries keep working; `cluster` is kcp's logical cluster.
 */
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/** What redacted values are replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * Paths whose values never reach the log. A path names a key at the top
 * level or, through `*`, one level down (`secret.data`, `user.token`): that
 * covers what controllers actually log (an object, an event, a request)
 * while keeping pino's wildcard cost small.
 *
 * `data` and `stringData` are redacted wherever they appear, ConfigMaps
 * included: the path alone cannot tell a Secret from anything else, and
 * hiding a ConfigMap's data costs far less than leaking a Secret's.
 */
export const REDACTED_PATHS: readonly string[] = [
  // Authorization headers, as a header map (`headers.authorization`) or in a
  // logged request (`req.headers.authorization`); Node lower-cases incoming
  // names, hand-built maps may not.
  "authorization",
  "Authorization",
  "*.authorization",
  "*.Authorization",
  "*.headers.authorization",
  "*.headers.Authorization",
  // Bearer tokens and service-account tokens.
  "token",
  "*.token",
  "bearerToken",
  "*.bearerToken",
  // Passwords and cloud credentials (OTC AK/SK).
  "password",
  "*.password",
  "secretKey",
  "*.secretKey",
  "accessKey",
  "*.accessKey",
  // Whole kubeconfigs, and the private key of one that is logged in pieces.
  "kubeconfig",
  "*.kubeconfig",
  '["client-key-data"]',
  '*["client-key-data"]',
  // Secret payloads: a Secret itself, a Secret under some key (`object`,
  // `secret`, ...), and a watch event's object (`event.object.data`).
  "data",
  "stringData",
  "*.data",
  "*.stringData",
  "*.object.data",
  "*.object.stringData",
];

/** Bodies (of a failed HTTP request, say) are cut to this many characters. */
export const MAX_ERROR_BODY_CHARS = 500;

/**
 * Causes are followed this deep: enough for a wrapped client error, and a
 * bound on what a cyclic or very long chain can add to one line.
 */
const MAX_CAUSE_DEPTH = 3;

/** An error as it appears in the log. */
export interface SerializedError {
  name?: string;
  message: string;
  stack?: string;
  /** HTTP status code (kcp-ts' `HttpStatusError.status`). */
  status?: number;
  /** Kubernetes Status reason (NotFound, Conflict, ...). */
  reason?: string;
  /** Node's system error code (ECONNREFUSED, ...). */
  code?: string;
  /** The response body, at most `MAX_ERROR_BODY_CHARS` characters (cut ones end in "…"). */
  body?: string;
  cause?: SerializedError;
}

/**
 * pino's `err` serializer. It copies a fixed set of fields instead of every
 * enumerable property: HTTP client errors tend to carry the request (with
 * its Authorization header) or the full response, and an allow-list is the
 * only way to be sure neither reaches the log.
 */
export function serializeError(err: unknown): SerializedError {
  return serialize(err, 0);
}

function serialize(err: unknown, depth: number): SerializedError {
  if (typeof err !== "object" || err === null) return { message: String(err) };
  const source = err as Record<string, unknown>;
  // No stringifying a message-less object: its fields are exactly what the allow-list keeps out.
  const out: SerializedError = { message: typeof source.message === "string" ? source.message : "(no message)" };
  if (typeof source.name === "string") out.name = source.name;
  if (typeof source.stack === "string") out.stack = source.stack;
  if (typeof source.status === "number") out.status = source.status;
  if (typeof source.reason === "string") out.reason = source.reason;
  if (typeof source.code === "string") out.code = source.code;
  if (typeof source.body === "string" && source.body !== "") out.body = truncate(source.body);
  if (source.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serialize(source.cause, depth + 1);
  return out;
}

function truncate(text: string): string {
  // The ellipsis counts towards the limit, so a logged body is never longer than it.
  return text.length <= MAX_ERROR_BODY_CHARS ? text : `${text.slice(0, MAX_ERROR_BODY_CHARS - 1)}…`;
}

export interface LoggerOptions {
  /** Minimum level written. Default: `$LOG_LEVEL`, else `"info"`. */
  level?: string;
  /** Where JSON lines go. Default: standard output. */
  destination?: DestinationStream;
}

/**
 * The process's root logger. Lines are JSON with an ISO-8601 `time` and a
 * textual `level`; there are no `pid`/`hostname` base fields, since the
 * container runtime already attaches both to every line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
    },
    options.destination,
  );
}

/** Identifies a controller, as controller-runtime does. */
export interface ControllerLogFields {
  controller: string;
  /** API group of the reconciled kind ("" for the core group). */
  group?: string;
  kind?: string;
}

/** A controller's logger: `controller`, and `controllerGroup`/`controllerKind` when known. */
export function controllerLogger(root: Logger, fields: ControllerLogFields): Logger {
  const bindings: Record<string, string> = { controller: fields.controller };
  if (fields.group !== undefined) bindings.controllerGroup = fields.group;
  if (fields.kind !== undefined) bindings.controllerKind = fields.kind;
  return root.child(bindings);
}

/** Identifies one reconcile of one object. */
export interface ReconcileLogFields {
  /** kcp logical cluster the object lives in. */
  cluster: string;
  /** "" for cluster-scoped objects, as in controller-runtime. */
  namespace: string;
  name: string;
  /** Unique per reconcile, so that all its lines can be found together. */
  reconcileID: string;
}

/** The logger of one reconcile, derived from its controller's logger. */
export function reconcileLogger(controllerLog: Logger, fields: ReconcileLogFields): Logger {
  return controllerLog.child({
    cluster: fields.cluster,
    namespace: fields.namespace,
    name: fields.name,
    reconcileID: fields.reconcileID,
  });
}
