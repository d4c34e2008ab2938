import { describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { clusterOf, fingerprint } from "./logical-cluster.js";

describe("fingerprint", () => {
  it("is the first 12 hex characters of SHA-256 of the logical cluster name", () => {
    expect(fingerprint("2t9926j97luva3ox")).toBe(createHash("sha256").update("2t9926j97luva3ox").digest("hex").slice(0, 12));
    expect(fingerprint("root")).toMatch(/^[0-9a-f]{12}$/);
  });

  it("tells clusters apart and is stable", () => {
    expect(fingerprint("a")).not.toBe(fingerprint("b"));
    expect(fingerprint("a")).toBe(fingerprint("a"));
  });
});

describe("clusterOf", () => {
  it("reads the kcp.io/cluster annotation", () => {
    expect(clusterOf({ metadata: { annotations: { "kcp.io/cluster": "abc" } } })).toBe("abc");
    expect(clusterOf({})).toBeUndefined();
  });
});
