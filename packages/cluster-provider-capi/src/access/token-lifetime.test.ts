import { describe, expect, it } from "@jest/globals";
import { DurationError, durationSeconds, needsRenewal, renewAt, TOKEN_REQUEST_MIN_SECONDS, tokenExpirationSeconds } from "./token-lifetime.js";

describe("durationSeconds", () => {
  it.each<[string, number]>([
    ["1h30m", 5400],
    ["1h30m0s", 5400],
    ["90m", 5400],
    ["1.5h", 5400],
    [".5h", 1800],
    ["1.h", 3600],
    ["10s", 10],
    ["1500ms", 1.5],
    ["1m1ms", 60.001],
    ["2h45m30.5s", 9930.5],
    ["1us", 1e-6],
    ["1\u00b5s", 1e-6],
    ["1\u03bcs", 1e-6],
    ["1000000000ns", 1],
    ["0", 0],
    ["+0", 0],
    ["0s", 0],
    ["+1h", 3600],
    ["-1h", -3600],
    ["720h", 2_592_000],
  ])("reads %s", (text, seconds) => {
    expect(durationSeconds(text)).toBeCloseTo(seconds, 9);
  });

  it.each(["", "1", "h", ".h", "1d", "1 h", " 1h", "1h ", "1h-30m", "1.5.5h", "--1h", "+", "-", "one hour", "1H", "P1D", "1h30"])("refuses %j", (text) => {
    expect(() => durationSeconds(text)).toThrow(DurationError);
  });
});

describe("tokenExpirationSeconds", () => {
  const options = { default: 86_400, max: 30 * 86_400 };

  it.each<[string, string | undefined, number]>([
    ["no ttl: the default", undefined, 86_400],
    ["a ttl in range", "2h", 7200],
    ["a ttl with a fraction of a second, rounded down", "1h0.9s", 3600],
    ["a ttl below the TokenRequest minimum", "5m", TOKEN_REQUEST_MIN_SECONDS],
    ["a ttl just below the minimum", "599.999s", 600],
    ["a ttl at the minimum", "10m", 600],
    ["a ttl above the maximum", "8760h", 30 * 86_400],
    ["a ttl at the maximum", "720h", 30 * 86_400],
  ])("%s", (_case, ttl, seconds) => {
    expect(tokenExpirationSeconds(ttl, options)).toBe(seconds);
  });

  it("clamps the default as well", () => {
    expect(tokenExpirationSeconds(undefined, { default: 60, max: 3600 })).toBe(600);
    expect(tokenExpirationSeconds(undefined, { default: 7200, max: 3600 })).toBe(3600);
  });

  it("honours a higher minimum", () => {
    expect(tokenExpirationSeconds("15m", { ...options, min: 3600 })).toBe(3600);
  });

  it.each([
    ["garbage", "a day", /"a day" is not a duration/],
    ["a day unit", "1d", /"1d" is not a duration/],
    ["zero", "0s", /spec\.ttl "0s" must be positive/],
    ["negative", "-1h", /spec\.ttl "-1h" must be positive/],
  ])("refuses %s", (_case, ttl, message) => {
    expect(() => tokenExpirationSeconds(ttl, options)).toThrow(DurationError);
    expect(() => tokenExpirationSeconds(ttl, options)).toThrow(message);
  });

  it.each([
    ["min below the TokenRequest minimum", { default: 3600, min: 60, max: 7200 }],
    ["max below min", { default: 3600, max: 300 }],
    ["a fractional max", { default: 3600, max: 7200.5 }],
  ])("refuses options with %s", (_case, bad) => {
    expect(() => tokenExpirationSeconds(undefined, bad)).toThrow(RangeError);
  });
});

describe("renewAt and needsRenewal", () => {
  const issued = new Date("2026-01-01T00:00:00Z");
  const expires = new Date("2026-01-01T10:00:00Z");

  it("renews after 80 % of the lifetime", () => {
    expect(renewAt(issued, expires)).toEqual(new Date("2026-01-01T08:00:00Z"));
  });

  it.each<[string, string, boolean]>([
    ["just issued", "2026-01-01T00:00:00Z", false],
    ["just before 80 %", "2026-01-01T07:59:59.999Z", false],
    ["at 80 %", "2026-01-01T08:00:00Z", true],
    ["expired", "2026-01-01T11:00:00Z", true],
  ])("%s", (_case, now, expected) => {
    expect(needsRenewal(new Date(now), issued, expires)).toBe(expected);
  });

  it("renews at once a token that expires when issued or earlier", () => {
    expect(needsRenewal(issued, issued, issued)).toBe(true);
    expect(needsRenewal(issued, issued, new Date(issued.getTime() - 1000))).toBe(true);
  });
});
