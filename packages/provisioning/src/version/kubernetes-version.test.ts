import { describe, expect, it } from "@jest/globals";
import { newerKubernetesVersionFirst, normalizeKubernetesVersion, sameKubernetesVersion } from "./kubernetes-version.js";

describe("normalizeKubernetesVersion", () => {
  it.each([
    ["1.31", "v1.31"],
    ["v1.31", "v1.31"],
    ["1.28.0", "v1.28.0"],
    ["v1.30.0-r0", "v1.30.0-r0"],
    [" v1.33.5-r2 ", "v1.33.5-r2"],
    ["v01.031", "v1.31"],
    ["1", undefined],
    ["v1.31-r1", "v1.31-r1"],
    ["latest", undefined],
    ["v1.31.x", undefined],
  ])("%j → %j", (input, expected) => {
    expect(normalizeKubernetesVersion(input)).toBe(expected);
  });
});

describe("sameKubernetesVersion", () => {
  it.each([
    ["1.31", "v1.31", true],
    ["v1.31", "v1.31.10-r12", true],
    ["v1.31.10", "v1.31.10-r12", true],
    ["v1.31.10-r12", "v1.31", true],
    ["v1.31", "v1.32", false],
    ["v1.31.9", "v1.31.10-r12", false],
    ["v1.31.10-r1", "v1.31.10-r2", false],
    ["odd", "odd", true],
    ["odd", "v1.31", false],
  ])("%j vs %j → %j", (a, b, expected) => {
    expect(sameKubernetesVersion(a, b)).toBe(expected);
  });
});

describe("newerKubernetesVersionFirst", () => {
  it("sorts by number, not by text, newest first, and a release below its patches", () => {
    const versions = ["1.9.5", "v1.10.0", "1.31", "1.31.2", "1.31.10", "v2.0.0", "1.31.10-r3"];
    expect([...versions].sort(newerKubernetesVersionFirst)).toEqual(["v2.0.0", "1.31.10-r3", "1.31.10", "1.31.2", "1.31", "v1.10.0", "1.9.5"]);
  });

  it("puts what is no version last", () => {
    expect(["latest", "1.31.0", "edge"].sort(newerKubernetesVersionFirst)).toEqual(["1.31.0", "edge", "latest"]);
  });

  it("holds versions that differ only in the v equal", () => {
    expect(newerKubernetesVersionFirst("v1.31.0", "1.31.0")).toBe(0);
  });
});
