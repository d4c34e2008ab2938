import { describe, expect, it } from "@jest/globals";
import {
  ASYNC_OPERATION,
  available,
  LAST_ASYNC_OPERATION,
  nextConditions,
  observedVerdict,
  READY,
  reconcileError,
  SYNCED,
  type ExternalPhase,
} from "./conditions.js";

const T0 = new Date("2026-12-01T10:00:00.000Z");
const T1 = new Date("2026-12-01T10:05:00.000Z");

function reasons(verdict: ReturnType<typeof observedVerdict>): Record<string, string> {
  return Object.fromEntries(Object.entries(verdict.conditions).map(([type, condition]) => [type, `${condition.status}/${condition.reason}`]));
}

describe("nextConditions", () => {
  it("writes the verdicts in a fixed order, keeps the types left out, and stamps every condition with the generation", () => {
    const before = nextConditions(undefined, { [SYNCED]: reconcileError("boom"), [READY]: available() }, 1, T0);
    expect(before.map((c) => c.type)).toEqual([READY, SYNCED]);
    const after = nextConditions(before, { [SYNCED]: reconcileError("still boom") }, 2, T1);
    expect(after).toEqual([
      { type: READY, status: "True", reason: "Available", message: "", observedGeneration: 2, lastTransitionTime: "2026-12-01T10:00:00Z" },
      { type: SYNCED, status: "False", reason: "ReconcileError", message: "still boom", observedGeneration: 2, lastTransitionTime: "2026-12-01T10:00:00Z" },
    ]);
  });

  it("moves the transition time only when the status changes", () => {
    const before = nextConditions(undefined, { [READY]: available() }, 1, T0);
    const after = nextConditions(before, { [READY]: { type: READY, status: "False", reason: "Deleting", message: "" } }, 1, T1);
    expect(after[0]?.lastTransitionTime).toBe("2026-12-01T10:05:00Z");
  });
});

describe("observedVerdict", () => {
  const settling: ExternalPhase = { kind: "settling" };
  const settled: ExternalPhase = { kind: "settled" };
  const soldOut: ExternalPhase = { kind: "failed", message: "unexpected state 'SoldOut', wanted target ''" };

  it("is Creating with the operation ongoing while a create of ours settles", () => {
    const verdict = observedVerdict({ phase: settling, operation: "create", readyOnlyWhenSettled: false });
    expect(reasons(verdict)).toEqual({ [READY]: "False/Creating", [SYNCED]: "True/ReconcileSuccess", [ASYNC_OPERATION]: "False/Ongoing" });
    expect(verdict).toMatchObject({ inProgress: true, operationEnded: false });
  });

  it("reports success once settled and ends the operation", () => {
    const verdict = observedVerdict({ phase: settled, operation: "create", readyOnlyWhenSettled: false });
    expect(reasons(verdict)).toEqual({
      [READY]: "True/Available",
      [SYNCED]: "True/ReconcileSuccess",
      [ASYNC_OPERATION]: "True/Finished",
      [LAST_ASYNC_OPERATION]: "True/Success",
    });
    expect(verdict).toMatchObject({ inProgress: false, operationEnded: true });
  });

  it("keeps an existing object Ready while it settles after an update, but not a cluster that is not Available", () => {
    expect(reasons(observedVerdict({ phase: settling, operation: "update", readyOnlyWhenSettled: false }))[READY]).toBe("True/Available");
    expect(reasons(observedVerdict({ phase: settling, operation: undefined, readyOnlyWhenSettled: true }))[READY]).toBe("False/Creating");
  });

  it("fails the last operation of a SoldOut node pool but leaves it Ready (reference §1.7)", () => {
    const verdict = observedVerdict({ phase: soldOut, operation: "create", readyOnlyWhenSettled: false });
    expect(reasons(verdict)).toEqual({
      [READY]: "True/Available",
      [SYNCED]: "True/ReconcileSuccess",
      [ASYNC_OPERATION]: "True/Finished",
      [LAST_ASYNC_OPERATION]: "False/AsyncCreateFailure",
    });
    expect(verdict.conditions[LAST_ASYNC_OPERATION]?.message).toBe("async create failed: failed to create the resource: unexpected state 'SoldOut', wanted target ''");
    expect(verdict.operationEnded).toBe(false);
    expect(observedVerdict({ phase: soldOut, operation: "update", readyOnlyWhenSettled: false }).conditions[LAST_ASYNC_OPERATION]?.reason).toBe("AsyncUpdateFailure");
  });

  it("is Deleting while OTC deletes", () => {
    expect(reasons(observedVerdict({ phase: { kind: "deleting" }, operation: undefined, readyOnlyWhenSettled: false }))).toMatchObject({
      [READY]: "False/Deleting",
      [ASYNC_OPERATION]: "False/Ongoing",
    });
  });
});
