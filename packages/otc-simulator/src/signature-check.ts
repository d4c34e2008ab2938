/**
 * Verification of the AK/SK signature (SDK-HMAC-SHA256, "Access=" form) on
 * every request, the way OTC's API gateway does: the signature is recomputed
 * with `@edgeconnect/otc`'s signer over the exact bytes received, so a client
 * that signs something other than what it sends is caught here.
 *
 * Failure reasons go into the 401 body to make test failures readable; they
 * never contain the secret key or the expected signature.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { canonicalRequest, parseAuthorization, signature, stringToSign, type Credentials } from "@edgeconnect/otc";
import { ApiError } from "./api.js";

/** The gateway's tolerance for X-Sdk-Date against its own clock. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

export interface ReceivedRequest {
  readonly method: string;
  readonly url: URL;
  /** Lower-cased names, as node delivers them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** Returns the access key of a correctly signed request; throws a 401 `ApiError` otherwise. */
export function verifySignature(request: ReceivedRequest, credentials: readonly Credentials[], now: Date): string {
  const header = request.headers.authorization;
  if (header === undefined) throw unauthorized("the Authorization header is missing");
  const parsed = parseAuthorization(header);
  if (parsed === undefined) throw unauthorized("the Authorization header is not SDK-HMAC-SHA256 Access=..., SignedHeaders=..., Signature=...");
  const credential = credentials.find((candidate) => candidate.accessKey === parsed.accessKey);
  if (credential === undefined) throw unauthorized("the access key is unknown");

  const signed = new Set(parsed.signedHeaders);
  if (!signed.has("x-sdk-date")) throw unauthorized("x-sdk-date must be a signed header");
  // Unsigned, the project header could be swapped to act in another project.
  if (request.headers["x-project-id"] !== undefined && !signed.has("x-project-id")) {
    throw unauthorized("x-project-id is present but not signed");
  }
  for (const name of signed) {
    if (request.headers[name] === undefined && name !== "host") throw unauthorized(`signed header ${name} is missing`);
  }

  const date = request.headers["x-sdk-date"] ?? "";
  const sent = parseSdkDate(date);
  if (sent === undefined) throw unauthorized("x-sdk-date is not a valid YYYYMMDDTHHMMSSZ date");
  if (Math.abs(sent.getTime() - now.getTime()) > MAX_CLOCK_SKEW_MS) {
    throw unauthorized("x-sdk-date differs from the server time by more than 15 minutes");
  }

  // The signer trusts this header in place of the body hash; the gateway must not.
  const declaredHash = request.headers["x-sdk-content-sha256"];
  if (declaredHash !== undefined && declaredHash !== createHash("sha256").update(request.body).digest("hex")) {
    throw unauthorized("x-sdk-content-sha256 does not match the body");
  }

  const canonical = canonicalRequest(
    { method: request.method, url: request.url, headers: request.headers, body: request.body },
    parsed.signedHeaders,
  );
  const expected = Buffer.from(signature(credential.secretKey, stringToSign(date, canonical)), "hex");
  const given = Buffer.from(parsed.signature, "hex");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw unauthorized("the request signature does not match (wrong secret key, or the request was changed after signing)");
  }
  return credential.accessKey;
}

/**
 * `YYYYMMDDTHHMMSSZ` naming a real instant. Date.UTC rolls impossible fields
 * over (February 30 becomes March 2, hour 24 the next day), which the
 * gateway's strict parser refuses, so the fields must survive the round trip.
 */
export function parseSdkDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  if (y === undefined || mo === undefined || d === undefined || h === undefined || mi === undefined || s === undefined) return undefined;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const roundTrips =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  return roundTrips ? date : undefined;
}

function unauthorized(reason: string): ApiError {
  return new ApiError(401, "APIGW.0301", `Incorrect IAM authentication information: ${reason}`);
}
