import { describe, expect, it } from "@jest/globals";
import { formatBytes, parseQuantity, QuantityError, toGiB } from "./quantity.js";

const Gi = 1n << 30n;

describe("parseQuantity", () => {
  it.each<[string | number, bigint]>([
    ["100Gi", 100n * Gi],
    ["1Ki", 1024n],
    ["1.5Mi", 1572864n],
    ["2Ti", 2n << 40n],
    ["1Pi", 1n << 50n],
    ["1Ei", 1n << 60n],
    ["1k", 1000n],
    ["512M", 512_000_000n],
    ["1.5G", 1_500_000_000n],
    ["1T", 10n ** 12n],
    ["1P", 10n ** 15n],
    ["2E", 2n * 10n ** 18n],
    ["1e9", 1_000_000_000n],
    ["1E3", 1000n],
    ["5e-1", 1n],
    ["1.25e+2", 125n],
    ["100m", 1n],
    ["1500m", 2n],
    ["1u", 1n],
    ["1n", 1n],
    ["0", 0n],
    ["1.", 1n],
    [".5Ki", 512n],
    ["+3", 3n],
    ["-1.5", -2n],
    [" 8Gi ", 8n * Gi],
    [1073741824, Gi],
    [0.5, 1n],
    [1e21, 10n ** 21n],
  ])("%j is %s", (input, bytes) => {
    expect(parseQuantity(input)).toBe(bytes);
  });

  it.each<[string | number, RegExp]>([
    ["", /is not a Kubernetes quantity/],
    ["Gi", /is not a Kubernetes quantity/],
    ["12Gb", /"12Gb" is not a Kubernetes quantity such as 100Gi/],
    ["1e", /is not/],
    ["1 Gi", /is not/],
    ["1.2.3", /is not/],
    ["0x10", /is not/],
    ["1e999", /exponent beyond/],
    ["9".repeat(100), /…" is not/],
    [Number.NaN, /"NaN" is not/],
    [Number.POSITIVE_INFINITY, /"Infinity" is not/],
  ])("refuses %j", (input, message) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(() => parseQuantity(input)).toThrow(message);
  });
});

describe("toGiB", () => {
  it.each<[string | number, number]>([
    ["100Gi", 100],
    ["100G", 94],
    ["1", 1],
    ["1025Mi", 2],
    ["1Ti", 1024],
    ["0", 0],
    [10 * 2 ** 30, 10],
  ])("%j → %i GiB", (input, gib) => {
    expect(toGiB(input)).toBe(gib);
  });
});

describe("formatBytes", () => {
  it.each<[bigint, string]>([
    [16n * Gi, "16Gi"],
    [1536n << 20n, "1536Mi"],
    [2n << 40n, "2Ti"],
    [1000n, "1000"],
    [0n, "0"],
  ])("%s → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
