import { describe, expect, it } from "@jest/globals";
import type { Condition, ConditionStatus, ConditionUpdate } from "@edgeconnect/runtime";
import { allConditions, controllerConditions } from "./status-conditions.js";

const EARLIER = "2026-01-01T00:00:00Z";
const NOW = new Date("2026-03-04T05:06:07.890Z");
const NOW_TEXT = "2026-03-04T05:06:07Z";
const OWN = ["ClusterConfigured", "ClusterReady"];

function condition(type: string, status: ConditionStatus, extra: Partial<Condition> = {}): Condition {
  return { type, status, reason: `${type}${status}`, message: `${type} is ${status}`, observedGeneration: 1, lastTransitionTime: EARLIER, ...extra };
}

function update(type: string, status: ConditionStatus, reason = "Updated", message = "now"): ConditionUpdate {
  return { type, status, reason, message };
}

describe("controllerConditions", () => {
  it("carries its own types that no update names, keeping their generation and transition time", () => {
    const previous = [condition("ClusterConfigured", "True", { observedGeneration: 2 }), condition("ClusterReady", "False", { observedGeneration: 1 })];
    expect(controllerConditions(previous, [update("ClusterConfigured", "True")], OWN, 3, NOW)).toEqual([
      { type: "ClusterConfigured", status: "True", reason: "Updated", message: "now", observedGeneration: 3, lastTransitionTime: EARLIER },
      { type: "ClusterReady", status: "False", reason: "ClusterReadyFalse", message: "ClusterReady is False", observedGeneration: 1, lastTransitionTime: EARLIER },
    ]);
  });

  it("carries every own type when there are no updates, unchanged", () => {
    const previous = [condition("ClusterReady", "Unknown", { observedGeneration: 4, lastTransitionTime: "2025-12-31T23:59:59Z" }), condition("ClusterConfigured", "False", { observedGeneration: 2 })];
    expect(controllerConditions(previous, [], OWN, 7, NOW)).toEqual(previous);
  });

  it("never claims other managers' types", () => {
    const previous = [condition("Ready", "True"), condition("ClusterReady", "True"), condition("openmcp.cloud/Other", "False")];
    const conditions = controllerConditions(previous, [update("ClusterConfigured", "True")], OWN, 2, NOW);
    expect(conditions.map((c) => c.type)).toEqual(["ClusterConfigured", "ClusterReady"]);
  });

  it("gives an update of another manager's type only what the update says", () => {
    const previous = [condition("Ready", "True", { observedGeneration: 1 })];
    expect(controllerConditions(previous, [update("Ready", "True", "Mine", "m")], OWN, 5, NOW)).toEqual([
      { type: "Ready", status: "True", reason: "Mine", message: "m", observedGeneration: 5, lastTransitionTime: EARLIER },
    ]);
  });

  it.each<[string, ConditionStatus, ConditionStatus, string]>([
    ["keeps the transition time while the status stays True", "True", "True", EARLIER],
    ["keeps the transition time while the status stays False", "False", "False", EARLIER],
    ["keeps the transition time while the status stays Unknown", "Unknown", "Unknown", EARLIER],
    ["moves the transition time from False to True", "False", "True", NOW_TEXT],
    ["moves the transition time from True to False", "True", "False", NOW_TEXT],
    ["moves the transition time from Unknown to True", "Unknown", "True", NOW_TEXT],
  ])("%s, and sets the generation", (_case, before, after, lastTransitionTime) => {
    const [result] = controllerConditions([condition("ClusterReady", before)], [update("ClusterReady", after, "R", "msg")], OWN, 9, NOW);
    expect(result).toEqual({ type: "ClusterReady", status: after, reason: "R", message: "msg", observedGeneration: 9, lastTransitionTime });
  });

  it("stamps a new type with now, to the second", () => {
    expect(controllerConditions(undefined, [update("ClusterConfigured", "False", "MissingProfile", "no profile")], OWN, 1, NOW)).toEqual([
      { type: "ClusterConfigured", status: "False", reason: "MissingProfile", message: "no profile", observedGeneration: 1, lastTransitionTime: NOW_TEXT },
    ]);
  });

  it("leaves observedGeneration out of updates when the object has no generation", () => {
    const [result] = controllerConditions([condition("ClusterReady", "True")], [update("ClusterReady", "False")], OWN, undefined, NOW);
    expect(result).toEqual({ type: "ClusterReady", status: "False", reason: "Updated", message: "now", lastTransitionTime: NOW_TEXT });
    expect(Object.keys(result ?? {})).not.toContain("observedGeneration");
  });

  it("keeps a carried condition's generation even when the object has none", () => {
    const previous = [condition("ClusterReady", "True", { observedGeneration: 3 })];
    expect(controllerConditions(previous, [], OWN, undefined, NOW)).toEqual(previous);
  });

  it("puts the updates first, in their order, then the carried types in theirs", () => {
    const previous = [condition("B", "True"), condition("A", "True"), condition("C", "True")];
    const types = controllerConditions(previous, [update("D", "True"), update("C", "False")], ["A", "B", "C", "D"], 2, NOW).map((c) => c.type);
    expect(types).toEqual(["D", "C", "B", "A"]);
  });

  it("is empty with neither updates nor own conditions", () => {
    expect(controllerConditions(undefined, [], OWN, 1, NOW)).toEqual([]);
    expect(controllerConditions([condition("Ready", "True")], [], OWN, 1, NOW)).toEqual([]);
  });

  it("refuses two updates of one type, which the API server would refuse", () => {
    expect(() => controllerConditions(undefined, [update("ClusterReady", "True"), update("ClusterReady", "False")], OWN, 1, NOW)).toThrow(/condition types must be unique/);
  });

  it("does not change the previous conditions", () => {
    const previous = [condition("ClusterReady", "True"), condition("ClusterConfigured", "False")];
    const copy = structuredClone(previous);
    controllerConditions(previous, [update("ClusterReady", "False")], OWN, 2, NOW);
    expect(previous).toEqual(copy);
  });
});

describe("allConditions", () => {
  it("replaces the types it is given and keeps the others in front", () => {
    const previous = [condition("Ready", "True"), condition("ClusterReady", "False"), condition("Other", "Unknown")];
    const mine = [condition("ClusterReady", "True", { observedGeneration: 2 }), condition("ClusterConfigured", "True", { observedGeneration: 2 })];
    expect(allConditions(previous, mine)).toEqual([condition("Ready", "True"), condition("Other", "Unknown"), ...mine]);
  });

  it.each<[string, Condition[] | undefined, Condition[], Condition[]]>([
    ["no previous conditions", undefined, [condition("A", "True")], [condition("A", "True")]],
    ["no new conditions", [condition("A", "True")], [], [condition("A", "True")]],
    ["neither", undefined, [], []],
  ])("handles %s", (_case, previous, conditions, expected) => {
    expect(allConditions(previous, conditions)).toEqual(expected);
  });

  it("feeds the phase what readers will see after the apply", () => {
    const previous = [condition("Ready", "True"), condition("ClusterReady", "False")];
    const conditions = controllerConditions(previous, [update("ClusterReady", "True")], OWN, 2, NOW);
    expect(allConditions(previous, conditions).map((c) => [c.type, c.status])).toEqual([
      ["Ready", "True"],
      ["ClusterReady", "True"],
    ]);
  });
});

describe("controllerConditions on a condition written without a generation", () => {
  it("carries it without inventing one", () => {
    const bare: Condition = { type: "ClusterReady", status: "True", reason: "Ready", message: "ready", lastTransitionTime: EARLIER };
    const [carried] = controllerConditions([bare], [], OWN, 5, NOW);
    expect(carried).toEqual(bare);
    expect(carried).not.toHaveProperty("observedGeneration");
  });
});
