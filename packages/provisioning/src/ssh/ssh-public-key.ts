/**
 * The OpenSSH form of an RSA public key, for the node pool's key pair. The
 * controller holds the key as a JWK (what node:crypto exports); OTC wants
 * `ssh-rsa <base64 of the RFC 4253 wire format>`.
 */

export interface RsaPublicJwk {
  kty: "RSA";
  /** Modulus, base64url. */
  n: string;
  /** Public exponent, base64url. */
  e: string;
}

const KEY_TYPE = "ssh-rsa";
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** `ssh-rsa AAAA…` (with ` comment` when given). Throws for a JWK that is not an RSA public key. */
export function openSshPublicKey(jwk: RsaPublicJwk, comment?: string): string {
  if (jwk.kty !== "RSA" || !BASE64URL.test(jwk.n) || !BASE64URL.test(jwk.e)) throw new TypeError("not an RSA public key in JWK form");
  const wire = Buffer.concat([sshString(Buffer.from(KEY_TYPE)), sshString(mpint(jwk.e)), sshString(mpint(jwk.n))]);
  return `${KEY_TYPE} ${wire.toString("base64")}${comment === undefined || comment === "" ? "" : ` ${comment}`}`;
}

/** A uint32 length, then the bytes. */
function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A non-negative big-endian integer without leading zeros, with a zero byte prepended when its top bit is set. */
function mpint(base64url: string): Buffer {
  const bytes = Buffer.from(base64url, "base64url");
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}
