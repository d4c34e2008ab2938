import { describe, expect, it } from "@jest/globals";
import { TAINT_SHUTDOWN, type Node } from "../kube/objects.js";
import { readyStatus } from "./readiness.js";
import { hasTaint, SHUTDOWN_TAINT, withoutTaint, withTaint } from "./taints.js";

const OTHER = { key: "dedicated", value: "db", effect: "NoExecute" as const };

describe("taints", () => {
  it("adds the shutdown taint once, after the others", () => {
    const node: Node = { metadata: { name: "n" }, spec: { taints: [OTHER] } };
    const tainted = withTaint(node, SHUTDOWN_TAINT);
    expect(tainted?.spec?.taints).toEqual([OTHER, { key: TAINT_SHUTDOWN, effect: "NoSchedule" }]);
    expect(withTaint(tainted as Node, SHUTDOWN_TAINT)).toBeUndefined();
  });

  it("removes by key and effect only", () => {
    const node: Node = { spec: { taints: [OTHER, { key: TAINT_SHUTDOWN, effect: "NoExecute" }, SHUTDOWN_TAINT] } };
    expect(withoutTaint(node, TAINT_SHUTDOWN, "NoSchedule")?.spec?.taints).toEqual([OTHER, { key: TAINT_SHUTDOWN, effect: "NoExecute" }]);
    expect(withoutTaint(node, TAINT_SHUTDOWN)?.spec?.taints).toEqual([OTHER]);
    expect(withoutTaint({ spec: {} }, TAINT_SHUTDOWN)).toBeUndefined();
    expect(hasTaint(node, "dedicated", "NoSchedule")).toBe(false);
  });
});

describe("readyStatus", () => {
  it("reads the Ready condition and counts a missing one as Unknown", () => {
    expect(readyStatus({ status: { conditions: [{ type: "MemoryPressure", status: "False" }, { type: "Ready", status: "True" }] } })).toBe("True");
    expect(readyStatus({ status: { conditions: [{ type: "Ready", status: "False" }] } })).toBe("False");
    expect(readyStatus({ status: {} })).toBe("Unknown");
  });
});
