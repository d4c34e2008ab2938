import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "./cluster-template-error.js";
import { clusterApiMinorVersion, compareClusterApiVersions, normalizeClusterApiVersion } from "./kubernetes-version.js";

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

describe("compareClusterApiVersions", () => {
  it.each([
    ["1.34.1", "v1.34.1", 0],
    ["1.34.10", "1.34.9", 1],
    ["1.9.0", "1.10.0", -1],
    ["1.34.0-rc.0", "1.34.0", -1],
    ["1.34.0-rc.10", "1.34.0-rc.9", 1],
    ["1.34.1+k3s1", "1.34.1", 0],
  ])("%j against %j → %j", (a, b, sign) => {
    expect(Math.sign(compareClusterApiVersions(a, b))).toBe(sign);
  });

  it("refuses what Cluster API would refuse", () => {
    expect(() => compareClusterApiVersions("1.34", "1.34.1")).toThrow(ClusterTemplateError);
  });
});

describe("clusterApiMinorVersion", () => {
  it.each([
    ["1.34", { major: 1, minor: 34 }],
    ["v1.34.1-rc.0", { major: 1, minor: 34 }],
    ["latest", undefined],
    ["1.034", undefined],
  ])("%j → %j", (version, expected) => {
    expect(clusterApiMinorVersion(version)).toEqual(expected);
  });
});
