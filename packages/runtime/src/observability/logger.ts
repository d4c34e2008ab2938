/**
 * Structured logging for the runtime: one pino root logger writing JSON, in
 * which nothing that reaches the output can carry a credential, the error
 * serializer, and the child loggers a controller and a single reconcile log
 * through. Field names follow controller-runtime (`controller`,
 * `controllerGroup`, `controllerKind`, `namespace`, `name`, `reconcileID`) so
 * existing log queries keep working; `cluster` is kcp's logical cluster.
 *
 * Redaction is by construction rather than by a list of paths: every logged
 * object, interpolation argument and child binding that could hold a
 * credential passes through `scrubDeep` (sensitive keys at any depth, arrays
 * included, errors under any key reduced to an allow-list), the message
 * through `scrubText` (held credential values and credentials of a known
 * shape anywhere), and every finished line through `scrubHeldValues` (for
 * values registered after a child's bindings were written). Bindings that
 * name what is being reconciled (`SAFE_BINDINGS`) are identifiers, never
 * credentials: they skip the per-child scrub, which every reconcile pays.
 *
 * Logging never throws into its caller: a value that fails to serialise or
 * scrub (a throwing getter, a Proxy, something too large) drops that line in
 * favour of one that says a line was dropped, without the value, and is
 * counted (`containedFailures`).
 */
import { noteContainedFailure, REDACTED, scrubDeep, scrubHeldValues, scrubText } from "@edgeconnect/redaction";
import { pino, type DestinationStream, type Logger } from "pino";

/** What redacted values are replaced with. */
export { REDACTED };

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
 * only way to be sure neither reaches the log. Its strings are scrubbed, so
 * the result is safe outside a log line too.
 */
export function serializeError(err: unknown): SerializedError {
  return serialize(scrubDeep(err), 0);
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
  const logger = pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrubDeep(object),
      },
      hooks: {
        // The first argument is the merging object (the `log` formatter's), an
        // error, or the message; the rest are the message and what is
        // interpolated into it (`%j`, `%o`), scrubbed before pino stringifies them.
        logMethod(args, method, level) {
          try {
            method.apply(this, safeArguments(args) as Parameters<typeof method>);
          } catch (err) {
            // What failed may hold the very value to hide: say only that a line was lost, and of what kind.
            noteContainedFailure("log");
            try {
              method.call(this, { droppedLine: { level, error: errorName(err) } }, "a log line could not be written");
            } catch {
              // The destination itself fails: nothing more can be said, and the caller must go on.
            }
          }
        },
        // Every finished line, for what the formatters never see: child
        // bindings made before a credential was registered. Its parts have
        // been through the shapes already (formatters, hooks, serializers),
        // so only held values are searched: once per line, not twice.
        streamWrite: (line) => scrubHeldValues(line),
      },
      serializers: { err: serializeError },
    },
    options.destination,
  );
  // pino applies no formatter to a child's bindings (it stringifies them
  // once, at creation). Children are made from their parent's prototype
  // chain, so this wrapper covers grandchildren too.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with each logger as `this`
  const child = logger.child;
  logger.child = function (this: Logger, bindings, childOptions) {
    try {
      return child.call(this, safeBindings(bindings), childOptions);
    } catch (err) {
      noteContainedFailure("log");
      this.error({ droppedBindings: errorName(err) }, "a child logger's bindings could not be written; logging without them");
      return child.call(this, {}, childOptions);
    }
  } as Logger["child"];
  return logger;
}

/**
 * Bindings that name what a controller works on: controller-runtime's
 * (`controller`, `controllerGroup`, `controllerKind`, `namespace`, `name`,
 * `reconcileID`) and kcp's logical `cluster`. Object names cannot hold a
 * credential worth hiding, and these are bound on every reconcile.
 */
export const SAFE_BINDINGS: ReadonlySet<string> = new Set(["controller", "controllerGroup", "controllerKind", "cluster", "namespace", "name", "reconcileID"]);

function safeBindings(bindings: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(bindings)) {
    if (!SAFE_BINDINGS.has(key) || (typeof value !== "string" && typeof value !== "number" && value !== undefined)) return scrubDeep(bindings);
  }
  return bindings;
}

/**
 * pino takes an error's message as the line's when none is given (`log(err)`,
 * `log({ err })`), from the error itself rather than from what the
 * serializer made of it: give it the scrubbed one.
 */
function safeArguments(args: readonly unknown[]): unknown[] {
  const [first, ...rest] = args;
  const scrubbedRest = rest.map((arg: unknown) => scrubDeep(arg));
  if (typeof first === "string") return [scrubText(first), ...scrubbedRest];
  if (typeof rest[0] === "string") return [first, ...scrubbedRest];
  if (first instanceof Error) return [{ err: first }, scrubText(first.message), ...scrubbedRest];
  const err = (first as { err?: unknown } | null | undefined)?.err;
  if (err instanceof Error) return [first, scrubText(err.message), ...scrubbedRest];
  return [first, ...scrubbedRest];
}

function errorName(err: unknown): string {
  try {
    return err instanceof Error ? err.name : typeof err;
  } catch {
    return "unknown";
  }
}
