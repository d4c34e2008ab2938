import { describe, expect, it } from "@jest/globals";
import { jsonMergePatch } from "./merge-patch.js";

describe("jsonMergePatch", () => {
  it("holds only what changed: a new or changed value, a removed key as null, inner objects key by key", () => {
    const before = { metadata: { name: "n", labels: { a: "1", b: "2" }, annotations: { keep: "x" } }, spec: { unschedulable: true, podCIDR: "10.0.0.0/24" } };
    const after = { metadata: { name: "n", labels: { a: "1", c: "3" }, annotations: { keep: "x" } }, spec: { podCIDR: "10.0.0.0/24", providerID: "otc:///i-1" } };
    expect(jsonMergePatch(before, after)).toEqual({ metadata: { labels: { b: null, c: "3" } }, spec: { unschedulable: null, providerID: "otc:///i-1" } });
  });

  it("replaces an array whole when it differs, as a merge patch does, and leaves an equal one out", () => {
    const taint = { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" };
    expect(jsonMergePatch({ spec: { taints: [taint, { key: "k", effect: "NoExecute" }] } }, { spec: { taints: [{ key: "k", effect: "NoExecute" }] } })).toEqual({
      spec: { taints: [{ key: "k", effect: "NoExecute" }] },
    });
    expect(jsonMergePatch({ spec: { taints: [taint] } }, { spec: { taints: [{ ...taint }] } })).toBeUndefined();
  });

  it("is undefined when nothing changed, and refuses what is not an object", () => {
    expect(jsonMergePatch({ a: { b: [1] }, c: undefined }, { a: { b: [1] } })).toBeUndefined();
    expect(() => jsonMergePatch([], {})).toThrow(TypeError);
  });
});
