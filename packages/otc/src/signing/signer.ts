/**
 * AK/SK request signing in OTC's API-gateway "Access=" form (SDK-HMAC-SHA256,
 * the algorithm of Huawei's current SDKs): canonical request, string to sign,
 * HMAC signature, the `Authorization` header, and its parsing for servers
 * (the OTC simulator) that verify it.
 *
 * The derived-key "Credential=" variant of gophertelekomcloud is deliberately
 * not implemented: the Access= form has published test vectors and is
 * accepted by OTC.
 */
import { createHash, createHmac } from "node:crypto";
import { OtcConfigError } from "../errors.js";

/** Permanent or temporary AK/SK; `securityToken` accompanies temporary keys. */
export interface Credentials {
  /** Optional, for telling these apart from `PasswordCredentials`. */
  readonly kind?: "accessKey";
  readonly accessKey: string;
  readonly secretKey: string;
  readonly securityToken?: string;
}

/** What the signature covers: method, URL (path and query), headers and the exact body bytes sent. */
export interface SignableRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

const ALGORITHM = "SDK-HMAC-SHA256";

/** Servers hash this header's value instead of the body when it is present (streamed or unsigned payloads). */
const CONTENT_SHA256_HEADER = "x-sdk-content-sha256";

/** Headers signed whenever present; host and x-sdk-date are always present. */
const SIGNED_IF_PRESENT = ["content-type", "x-project-id", "x-security-token"] as const;

/** YYYYMMDDTHHMMSSZ */
export function sdkDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}Z$/, "Z");
}

/** The canonical request of §3.1 (signed headers are the lower-cased names given, sorted). */
export function canonicalRequest(request: SignableRequest, signedHeaders: readonly string[]): string {
  const names = normaliseHeaderNames(signedHeaders);
  const headerBlock = names.map((name) => `${name}:${headerValue(request, name).trim()}\n`).join("");
  const bodyHash = findHeader(request.headers, CONTENT_SHA256_HEADER) ?? sha256Hex(request.body);
  return [
    request.method.toUpperCase(),
    canonicalUri(request.url),
    canonicalQuery(request.url),
    headerBlock,
    names.join(";"),
    bodyHash,
  ].join("\n");
}

export function stringToSign(sdkDateValue: string, canonical: string): string {
  return `${ALGORITHM}\n${sdkDateValue}\n${sha256Hex(canonical)}`;
}

/** hex HMAC-SHA256 with the SK's UTF-8 bytes as key */
export function signature(secretKey: string, toSign: string): string {
  return createHmac("sha256", Buffer.from(secretKey, "utf8")).update(toSign, "utf8").digest("hex");
}

/**
 * Returns the request's headers plus X-Sdk-Date, Host (if absent), X-Security-Token (if any) and Authorization;
 * signs host, x-sdk-date, content-type (if present), x-project-id (if present), x-security-token (if present).
 * `now` defaults to the current time; the gateway rejects dates more than 15 minutes off.
 */
export function signRequest(request: SignableRequest, credentials: Credentials, now: Date = new Date()): Record<string, string> {
  validateCredentials(credentials);
  const headers: Record<string, string> = {};
  // Caller-supplied copies of the headers set here would otherwise be sent twice under different casing.
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === "x-sdk-date" || lower === "authorization") continue;
    if (lower === "x-security-token" && credentials.securityToken !== undefined) continue;
    headers[name] = value;
  }
  const date = sdkDate(now);
  headers["X-Sdk-Date"] = date;
  if (findHeader(headers, "host") === undefined) headers.Host = request.url.host;
  if (credentials.securityToken !== undefined) headers["X-Security-Token"] = credentials.securityToken;

  const signed = ["host", "x-sdk-date", ...SIGNED_IF_PRESENT.filter((name) => findHeader(headers, name) !== undefined)];
  const canonical = canonicalRequest({ ...request, headers }, signed);
  const names = normaliseHeaderNames(signed);
  const sig = signature(credentials.secretKey, stringToSign(date, canonical));
  headers.Authorization = `${ALGORITHM} Access=${credentials.accessKey}, SignedHeaders=${names.join(";")}, Signature=${sig}`;
  return headers;
}

/** Parses `SDK-HMAC-SHA256 Access=<AK>, SignedHeaders=<a;b>, Signature=<hex>`; undefined if malformed. */
export function parseAuthorization(value: string): { accessKey: string; signedHeaders: string[]; signature: string } | undefined {
  const match = /^SDK-HMAC-SHA256 +Access=([^\s,]+), *SignedHeaders=([a-z0-9_-]+(?:;[a-z0-9_-]+)*), *Signature=([0-9a-f]{64})$/.exec(
    value.trim(),
  );
  if (match === null) return undefined;
  const [, accessKey, headers, sig] = match;
  if (accessKey === undefined || headers === undefined || sig === undefined) return undefined;
  return { accessKey, signedHeaders: headers.split(";"), signature: sig };
}

/**
 * RFC 3986 percent-encoding: only unreserved characters (A-Za-z0-9-_.~) stay;
 * encodeURIComponent also leaves !'()* alone, which the gateway encodes.
 */
function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Each path segment decoded (URL keeps its own percent-encoding) and re-encoded,
 * with a trailing `/` appended: `/v1/x/vpcs` signs as `/v1/x/vpcs/` though it is sent without it.
 */
function canonicalUri(url: URL): string {
  const path = url.pathname
    .split("/")
    .map((segment) => encode(decodeSegment(segment)))
    .join("/");
  return path.endsWith("/") ? path : `${path}/`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A stray `%` not followed by two hex digits is a literal character.
    return segment;
  }
}

/** Keys sorted, every value of a key sorted, both encoded; `+` in the URL already decodes to a space (→ %20). */
function canonicalQuery(url: URL): string {
  const byKey = new Map<string, string[]>();
  for (const [key, value] of url.searchParams) {
    const values = byKey.get(key);
    if (values === undefined) byKey.set(key, [value]);
    else values.push(value);
  }
  return [...byKey.keys()]
    .sort(compareUtf8)
    .flatMap((key) => (byKey.get(key) ?? []).sort(compareUtf8).map((value) => `${encode(key)}=${encode(value)}`))
    .join("&");
}

/**
 * UTF-8 byte order, as Huawei's Go signer gets from sort.Strings. JavaScript's
 * `<` compares UTF-16 code units, which puts characters above U+FFFF (surrogate
 * pairs, D800–DFFF) before U+E000–U+FFFF; localeCompare is further off still.
 */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function normaliseHeaderNames(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => name.toLowerCase()))].sort(compareUtf8);
}

/** The host header defaults to the URL's host, which is what an HTTP client sends when none is set. */
function headerValue(request: SignableRequest, lowerName: string): string {
  const value = findHeader(request.headers, lowerName);
  if (value !== undefined) return value;
  if (lowerName === "host") return request.url.host;
  return "";
}

function findHeader(headers: Readonly<Record<string, string>>, lowerName: string): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === lowerName) return value;
  return undefined;
}

function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The AK is written into the Authorization header, so characters that would
 * break its syntax are rejected up front. Messages name the problem, never
 * the key material.
 */
function validateCredentials(credentials: Credentials): void {
  if (credentials.accessKey === "" || /[\s,]/.test(credentials.accessKey)) {
    throw new OtcConfigError("access key is empty or contains whitespace or commas");
  }
  if (credentials.secretKey === "") throw new OtcConfigError("secret key is empty");
  if (credentials.securityToken !== undefined && /[\r\n]/.test(credentials.securityToken)) {
    throw new OtcConfigError("security token contains line breaks");
  }
}
