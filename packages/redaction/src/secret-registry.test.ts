import { describe, expect, it } from "@jest/globals";
import { MIN_SECRET_LENGTH, REDACTED, registerSecret, scrubText } from "./secret-registry.js";

// The registry is process-wide: every test registers values of its own.
describe("scrubText", () => {
  it("leaves text alone while nothing matches", () => {
    expect(scrubText("GET /api/v1/namespaces: HTTP 404")).toBe("GET /api/v1/namespaces: HTTP 404");
  });

  it("replaces every occurrence of a registered value", () => {
    registerSecret("fake-token-0001");
    expect(scrubText("a fake-token-0001 b fake-token-0001")).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("ignores values shorter than MIN_SECRET_LENGTH, and non-strings", () => {
    const short = "x".repeat(MIN_SECRET_LENGTH - 1);
    registerSecret(short);
    registerSecret(undefined);
    registerSecret(12345678);
    expect(scrubText(`say ${short} 12345678`)).toBe(`say ${short} 12345678`);
  });

  it("treats registered values literally, regular-expression characters included", () => {
    registerSecret("a.b*c+d?e(f)[g]|h\\i$j^k/l");
    expect(scrubText("<a.b*c+d?e(f)[g]|h\\i$j^k/l> axbbcd")).toBe(`<${REDACTED}> axbbcd`);
  });

  it("prefers the longest of overlapping values", () => {
    registerSecret("overlap-secret");
    registerSecret("overlap-secret-and-more");
    expect(scrubText("overlap-secret-and-more!")).toBe(`${REDACTED}!`);
  });

  it("finds a value base64-encoded, whole or inside a longer base64 text at any offset", () => {
    const key = "-----BEGIN FAKE KEY-----\nnot-a-real-key-material\n-----END FAKE KEY-----\n";
    registerSecret(key);
    const whole = Buffer.from(key).toString("base64");
    expect(scrubText(`client-key-data: ${whole}`)).toBe(`client-key-data: ${REDACTED}`);
    for (const prefix of ["", "a", "ab", "abc"]) {
      const embedded = Buffer.from(`${prefix}${key}trailing bytes`).toString("base64");
      expect(scrubText(embedded)).toContain(REDACTED);
      // What is left is too short to decode to the key.
      expect(scrubText(embedded).replace(REDACTED, "").length).toBeLessThan(whole.length / 2);
    }
  });

  it("finds a value JSON-escaped and URL-encoded", () => {
    const value = 'multi\nline "quoted" value';
    registerSecret(value);
    expect(scrubText(JSON.stringify({ body: value }))).toBe(`{"body":"${REDACTED}"}`);
    expect(scrubText(`/path?q=${encodeURIComponent(value)}`)).toBe(`/path?q=${REDACTED}`);
  });

  it("replaces any bearer token, registered or not, and keeps the scheme", () => {
    expect(scrubText('{"Authorization":"Bearer unregistered.jwt-like_token~value=="}')).toBe(`{"Authorization":"Bearer ${REDACTED}"}`);
    expect(scrubText("authorization: bearer abcdefgh12345678")).toBe(`authorization: bearer ${REDACTED}`);
    // Words after "Bearer" in prose are not tokens.
    expect(scrubText("no Bearer token given")).toBe("no Bearer token given");
  });

  it("sees values registered after an earlier scrub", () => {
    expect(scrubText("later-secret-value")).toBe("later-secret-value");
    registerSecret("later-secret-value");
    expect(scrubText("later-secret-value")).toBe(REDACTED);
  });
});
