import { describe, expect, it } from "@jest/globals";
import { CIRCULAR, MAX_SCRUB_DEPTH, scrubDeep, TRUNCATED } from "./scrub-deep.js";
import { registerSecret } from "./secret-registry.js";
import { REDACTED } from "./shapes.js";

const TOKEN = "deep-fake-token-0001";
registerSecret(TOKEN);

describe("scrubDeep", () => {
  it("redacts sensitive keys at any depth, in objects and arrays, and keeps the rest", () => {
    const value = {
      name: "w1",
      a: { b: { c: { d: { password: "pw-depth-5", keep: 1 } } } },
      users: [{ name: "u", user: { token: "tok-in-array" } }, [{ "x-security-token": "sts-in-nested-array" }]],
      headers: { Cookie: "session=fake-cookie", accept: "application/json" },
    };
    expect(scrubDeep(value)).toEqual({
      name: "w1",
      a: { b: { c: { d: { password: REDACTED, keep: 1 } } } },
      users: [{ name: "u", user: { token: REDACTED } }, [{ "x-security-token": REDACTED }]],
      headers: { Cookie: REDACTED, accept: "application/json" },
    });
  });

  it("replaces whole objects and arrays under sensitive keys, keeps numbers, booleans and null there", () => {
    expect(scrubDeep({ data: { key: "dmFsdWU=" }, credentials: ["a", "b"], tokens: 3, secret: null, token: false })).toEqual({
      data: REDACTED,
      credentials: REDACTED,
      tokens: 3,
      secret: null,
      token: false,
    });
  });

  it("scrubs registered values out of every string, keys included", () => {
    expect(scrubDeep({ message: `echoed ${TOKEN}`, list: [`x${TOKEN}y`], [TOKEN]: "k" })).toEqual({
      message: `echoed ${REDACTED}`,
      list: [`x${REDACTED}y`],
      [REDACTED]: "k",
    });
    expect(scrubDeep(`plain ${TOKEN}`)).toBe(`plain ${REDACTED}`);
  });

  it("does not change its argument", () => {
    const value = { token: "tok-original", nested: { text: TOKEN } };
    scrubDeep(value);
    expect(value).toEqual({ token: "tok-original", nested: { text: TOKEN } });
  });

  it("reduces errors to an allow-list, scrubs their strings and follows causes", () => {
    const cause = Object.assign(new Error(`inner ${TOKEN}`), { code: "ECONNRESET", socket: { secretStuff: 1 } });
    const err = Object.assign(new Error(`outer ${TOKEN}`, { cause }), {
      name: "HttpStatusError",
      status: 401,
      reason: "Unauthorized",
      body: `{"echo":"Bearer ${TOKEN}"}`,
      request: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const scrubbed = scrubDeep({ failure: err }) as unknown as { failure: Record<string, unknown> };
    expect(scrubbed.failure).toEqual({
      name: "HttpStatusError",
      message: `outer ${REDACTED}`,
      stack: expect.stringContaining(`outer ${REDACTED}`),
      status: 401,
      reason: "Unauthorized",
      body: `{"echo":"Bearer ${REDACTED}"}`,
      cause: { name: "Error", message: `inner ${REDACTED}`, stack: expect.any(String), code: "ECONNRESET" },
    });
    expect(JSON.stringify(scrubbed)).not.toContain(TOKEN);
  });

  it("treats message-and-stack objects of other realms as errors", () => {
    const foreign = { name: "AbortError", message: "aborted", stack: "AbortError: aborted\n    at x", code: 20, extra: "dropped" };
    expect(scrubDeep(foreign)).toEqual({ name: "AbortError", message: "aborted", stack: foreign.stack, code: 20 });
    const abort = new DOMException("This operation was aborted", "AbortError");
    expect(scrubDeep(abort)).toMatchObject({ name: "AbortError", message: "This operation was aborted" });
  });

  it("is cycle-safe, and repeats of one object that are not cycles stay", () => {
    const shared = { v: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    const err = new Error("outer");
    err.cause = new Error("inner", { cause: err });
    expect(scrubDeep(cyclic)).toEqual({ shared: { v: 1 }, again: { v: 1 }, self: CIRCULAR });
    expect(scrubDeep(err)).toMatchObject({ message: "outer", cause: { message: "inner", cause: CIRCULAR } });
  });

  it("is depth-bounded", () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < MAX_SCRUB_DEPTH + 5; i++) deep = { next: deep };
    let cursor = scrubDeep(deep);
    let depth = 0;
    while (typeof cursor.next === "object") {
      cursor = cursor.next as Record<string, unknown>;
      depth++;
    }
    expect(cursor.next).toBe(TRUNCATED);
    expect(depth).toBe(MAX_SCRUB_DEPTH - 1);
  });

  it("walks what JSON.stringify writes: toJSON results, own enumerable keys", () => {
    const date = new Date(Date.UTC(2025, 0, 2));
    const value = { date, url: new URL(`https://example.test/?t=${TOKEN}`), bytes: Buffer.from("raw"), map: new Map([["token", "x"]]) };
    expect(scrubDeep(value)).toEqual({
      date: "2025-01-02T00:00:00.000Z",
      url: `https://example.test/?t=${REDACTED}`,
      bytes: { type: "Buffer", data: REDACTED },
      map: {},
    });
  });
});
