import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { deepFreeze } from "./store.js";
import { stripManagedFields } from "./transform.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function applied(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "x",
      namespace: "ns",
      resourceVersion: "7",
      labels: { app: "web" },
      annotations: { "kcp.io/cluster": "c1", [LAST_APPLIED]: '{"data":{"k":"v"}}' },
      managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:data": { "f:k": {} } } }],
    },
    data: { k: "v" },
  };
}

describe("stripManagedFields", () => {
  it("drops managedFields and keeps everything else, annotations included (a PUT from a cached copy would delete them)", () => {
    expect(stripManagedFields(applied())).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", namespace: "ns", resourceVersion: "7", labels: { app: "web" }, annotations: { "kcp.io/cluster": "c1", [LAST_APPLIED]: '{"data":{"k":"v"}}' } },
      data: { k: "v" },
    });
  });

  it("leaves its argument as it was, even a frozen one, and shares what it does not change", () => {
    const original = deepFreeze(applied()) as KubeObject;
    const stripped = stripManagedFields(original);
    expect(original).toEqual(applied());
    expect(stripped.data).toBe(original.data);
    expect(stripped.metadata?.labels).toBe(original.metadata?.labels);
  });

  it("returns an object with nothing to drop as it is", () => {
    const plain: KubeObject = { kind: "ConfigMap", metadata: { name: "x", annotations: { a: "b" } } };
    expect(stripManagedFields(plain)).toBe(plain);
    const bare: KubeObject = { kind: "ConfigMap" };
    expect(stripManagedFields(bare)).toBe(bare);
  });
});
