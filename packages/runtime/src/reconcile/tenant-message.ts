/**
 * Messages a tenant reads: status condition messages and Events on the
 * tenant's objects. A tenant must learn what is wrong and whether it is
 * being retried, never how the infrastructure behind it is laid out: no
 * URLs, host:port pairs or IP addresses, no `kcp-<fingerprint>` namespaces
 * (another tenant's would give away that tenant), no OTC project ids, no raw
 * upstream error bodies (JSON, HTML), and nothing unbounded.
 *
 * Errors the runtime knows become a short description of what happened;
 * anything else has its message stripped of the above, and a message that
 * was nothing but the above becomes GENERIC_TENANT_MESSAGE. Registered
 * credentials are scrubbed too: a message may come from anywhere, not only
 * from the clients' errors, which scrub their own.
 */
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { scrubText } from "@edgeconnect/redaction";
import { FieldConflictError, StaleObjectError } from "./writes.js";

/** What a tenant reads when an error said nothing it may see. */
export const GENERIC_TENANT_MESSAGE = "the infrastructure API refused the request; retrying";

/** Condition messages and Events stay readable in `kubectl describe`; upstream bodies can be megabytes. */
export const MAX_TENANT_MESSAGE_CHARS = 512;

/** A message from `input` (an error, or a message a controller composed) that is safe to show a tenant. */
export function tenantMessage(input: unknown): string {
  const known = describeKnownError(input);
  if (known !== undefined) return bound(known);
  const text = typeof input === "string" ? input : (errorLike(input)?.message ?? "");
  // Credentials first: what strip() leaves of a message must not hold one.
  const stripped = stripFully(scrubText(text));
  return saysAnything(stripped) ? bound(stripped) : GENERIC_TENANT_MESSAGE;
}

/**
 * Messages pass through here more than once (a composed message, then the
 * status writer), and each pass must give the same answer. One strip can
 * expose more to strip: a placeholder in front of `/api/` makes it a path,
 * a removed tag joins the halves of a body. So strip until nothing changes;
 * every pass shortens the text or leaves it as it is, and the cap only
 * guards against a pattern that someday would not.
 */
function stripFully(text: string): string {
  let out = strip(text);
  for (let pass = 0, previous = text; out !== previous && pass < MAX_STRIP_PASSES; pass++) {
    previous = out;
    out = strip(out);
  }
  return out;
}

const MAX_STRIP_PASSES = 8;

/**
 * OTC's error, recognised by shape: the runtime sits below the OTC client
 * and must not import it.
 */
interface OtcApiErrorShape {
  readonly name: "OtcApiError";
  readonly status: number;
  readonly code: string | undefined;
}

function isOtcApiError(input: unknown): input is OtcApiErrorShape {
  return input instanceof Error && input.name === "OtcApiError" && typeof (input as Partial<OtcApiErrorShape>).status === "number";
}

function describeKnownError(input: unknown): string | undefined {
  if (input instanceof StaleObjectError) return "the object changed while it was being updated; retrying";
  if (input instanceof FieldConflictError) {
    const fields = input.fields.length === 0 ? "" : ` (${input.fields.join(", ")})`;
    return `another controller owns status fields this controller writes${fields}`;
  }
  if (input instanceof HttpStatusError) return `the infrastructure API answered ${input.reason ?? `HTTP ${input.status}`}`;
  if (isOtcApiError(input)) {
    if (input.status === 0) return "the cloud API could not be reached; retrying";
    return `the cloud API answered ${input.code ?? `HTTP ${input.status}`}`;
  }
  if (errorLike(input)?.name === "TimeoutError") return "the infrastructure API did not answer in time; retrying";
  return undefined;
}

/** Errors and DOMExceptions (AbortSignal.timeout's), which are not always `instanceof Error`. */
function errorLike(input: unknown): { readonly name: string; readonly message: string } | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const { name, message } = input as { name?: unknown; message?: unknown };
  return typeof name === "string" && typeof message === "string" ? { name, message } : undefined;
}

/** In order: bodies first (they hold addresses of their own), then addresses, then names. */
const STRIPS: readonly (readonly [RegExp, string | ((match: string) => string)])[] = [
  // HTML error pages of proxies and gateways, to the end: what follows the first tag is page.
  [/<(?:!doctype|html|head|body|title|h1|center)\b[\s\S]*$/i, ""],
  [/<\/?[a-z][^>]*>/gi, ""],
  // URLs before anything that matches inside them.
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi, "[address]"],
  // API paths without a host, as errors print them: /api/v1/..., /apis/..., /clusters/..., /v2/<project>/...
  [/(?<![\w.])\/(?:api|apis|clusters|services|v\d[\w.]*)\/[^\s"'<>]*/gi, "[address]"],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, "[address]"],
  [/\[?(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])\]?(?::\d{1,5})?/gi, (match) => (isIpv6(match) ? "[address]" : match)],
  [/\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{1,5}\b/gi, "[address]"],
  [/\bkcp-[0-9a-f]{12}\b/gi, "[namespace]"],
  [/\bnamespaces\/[^\s/"'<>]+/gi, "namespaces/[namespace]"],
  [/\b[0-9a-f]{32}\b/gi, "[project]"],
];

function strip(text: string): string {
  let out = stripJson(text);
  for (const [pattern, replacement] of STRIPS) {
    out = typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out
    .replace(/\s+/g, " ")
    .replace(/(?:\s*[:;,]\s*)+$/, "")
    .trim();
}

/** Balanced JSON objects, innermost first, then arrays they leave empty, then any body cut off mid-way. */
function stripJson(text: string): string {
  let out = text;
  for (let previous = ""; previous !== out; ) {
    previous = out;
    out = out.replace(/\{[^{}]*\}/g, "");
  }
  return out
    .replace(/\[\s*(?:"(?:[^"\\]|\\.)*"\s*,?\s*)*\]/g, "")
    .replace(/\[[\s,]*\]/g, "")
    .replace(/[{[]\s*"[\s\S]*$/, "");
}

/** Clock times (10:05:00) look like IPv6 too: only a `::` or all eight groups make an address. */
function isIpv6(match: string): boolean {
  const bare = match.replace(/^\[/, "").replace(/\](?::\d+)?$/, "");
  return bare.includes("::") || bare.split(":").length === 8;
}

/** Whether anything is left once placeholders, methods, status codes and punctuation are gone. */
function saysAnything(text: string): boolean {
  const rest = text
    .replace(/\[(?:address|namespace|project)\]/g, " ")
    .replace(/\b(?:GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS|WATCH|HTTPS?|namespaces)\b/g, " ")
    .replace(/[^a-z]+/gi, " ")
    .trim();
  return rest.length > 0;
}

function bound(text: string): string {
  if (text.length <= MAX_TENANT_MESSAGE_CHARS) return text;
  const cut = text.slice(0, MAX_TENANT_MESSAGE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_TENANT_MESSAGE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}
