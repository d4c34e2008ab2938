import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "./cluster-template-error.js";
import { newestClusterApiVersion } from "./kubernetes-version.js";

describe("newestClusterApiVersion", () => {
  it.each<[string, string[], string | undefined]>([
    ["nothing from an empty list", [], undefined],
    ["the only version, with a v added", ["1.34.1"], "v1.34.1"],
    ["the only version, with its v kept", ["v1.34.1"], "v1.34.1"],
    ["minor 10 over minor 9, numerically", ["1.9.5", "1.10.0"], "v1.10.0"],
    ["minor 10 over minor 9 in either order", ["1.10.0", "1.9.5"], "v1.10.0"],
    ["patch 10 over patch 9", ["v1.34.9", "v1.34.10"], "v1.34.10"],
    ["major before minor", ["1.99.99", "2.0.0"], "v2.0.0"],
    ["minor before patch", ["1.33.20", "1.34.0"], "v1.34.0"],
    ["with and without v mixed", ["v1.33.4", "1.34.1", "v1.32.9"], "v1.34.1"],
    ["the release over its pre-release", ["1.34.0-rc.1", "1.34.0"], "v1.34.0"],
    ["the release over its pre-release in either order", ["v1.34.0", "v1.34.0-rc.1"], "v1.34.0"],
    ["a pre-release of a higher version over an older release", ["1.33.5", "1.34.0-rc.1"], "v1.34.0-rc.1"],
    ["the release over its alpha and beta", ["1.34.0-alpha.1", "1.34.0-beta.0", "1.34.0", "1.33.0"], "v1.34.0"],
    ["a build of the newest release", ["1.33.0", "1.34.1+k3s1"], "v1.34.1+k3s1"],
  ])("gives %s", (_case, versions, newest) => {
    expect(newestClusterApiVersion(versions)).toBe(newest);
  });

  it("leaves its input as it was", () => {
    const versions = ["1.9.0", "1.10.0", "1.8.0"];
    newestClusterApiVersion(versions);
    expect(versions).toEqual(["1.9.0", "1.10.0", "1.8.0"]);
  });

  it.each(["1.34", "latest", "v1.34.x", ""])("refuses %j, which Cluster API would refuse", (version) => {
    expect(() => newestClusterApiVersion(["1.34.1", version])).toThrow(ClusterTemplateError);
  });
});

describe("newestClusterApiVersion with build metadata and pre-releases", () => {
  it.each<[string[], string]>([
    [["1.2.3-rc.1", "1.2.3+build-1"], "v1.2.3+build-1"],
    [["1.2.3-rc.1", "1.2.3-rc.2"], "v1.2.3-rc.2"],
    [["1.2.3-rc.10", "1.2.3-rc.9"], "v1.2.3-rc.10"],
  ])("picks the highest of %j", (versions, expected) => {
    expect(newestClusterApiVersion(versions)).toBe(expected);
  });
});
