import { describe, expect, it } from "@jest/globals";
import { objectKey, splitKey } from "../reflector/object-key.js";
import { requestFor } from "./handlers.js";
import { describeRequest, requestKey, tenantOf } from "./request.js";

describe("request keys", () => {
  it("round-trips namespaced and cluster-scoped requests", () => {
    for (const request of [
      { cluster: "2t9926j97luva3ox", namespace: "default", name: "web" },
      { cluster: "2t9926j97luva3ox", namespace: "", name: "node-a" },
      { cluster: "", namespace: "kube-system", name: "x" },
    ]) {
      expect(splitKey(requestKey(request))).toEqual(request);
    }
    expect(requestKey({ cluster: "c", namespace: "ns", name: "n" })).toBe("c|ns/n");
  });

  it("keys a request exactly as the store keys the object it names", () => {
    for (const obj of [
      { metadata: { name: "web", namespace: "default", annotations: { "kcp.io/cluster": "2t9926j97luva3ox" } } },
      { metadata: { name: "node-a", annotations: { "kcp.io/cluster": "2t9926j97luva3ox" } } },
      { metadata: { name: "node-a" } },
    ]) {
      expect(requestKey(requestFor(obj))).toBe(objectKey(obj));
      expect(splitKey(objectKey(obj))).toEqual(requestFor(obj));
    }
  });

  it("groups requests by the fingerprint of their cluster", () => {
    expect(tenantOf({ cluster: "abc", namespace: "x", name: "y" })).toBe(tenantOf({ cluster: "abc", namespace: "z", name: "w" }));
    expect(tenantOf({ cluster: "abc", namespace: "x", name: "y" })).toMatch(/^[0-9a-f]{12}$/);
  });

  it("describes a request the way kcp's multicluster runtime prints it", () => {
    expect(describeRequest({ cluster: "c", namespace: "ns", name: "n" })).toBe("cluster://c/ns/n");
  });
});
