import { describe, expect, it } from "@jest/globals";
import { APPLIED_OBJECTS_ANNOTATION, appliedObjectsOf, droppedFrom, recordedObjects, recordText, unionOf } from "./applied-objects.js";

const infra = { apiVersion: "infrastructure.example/v1alpha1", kind: "ExampleCluster", namespace: "ns", name: "c1" };
const plane = { apiVersion: "controlplane.example/v1beta1", kind: "ExamplePlane", namespace: "ns", name: "c1" };
const machines = { apiVersion: "infrastructure.example/v1alpha1", kind: "ExampleMachineTemplate", namespace: "ns", name: "c1-md" };

describe("applied objects", () => {
  it("records kind, apiVersion, namespace and name of rendered resources, in order, and reads them back", () => {
    const rendered = [infra, plane].map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, metadata: { name, namespace, labels: {} }, spec: { secret: "x" } }));
    const record = appliedObjectsOf(rendered);
    expect(record).toEqual([infra, plane]);
    expect(recordedObjects({ [APPLIED_OBJECTS_ANNOTATION]: recordText(record) })).toEqual([infra, plane]);
  });

  it("reads nothing from no annotation, text that is not JSON, or entries of another form", () => {
    expect(recordedObjects(undefined)).toEqual([]);
    expect(recordedObjects({ [APPLIED_OBJECTS_ANNOTATION]: "not json" })).toEqual([]);
    expect(recordedObjects({ [APPLIED_OBJECTS_ANNOTATION]: JSON.stringify({ kind: "x" }) })).toEqual([]);
    expect(recordedObjects({ [APPLIED_OBJECTS_ANNOTATION]: JSON.stringify([infra, { ...plane, name: "" }, { kind: "X" }, null, { ...machines, extra: 1 }]) })).toEqual([infra, machines]);
  });

  it("unites a record with what is about to be applied, keeping the record's order", () => {
    expect(unionOf([infra, plane], [plane, machines])).toEqual([infra, plane, machines]);
    expect(unionOf([], [infra])).toEqual([infra]);
  });

  it("finds what the template no longer makes, and not an object whose kind moved to another version", () => {
    expect(droppedFrom([infra, plane, machines], [plane])).toEqual([infra, machines]);
    expect(droppedFrom([infra], [{ ...infra, apiVersion: "infrastructure.example/v1beta1" }])).toEqual([]);
    expect(droppedFrom([infra], [{ ...infra, apiVersion: "other.example/v1alpha1" }])).toEqual([infra]);
    expect(droppedFrom([infra], [{ ...infra, namespace: "other" }])).toEqual([infra]);
  });
});
