import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { APPLIED_ANNOTATION, appliedAlready, withAppliedRecord } from "./applied-record.js";

const vpc = (cidr: string, annotations: Record<string, string> = { owner: "t" }): KubeObject & { spec: object } => ({
  apiVersion: "vpc.opentelekomcloud.m.crossplane.io/v1alpha1",
  kind: "VpcV1",
  metadata: { name: "vpc", namespace: "kcp-0123456789ab", labels: { "app.kubernetes.io/managed-by": "edgeconnect" }, annotations },
  spec: { forProvider: { cidr, name: "vpc", tags: [{ key: "a", value: "b" }] }, providerConfigRef: { kind: "ProviderConfig", name: "pc" } },
});

/** The object as the API server keeps it after our apply: defaults, status and other managers' fields added, type meta dropped from list items. */
function stored(applied: KubeObject & { spec: object }): KubeObject {
  const rest: Partial<KubeObject> & { spec: object } = structuredClone(applied);
  delete rest.apiVersion;
  delete rest.kind;
  return {
    ...rest,
    metadata: { ...rest.metadata, uid: "u1", resourceVersion: "42", generation: 3, annotations: { ...rest.metadata?.annotations, "crossplane.io/external-name": "id-1" } },
    spec: { ...rest.spec, managementPolicies: ["*"], deletionPolicy: "Delete" },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

describe("applied records", () => {
  it("skips an apply whose body the cached object already shows, whatever else the server added", () => {
    const desired = withAppliedRecord(vpc("10.0.0.0/16"));
    expect(appliedAlready(desired, stored(desired))).toBe(true);
  });

  it("does not depend on the order of the body's keys", () => {
    const a = withAppliedRecord(vpc("10.0.0.0/16"));
    const { spec, metadata, ...rest } = vpc("10.0.0.0/16");
    const b = withAppliedRecord({ spec, ...rest, metadata });
    expect(b.metadata?.annotations?.[APPLIED_ANNOTATION]).toBe(a.metadata?.annotations?.[APPLIED_ANNOTATION]);
  });

  it("applies a changed body", () => {
    const before = withAppliedRecord(vpc("10.0.0.0/16"));
    expect(appliedAlready(withAppliedRecord(vpc("10.1.0.0/16")), stored(before))).toBe(false);
  });

  it("applies a body that stopped setting a field, so that the apply removes it", () => {
    const before = withAppliedRecord(vpc("10.0.0.0/16", { owner: "t", "platform.edgeconnect.eu/sold-out": "[]" }));
    const after = withAppliedRecord(vpc("10.0.0.0/16"));
    // Every field of the new body is still there; only the record tells that one of ours must go.
    expect(appliedAlready(after, stored(before))).toBe(false);
  });

  it("applies again where someone else changed a field of ours since", () => {
    const desired = withAppliedRecord(vpc("10.0.0.0/16"));
    const drifted = stored(desired) as KubeObject & { spec: { forProvider: { cidr: string } } };
    drifted.spec.forProvider.cidr = "192.168.0.0/16";
    expect(appliedAlready(desired, drifted)).toBe(false);
    const relabelled = stored(desired);
    relabelled.metadata = { ...relabelled.metadata, labels: {} };
    expect(appliedAlready(desired, relabelled)).toBe(false);
    const listGrew = stored(desired) as KubeObject & { spec: { forProvider: { tags: object[] } } };
    listGrew.spec.forProvider.tags.push({ key: "c", value: "d" });
    expect(appliedAlready(desired, listGrew)).toBe(false);
  });

  it("applies what the cache does not have, or has without our record (made before records, or by someone else)", () => {
    const desired = withAppliedRecord(vpc("10.0.0.0/16"));
    expect(appliedAlready(desired, undefined)).toBe(false);
    expect(appliedAlready(desired, stored(vpc("10.0.0.0/16")))).toBe(false);
    expect(appliedAlready(vpc("10.0.0.0/16"), stored(vpc("10.0.0.0/16")))).toBe(false);
  });

  it("records the body without a record it already had", () => {
    const once = withAppliedRecord(vpc("10.0.0.0/16"));
    expect(withAppliedRecord(once)).toEqual(once);
  });
});
