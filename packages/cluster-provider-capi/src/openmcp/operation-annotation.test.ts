import { describe, expect, it } from "@jest/globals";
import { operationOf, shouldReconcileCreate, shouldReconcileUpdate, withoutReconcileAnnotation, type WatchedObject } from "./operation-annotation.js";

const KEY = "openmcp.cloud/operation";

function obj(generation: number, operation?: string, deletionTimestamp?: string): WatchedObject {
  return {
    metadata: {
      generation,
      ...(operation === undefined ? {} : { annotations: { [KEY]: operation, other: "x" } }),
      ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }),
    },
  };
}

const DELETED = "2026-01-01T00:00:00Z";

describe("operationOf", () => {
  it.each<[string, WatchedObject, string | undefined]>([
    ["reconcile", obj(1, "reconcile"), "reconcile"],
    ["ignore", obj(1, "ignore"), "ignore"],
    ["an unknown value", obj(1, "Reconcile"), undefined],
    ["an empty value", obj(1, ""), undefined],
    ["no annotation", obj(1), undefined],
    ["no annotations", { metadata: {} }, undefined],
    ["no metadata", {}, undefined],
  ])("%s", (_case, o, expected) => {
    expect(operationOf(o)).toBe(expected);
  });
});

describe("shouldReconcileCreate", () => {
  it.each<[string, WatchedObject, boolean]>([
    ["plain", obj(1), true],
    ["reconcile", obj(1, "reconcile"), true],
    ["ignore", obj(1, "ignore"), false],
    ["unknown value", obj(1, "pause"), true],
  ])("%s", (_case, o, expected) => {
    expect(shouldReconcileCreate(o)).toBe(expected);
  });
});

describe("shouldReconcileUpdate", () => {
  it.each<[string, WatchedObject, WatchedObject, boolean]>([
    ["nothing relevant changed (a status write)", obj(1), obj(1), false],
    ["generation changed", obj(1), obj(2), true],
    ["deletion started", obj(1), obj(1, undefined, DELETED), true],
    ["deletion timestamp went away", obj(1, undefined, DELETED), obj(1), true],
    ["got reconcile", obj(1), obj(1, "reconcile"), true],
    ["reconcile changed from another value", obj(1, "pause"), obj(1, "reconcile"), true],
    ["kept reconcile", obj(1, "reconcile"), obj(1, "reconcile"), false],
    ["lost reconcile (our own removal)", obj(1, "reconcile"), obj(1), false],
    ["lost ignore", obj(1, "ignore"), obj(1), true],
    ["ignore changed to reconcile", obj(1, "ignore"), obj(1, "reconcile"), true],
    ["got ignore", obj(1), obj(1, "ignore"), false],
    ["generation changed while ignored", obj(1, "ignore"), obj(2, "ignore"), false],
    ["deletion started while ignored", obj(1, "ignore"), obj(1, "ignore", DELETED), false],
    ["generation changed and got ignore", obj(1), obj(2, "ignore"), false],
  ])("%s", (_case, old, current, expected) => {
    expect(shouldReconcileUpdate(old, current)).toBe(expected);
  });
});

describe("withoutReconcileAnnotation", () => {
  it("removes a reconcile annotation with a merge patch that touches nothing else", () => {
    expect(withoutReconcileAnnotation(obj(1, "reconcile"))).toEqual({ metadata: { annotations: { [KEY]: null } } });
  });

  it.each<[string, WatchedObject]>([
    ["no annotation", obj(1)],
    ["ignore", obj(1, "ignore")],
    ["an unknown value", obj(1, "pause")],
  ])("is undefined for %s", (_case, o) => {
    expect(withoutReconcileAnnotation(o)).toBeUndefined();
  });
});
