/**
 * Credentials recognised by their shape, registered or not: a value can
 * reach text before anyone registered it (a kubeconfig a tenant pasted into
 * a field, a URL a library built, a server echoing a request), and some are
 * never ours to register (a service account's token in an upstream error).
 *
 * - private keys in PEM, whole blocks;
 * - `key: value` and `key=value` lines whose key names a credential
 *   (`isSensitiveKey`): kubeconfigs' `token:` and `client-key-data:`, YAML,
 *   the OTC credentials file's `password=`;
 * - JSON fields whose key names a credential, also inside escaped JSON;
 * - URLs' user-info passwords and query parameters named like credentials
 *   (`?token=`, `&password=`, `X-Amz-Signature=`), and `key=value` words
 *   anywhere in prose (`upstream refused token=…`, as a server echoes them);
 * - `Bearer` and `Basic` authorization values;
 * - JSON Web Tokens (service account tokens, OIDC id tokens).
 *
 * The value goes, the key stays: a reader still learns which field it was.
 * Every pattern runs in time linear in the text.
 */
import { isSensitiveKey, mayHoldSensitiveKey } from "./sensitive-keys.js";

export const REDACTED = "[REDACTED]";

/**
 * What a shape needs the text to hold before its pattern is worth running:
 * most text holds no credential, and a plain search costs a fraction of a
 * pattern's. `keys()` says whether the text may hold a sensitive key at all,
 * worked out once per text for the shapes that look for one.
 */
type Precondition = (text: string, keys: () => boolean) => boolean;

type Shape = readonly [precondition: Precondition, pattern: RegExp, replace: (match: string, ...groups: string[]) => string];

/** A `key: value` line's value, when the key names a credential; a block scalar (`|`, `>`) has its value on the lines below and stays. */
function hideLineValue(match: string, lineStart: string, indent: string, quote: string, key: string, separator: string, value: string): string {
  return hides(key, value) && !/^[|>]/.test(value) ? `${lineStart}${indent}${quote}${key}${quote}${separator}${REDACTED}` : match;
}

const SHAPES: readonly Shape[] = [
  [(text) => text.includes("PRIVATE KEY-----"), /-----BEGIN ([A-Z0-9 ]{0,32})PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g, () => REDACTED],
  [
    (text, keys) => text.includes('"') && keys(),
    /"([A-Za-z][\w.-]{0,63})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g,
    (match, key: string, separator: string, value: string) => (hides(key, value) ? `"${key}"${separator}"${REDACTED}"` : match),
  ],
  [
    (text, keys) => text.includes('\\"') && keys(),
    /\\"([A-Za-z][\w.-]{0,63})\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"/g,
    (match, key: string, separator: string, value: string) => (hides(key, value) ? `\\"${key}\\"${separator}\\"${REDACTED}\\"` : match),
  ],
  [
    // Matches only at line starts, so it is cheap without asking about keys first (a one-line message asks nothing).
    (text) => text.includes(":") || text.includes("="),
    // A key at the start of a line (after indentation and a list dash), then `:` or `=`, then the rest of the line.
    /(^|[\r\n])([ \t]*(?:-[ \t]+)?)(["']?)([A-Za-z][\w.-]{0,63})\3([ \t]*[:=][ \t]*)([^\r\n]*)/g,
    hideLineValue,
  ],
  [
    // The same lines inside a JSON string (a log line), where a line ends at an escaped newline or the string's end.
    (text) => text.includes("\\n"),
    /(\\[nr])([ \t]*(?:-[ \t]+)?)((?:\\")?)([A-Za-z][\w.-]{0,63})\3([ \t]*[:=][ \t]*)((?:[^"\\\r\n]|\\[^nr"])*)/g,
    hideLineValue,
  ],
  [(text) => text.includes("://"), /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/?#@:"'<>]{1,256}:)[^\s/?#@"'<>]+@/gi, (_match, userAndColon: string) => `${userAndColon}${REDACTED}@`],
  [
    (text, keys) => text.includes("=") && keys(),
    /([?&;])([^=&#\s"'<>;?]{1,64})=([^&#\s"'<>;]+)/g,
    (match, separator: string, name: string, value: string) => (hides(decodeName(name), value) ? `${separator}${name}=${REDACTED}` : match),
  ],
  [
    // A `key=value` word in prose, mid-line: errors quote them (`login failed for password=…`). The value ends at a blank,
    // a quote or a separator, as a query's does; a key that names no credential keeps its value.
    (text, keys) => text.includes("=") && keys(),
    /(^|[^\w.=-])([A-Za-z][\w.-]{0,63})=([^\s"'<>,;&]+)/g,
    (match, before: string, key: string, value: string) => (hides(key, value) ? `${before}${key}=${REDACTED}` : match),
  ],
  // A word after the scheme is prose ("Bearer authentication."); a credential has a digit, a capital or a symbol.
  [
    (text) => /[Bb](?:earer|asic|EARER|ASIC)/.test(text),
    /\b([Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc])(\s+)(?=[a-z.]*[A-Z0-9\-_~+/=])[A-Za-z0-9\-._~+/]{8,}=*/g,
    (_match, scheme: string, space: string) => `${scheme}${space}${REDACTED}`,
  ],
  [(text) => text.includes("eyJ"), /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, () => REDACTED],
];

/** `text` with every credential of a known shape replaced by `REDACTED`. */
export function scrubShapes(text: string): string {
  let out = text;
  let keys: boolean | undefined;
  // Replacing never adds a key, so what the first text said of keys holds for the rest.
  const mayHoldKeys = (): boolean => (keys ??= mayHoldSensitiveKey(text));
  for (const [precondition, pattern, replace] of SHAPES) {
    if (precondition(out, mayHoldKeys)) out = out.replace(pattern, replace as (match: string, ...groups: unknown[]) => string);
  }
  return out;
}

/** Whether `value` under `key` must go: a credential's key, and something there that is not already the placeholder. */
function hides(key: string, value: string): boolean {
  const bare = value.replace(/^[\s"'\\]+|[\s"'\\,;]+$/g, "");
  return bare !== "" && bare !== REDACTED && isSensitiveKey(key);
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
