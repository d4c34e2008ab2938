import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "./cluster-template-error.js";
import { normalizeClusterApiVersion, supportsVersion } from "./kubernetes-version.js";

describe("normalizeClusterApiVersion", () => {
  it.each([
    ["1.34.1", "v1.34.1"],
    ["v1.34.1", "v1.34.1"],
    [" v1.34.1 ", "v1.34.1"],
    ["1.34.0-rc.0", "v1.34.0-rc.0"],
    ["v1.33.5+rke2r1", "v1.33.5+rke2r1"],
    ["1.34.0-alpha.1+build.5", "v1.34.0-alpha.1+build.5"],
    ["0.0.0", "v0.0.0"],
  ])("%j → %j", (input, expected) => {
    expect(normalizeClusterApiVersion(input)).toBe(expected);
  });

  it.each(["1.34", "v1.34", "1", "latest", "", "vv1.34.1", "V1.34.1", "1.034.1", "01.34.1", "1.34.1-", "1.34.1-01", "1.34.1+", "1.34.1.2", "v1.34.x"])("rejects %j", (input) => {
    expect(() => normalizeClusterApiVersion(input)).toThrow(ClusterTemplateError);
  });

  it("rejects a version longer than topology.version may be", () => {
    expect(() => normalizeClusterApiVersion(`1.34.1-${"a".repeat(249)}`)).toThrow(ClusterTemplateError);
    expect(normalizeClusterApiVersion(`1.34.1-${"a".repeat(248)}`)).toHaveLength(256);
  });

  it("says what a valid version looks like", () => {
    expect(() => normalizeClusterApiVersion("1.34")).toThrow('Kubernetes version "1.34" is not a full version such as v1.34.1 (major.minor.patch, the v is optional)');
  });
});

describe("supportsVersion", () => {
  const supported = [{ version: "v1.33.5" }, { version: "1.34.1", deprecated: true }, { version: "v1.35.0" }];

  it.each([
    ["1.33.5", true],
    ["v1.33.5", true],
    ["v1.34.1", true],
    ["1.34.1", true],
    [" 1.35.0", true],
    ["1.34.2", false],
    ["1.34", false],
    ["vv1.33.5", false],
    ["", false],
  ])("%j → %j", (requested, expected) => {
    expect(supportsVersion(supported, requested)).toBe(expected);
  });

  it("supports nothing from an empty list", () => {
    expect(supportsVersion([], "1.34.1")).toBe(false);
  });
});
