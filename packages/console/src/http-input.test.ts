import { describe, expect, it } from "@jest/globals";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { BodyTooLargeError, clearedSessionCookie, cookieValue, parseSignIn, readBody, sessionCookie } from "./http-input.js";

function request(chunks: readonly string[], contentLength?: number): IncomingMessage {
  const stream = Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as unknown as IncomingMessage;
  (stream as { headers: Record<string, string> }).headers = contentLength === undefined ? {} : { "content-length": String(contentLength) };
  return stream;
}

describe("readBody", () => {
  it("reads a body within the limit", async () => {
    await expect(readBody(request(["token=a", "&workspace=root"]), 64)).resolves.toBe("token=a&workspace=root");
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    await expect(readBody(request(["x"], 1_000_000), 64)).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it("cuts off a body that grows past the limit without a Content-Length", async () => {
    const chunks = Array.from({ length: 10 }, () => "x".repeat(10));
    await expect(readBody(request(chunks), 64)).rejects.toThrow("larger than 64 bytes");
  });
});

describe("cookies", () => {
  it("finds the session cookie among others", () => {
    expect(cookieValue("a=1; console_session=abc_-1; b=2", "console_session")).toBe("abc_-1");
    expect(cookieValue("a=1", "console_session")).toBeUndefined();
    expect(cookieValue(undefined, "console_session")).toBeUndefined();
  });

  it("sets HttpOnly and SameSite=Strict, Secure when asked, and clears it", () => {
    expect(sessionCookie("id", true)).toBe("console_session=id; Path=/; HttpOnly; SameSite=Strict; Secure");
    expect(sessionCookie("id", false)).not.toContain("Secure");
    expect(clearedSessionCookie(false)).toContain("Max-Age=0");
  });
});

describe("parseSignIn", () => {
  it("takes a token alone (the platform view) or with a workspace path (a tenant)", () => {
    expect(parseSignIn("token=abc.def-123")).toEqual({ ok: true, token: "abc.def-123" });
    expect(parseSignIn("token=abc&workspace=root%3Ateam-a")).toEqual({ ok: true, token: "abc", workspace: "root:team-a" });
  });

  it("refuses a missing token, a token with whitespace, and a path that is not kcp's", () => {
    expect(parseSignIn("workspace=root")).toMatchObject({ ok: false });
    expect(parseSignIn("token=a%0d%0aX-Evil%3a1")).toMatchObject({ ok: false, problem: expect.stringMatching(/without spaces/) as unknown });
    expect(parseSignIn("token=a&workspace=..%2Fetc")).toMatchObject({ ok: false });
    expect(parseSignIn("token=a&workspace=root%3AUpper")).toMatchObject({ ok: false });
    expect(parseSignIn(`token=a&workspace=root${":a".repeat(200)}`)).toMatchObject({ ok: false });
  });
});
