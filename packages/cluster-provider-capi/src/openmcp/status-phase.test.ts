import { describe, expect, it } from "@jest/globals";
import type { Condition, ConditionStatus } from "@edgeconnect/runtime";
import { commonPhase, mergeConditions, statusChanged } from "./status-phase.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const T1 = new Date("2026-01-01T01:00:00.750Z");

function condition(type: string, status: ConditionStatus, extra: Partial<Condition> = {}): Condition {
  return { type, status, reason: "Because", message: "", lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1, ...extra };
}

describe("commonPhase", () => {
  it.each<[string, boolean, { status: string }[] | undefined, string]>([
    ["deleting wins over all True", true, [{ status: "True" }], "Terminating"],
    ["deleting wins over False", true, [{ status: "False" }], "Terminating"],
    ["all True", false, [{ status: "True" }, { status: "True" }], "Ready"],
    ["one False", false, [{ status: "True" }, { status: "False" }], "Progressing"],
    ["one Unknown", false, [{ status: "Unknown" }, { status: "True" }], "Progressing"],
    ["no conditions", false, [], "Ready"],
    ["conditions missing", false, undefined, "Ready"],
  ])("%s", (_case, deleting, conditions, phase) => {
    expect(commonPhase({ deleting, conditions })).toBe(phase);
  });
});

describe("mergeConditions", () => {
  it("keeps conditions no update names, with their own generation", () => {
    const existing = [condition("Old", "False", { observedGeneration: 1 }), condition("Ready", "False")];
    const merged = mergeConditions(existing, [{ type: "Ready", status: "True", reason: "Done", message: "ok" }], { generation: 2, now: T1 });
    expect(merged).toEqual([
      condition("Old", "False", { observedGeneration: 1 }),
      { type: "Ready", status: "True", reason: "Done", message: "ok", observedGeneration: 2, lastTransitionTime: "2026-01-01T01:00:00Z" },
    ]);
  });

  it("keeps lastTransitionTime while the status stays, and updates reason, message and generation", () => {
    const merged = mergeConditions([condition("Ready", "False", { reason: "Waiting" })], [{ type: "Ready", status: "False", reason: "StillWaiting", message: "m" }], {
      generation: 3,
      now: T1,
    });
    expect(merged).toEqual([{ type: "Ready", status: "False", reason: "StillWaiting", message: "m", observedGeneration: 3, lastTransitionTime: "2026-01-01T00:00:00Z" }]);
  });

  it("appends new types in the order given", () => {
    const merged = mergeConditions(undefined, [
      { type: "B", status: "True", reason: "R", message: "" },
      { type: "A", status: "Unknown", reason: "R", message: "" },
    ], { generation: 1, now: T0 });
    expect(merged.map((c) => c.type)).toEqual(["B", "A"]);
    expect(merged.every((c) => c.lastTransitionTime === "2026-01-01T00:00:00Z" && c.observedGeneration === 1)).toBe(true);
  });

  it("does not modify its input", () => {
    const existing = [condition("Ready", "False")];
    const copy = structuredClone(existing);
    mergeConditions(existing, [{ type: "Ready", status: "True", reason: "R", message: "" }], { generation: 2, now: T1 });
    expect(existing).toEqual(copy);
  });

  it("refuses two updates of one type", () => {
    const update = { type: "Ready", status: "True", reason: "R", message: "" } as const;
    expect(() => mergeConditions([], [update, update], { generation: 1, now: T0 })).toThrow("condition types must be unique");
  });
});

describe("statusChanged", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["identical", { phase: "Ready", observedGeneration: 1 }, { phase: "Ready", observedGeneration: 1 }, false],
    ["key order", { phase: "Ready", observedGeneration: 1 }, { observedGeneration: 1, phase: "Ready" }, false],
    ["nested key order", { conditions: [{ type: "A", status: "True" }] }, { conditions: [{ status: "True", type: "A" }] }, false],
    ["undefined-valued key", { phase: "Ready", secretRef: undefined }, { phase: "Ready" }, false],
    ["both missing", undefined, undefined, false],
    ["a value", { phase: "Ready" }, { phase: "Progressing" }, true],
    ["a number", { observedGeneration: 1 }, { observedGeneration: 2 }, true],
    ["an added key", { phase: "Ready" }, { phase: "Ready", observedGeneration: 1 }, true],
    ["list order", { conditions: [{ type: "A" }, { type: "B" }] }, { conditions: [{ type: "B" }, { type: "A" }] }, true],
    ["a nested value", { conditions: [{ type: "A", status: "True" }] }, { conditions: [{ type: "A", status: "False" }] }, true],
    ["missing against empty", undefined, {}, true],
    ["null against empty", { secretRef: null }, { secretRef: {} }, true],
  ])("%s", (_case, current, next, changed) => {
    expect(statusChanged(current, next)).toBe(changed);
  });
});
