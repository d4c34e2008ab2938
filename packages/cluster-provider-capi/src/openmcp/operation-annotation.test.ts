import { describe, expect, it } from "@jest/globals";
import { OPERATION_ANNOTATION } from "./constants.js";
import { operationOf, withoutReconcileAnnotation, type AnnotatedObject } from "./operation-annotation.js";

// The key and values are checked against openMCP's module in constants.test.ts.
const KEY = OPERATION_ANNOTATION;

function obj(operation?: string): AnnotatedObject {
  return { metadata: operation === undefined ? {} : { annotations: { [KEY]: operation, other: "x" } } };
}

describe("operationOf", () => {
  it.each<[string, AnnotatedObject, string | undefined]>([
    ["reconcile", obj("reconcile"), "reconcile"],
    ["ignore", obj("ignore"), "ignore"],
    ["an unknown value", obj("Reconcile"), undefined],
    ["an empty value", obj(""), undefined],
    ["no annotation", obj(), undefined],
    ["no annotations", { metadata: {} }, undefined],
    ["no metadata", {}, undefined],
  ])("%s", (_case, o, expected) => {
    expect(operationOf(o)).toBe(expected);
  });
});

describe("withoutReconcileAnnotation", () => {
  it("removes a reconcile annotation with a merge patch that touches nothing else", () => {
    expect(withoutReconcileAnnotation(obj("reconcile"))).toEqual({ metadata: { annotations: { [KEY]: null } } });
  });

  it.each<[string, AnnotatedObject]>([
    ["no annotation", obj()],
    ["ignore", obj("ignore")],
    ["an unknown value", obj("pause")],
  ])("is undefined for %s", (_case, o) => {
    expect(withoutReconcileAnnotation(o)).toBeUndefined();
  });
});
