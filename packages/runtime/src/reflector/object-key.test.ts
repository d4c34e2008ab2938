import { describe, expect, it } from "@jest/globals";
import { ObjectKeyError } from "./errors.js";
import { joinKey, objectKey, splitKey, type KeyParts } from "./object-key.js";

const configMap = (name: string, namespace?: string, cluster?: string) => ({
  metadata: { name, namespace, ...(cluster === undefined ? {} : { annotations: { "kcp.io/cluster": cluster } }) },
});

describe("object keys", () => {
  it.each<[string, KeyParts]>([
    ["root:a|ns/x", { cluster: "root:a", namespace: "ns", name: "x" }],
    ["2t9926j97luva3ox|node-a", { cluster: "2t9926j97luva3ox", namespace: "", name: "node-a" }],
    ["|kube-system/x", { cluster: "", namespace: "kube-system", name: "x" }],
    ["|node-a", { cluster: "", namespace: "", name: "node-a" }],
  ])("%s round-trips", (key, parts) => {
    expect(joinKey(parts)).toBe(key);
    expect(splitKey(key)).toEqual(parts);
    expect(splitKey(joinKey(parts))).toEqual(parts);
  });

  it("keys an object by its kcp.io/cluster annotation, namespace and name", () => {
    expect(objectKey(configMap("x", "ns", "root:a"))).toBe("root:a|ns/x");
    expect(objectKey(configMap("x", undefined, "abc"))).toBe("abc|x");
    expect(objectKey(configMap("x", "ns"))).toBe("|ns/x");
    expect(objectKey(configMap("x", ""))).toBe("|x");
    expect(splitKey(objectKey(configMap("n", undefined, "abc")))).toEqual({ cluster: "abc", namespace: "", name: "n" });
  });

  it('reads a key without "|" as cluster ""', () => {
    expect(splitKey("ns/x")).toEqual({ cluster: "", namespace: "ns", name: "x" });
    expect(splitKey("x")).toEqual({ cluster: "", namespace: "", name: "x" });
  });

  it("refuses objects without a name", () => {
    expect(() => objectKey({ metadata: { namespace: "ns" } })).toThrow(ObjectKeyError);
    expect(() => objectKey({ metadata: { name: "" } })).toThrow(ObjectKeyError);
    expect(() => objectKey({})).toThrow(ObjectKeyError);
  });
});
