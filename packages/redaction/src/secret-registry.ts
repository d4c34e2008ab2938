/**
 * The process's credential values, and `scrubText`, which hides them in any
 * text: error messages and bodies, log lines, Event messages. Clients
 * register what they authenticate with (tokens, keys, passwords) when they
 * are built, so that a server echoing a request header back, or a message
 * quoting a config, cannot carry a credential any further.
 *
 * Values stay registered for the life of the process: a rotated credential
 * may still be valid, and leaking it is as bad as leaking the current one.
 */

export const REDACTED = "[REDACTED]";

/**
 * Shorter values are not registered. Replacing a two- or five-character
 * value everywhere would garble unrelated text ("admin", "test"), and the
 * pattern of what got replaced would itself reveal the value; a credential
 * that short is guessable anyway.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * A bearer token in free text (a quoted header, a curl line), registered or
 * not; the token alphabet is RFC 6750's. Shorter "tokens" are words
 * ("Bearer token missing").
 */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi;

interface Registry {
  readonly values: Set<string>;
  /** Every form a value is searched in; longer forms are tried first. */
  readonly needles: Set<string>;
  /** Rebuilt on the first scrub after a registration; undefined while nothing is registered. */
  pattern: RegExp | undefined;
  stale: boolean;
}

// On globalThis, so that two copies of this module in one process (a bundled
// one and a linked one, say) still share one registry.
const REGISTRY_KEY = Symbol.for("@edgeconnect/redaction.registry");

function registry(): Registry {
  const holder = globalThis as { [REGISTRY_KEY]?: Registry };
  holder[REGISTRY_KEY] ??= { values: new Set(), needles: new Set(), pattern: undefined, stale: false };
  return holder[REGISTRY_KEY];
}

/**
 * Makes `scrubText` (and so `scrubDeep`, the logger, client errors and
 * Events) replace `value` wherever it appears. Registering a value twice is
 * free; undefined, non-strings and values shorter than `MIN_SECRET_LENGTH`
 * are ignored.
 */
export function registerSecret(value: unknown): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  const state = registry();
  if (state.values.has(value)) return;
  state.values.add(value);
  for (const form of credentialForms(value)) state.needles.add(form);
  state.stale = true;
}

/** `text` with every registered value, in any of its forms, and every bearer token replaced by `REDACTED`. */
export function scrubText(text: string): string {
  const pattern = currentPattern();
  const scrubbed = pattern === undefined ? text : text.replace(pattern, REDACTED);
  return scrubbed.replace(BEARER, `$1${REDACTED}`);
}

function currentPattern(): RegExp | undefined {
  const state = registry();
  if (state.stale) {
    const needles = [...state.needles].sort((a, b) => b.length - a.length);
    state.pattern = new RegExp(needles.map(escapeRegExp).join("|"), "g");
    state.stale = false;
  }
  return state.pattern;
}

/**
 * The forms a credential travels in, as `scrubText` searches for them (and
 * a leak check should): as is; JSON-escaped (a PEM key inside a JSON body);
 * URL-encoded (a query string); base64, whole and embedded at any byte
 * offset of a longer base64 text (a kubeconfig's `*-data` fields, a
 * Secret's `data`, an `Authorization: Basic` header). Forms shorter than
 * `MIN_SECRET_LENGTH` are left out.
 */
export function credentialForms(value: string): string[] {
  const forms = [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), ...base64Forms(value)];
  return forms.filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [bytes.toString("base64")];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters of a 4-character group that also encodes bytes outside the
    // value depend on those bytes: drop the first group when preceded by
    // others, and the last one when the value does not end on a group boundary.
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    forms.push(encoded.slice(start, end));
  }
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
