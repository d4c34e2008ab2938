/**
 * Which object keys hold credentials, whatever their depth or casing. Keys
 * are compared after lower-casing and dropping `-`, `_` and `.`, so
 * `X-Auth-Token`, `x_auth_token` and `xAuthToken` are one name.
 *
 * Decisions:
 * - `ak` and `sk` (OTC's short names for the access and secret key) match
 *   only exactly: as suffixes they would hide `task`, `desk` or `disk`.
 * - `data` and `stringData` match only exactly (Secret payloads; ConfigMaps'
 *   too, since a key alone cannot tell them apart): as a suffix `data` would
 *   hide `metadata`.
 * - Names that describe a credential without holding it stay readable:
 *   `tokenExpiry`, `tokenFile`, `secretName`, `secretRef`, `passwordFile`.
 * - `client-certificate-data` and `certificate-authority-data` stay: a
 *   certificate is public, only its key (`client-key-data`) is not.
 * - `userData` (an ECS server's cloud-init) is redacted: it routinely
 *   carries join tokens.
 */

/** Normalised names that are sensitive only as the whole key. */
const EXACT = new Set([
  "ak",
  "sk",
  "authorization",
  "proxyauthorization",
  "data",
  "stringdata",
  "userdata",
  "kubeconfig",
  "keydata",
  "clientkey",
  "clientkeydata",
  "cookie",
  "setcookie",
  "passwd",
]);

/** Normalised endings that make any key sensitive: `bearerToken`, `x-subject-token`, `clientSecret`, ... */
const SUFFIXES = [
  "token",
  "tokens",
  "password",
  "passphrase",
  "secret",
  "secrets",
  "secretkey",
  "accesskey",
  "privatekey",
  "apikey",
  "credential",
  "credentials",
  // Request signatures (`X-Amz-Signature`, OTC's AK/SK `Signature`): valid for minutes, and made from the secret key.
  "signature",
];

/** True when the value under `key` must never be shown. */
export function isSensitiveKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[-_.]/g, "");
  return EXACT.has(name) || SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * Every sensitive name as it appears in text once lower-cased and rid of
 * `-`, `_` and `.`: a key's normalised name is a substring of its text
 * normalised alike, so a text this does not match holds no sensitive key.
 * A name holding another (`tokens`, `secretkey`) adds nothing to the search;
 * `ak` and `sk` are parts of many words, so only whole words count.
 */
const ANY_SENSITIVE_NAME = new RegExp(
  [...EXACT, ...SUFFIXES]
    .filter((name, _, all) => !all.some((other) => other !== name && other.length > 2 && name.includes(other)))
    .map((name) => (name.length <= 2 ? `\\b${name}\\b` : name))
    .join("|"),
);

/**
 * Whether `text` may hold a key that `isSensitiveKey` accepts: a cheap
 * test before looking for `key: value` shapes, which most text (log lines
 * among them) never holds.
 */
export function mayHoldSensitiveKey(text: string): boolean {
  return ANY_SENSITIVE_NAME.test(text.toLowerCase().replace(/[-_.]/g, ""));
}
