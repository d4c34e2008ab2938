import { describe, expect, it } from "@jest/globals";
import { conditionTime, isConditionTrue, ownedConditions, setCondition, type Condition } from "./conditions.js";

const t0 = new Date("2026-11-30T10:00:00.123Z");
const t1 = new Date("2026-11-30T10:05:00.000Z");

describe("setCondition", () => {
  it("adds a condition with observedGeneration and a seconds-precision time", () => {
    const conditions = setCondition([], { type: "Ready", status: "False", reason: "Provisioning", message: "waiting" }, 3, t0);
    expect(conditions).toEqual([
      { type: "Ready", status: "False", reason: "Provisioning", message: "waiting", observedGeneration: 3, lastTransitionTime: "2026-11-30T10:00:00Z" },
    ]);
  });

  it("keeps lastTransitionTime while the status stays, and moves it when the status changes", () => {
    const first = setCondition([], { type: "Ready", status: "False", reason: "Provisioning", message: "a" }, 1, t0);
    const same = setCondition(first, { type: "Ready", status: "False", reason: "StillProvisioning", message: "b" }, 2, t1);
    expect(same[0]).toMatchObject({ reason: "StillProvisioning", message: "b", observedGeneration: 2, lastTransitionTime: conditionTime(t0) });
    const flipped = setCondition(same, { type: "Ready", status: "True", reason: "Provisioned", message: "" }, 2, t1);
    expect(flipped[0]?.lastTransitionTime).toBe(conditionTime(t1));
  });

  it("keeps the other conditions in place and does not mutate its input", () => {
    const input: Condition[] = [
      { type: "A", status: "True", reason: "R", message: "", lastTransitionTime: conditionTime(t0) },
      { type: "B", status: "True", reason: "R", message: "", lastTransitionTime: conditionTime(t0) },
    ];
    const output = setCondition(input, { type: "A", status: "False", reason: "Broken", message: "m" }, 1, t1);
    expect(output.map((c) => c.type)).toEqual(["A", "B"]);
    expect(input[0]?.status).toBe("True");
  });
});

describe("isConditionTrue", () => {
  it("is true only for True at the asked generation", () => {
    const conditions = setCondition([], { type: "Ready", status: "True", reason: "Ok", message: "" }, 4, t0);
    expect(isConditionTrue(conditions, "Ready")).toBe(true);
    expect(isConditionTrue(conditions, "Ready", 4)).toBe(true);
    expect(isConditionTrue(conditions, "Ready", 5)).toBe(false);
    expect(isConditionTrue(conditions, "Synced")).toBe(false);
  });
});

describe("ownedConditions", () => {
  const observed: Condition[] = [
    { type: "Ready", status: "False", reason: "Provisioning", message: "a", observedGeneration: 1, lastTransitionTime: conditionTime(t0) },
    { type: "NetworkReady", status: "True", reason: "ByOther", message: "", lastTransitionTime: conditionTime(t0) },
    { type: "Synced", status: "True", reason: "Ok", message: "", lastTransitionTime: conditionTime(t0) },
  ];

  it("returns only the updated types, keeping lastTransitionTime where the status stays", () => {
    const owned = ownedConditions(
      observed,
      [
        { type: "Synced", status: "True", reason: "Ok", message: "still" },
        { type: "Ready", status: "True", reason: "Provisioned", message: "" },
        { type: "Billing", status: "Unknown", reason: "Pending", message: "" },
      ],
      2,
      t1,
    );
    expect(owned).toEqual([
      { type: "Synced", status: "True", reason: "Ok", message: "still", observedGeneration: 2, lastTransitionTime: conditionTime(t0) },
      { type: "Ready", status: "True", reason: "Provisioned", message: "", observedGeneration: 2, lastTransitionTime: conditionTime(t1) },
      { type: "Billing", status: "Unknown", reason: "Pending", message: "", observedGeneration: 2, lastTransitionTime: conditionTime(t1) },
    ]);
  });

  it("works without observed conditions and refuses two updates of one type", () => {
    expect(ownedConditions(undefined, [{ type: "Ready", status: "True", reason: "Ok", message: "" }], undefined, t0)).toEqual([
      { type: "Ready", status: "True", reason: "Ok", message: "", lastTransitionTime: conditionTime(t0) },
    ]);
    const twice = { type: "Ready", status: "True", reason: "Ok", message: "" } as const;
    expect(() => ownedConditions(observed, [twice, twice], 1)).toThrow("unique");
  });
});
