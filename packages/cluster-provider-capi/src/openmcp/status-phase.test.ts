import { describe, expect, it } from "@jest/globals";
import { commonPhase } from "./status-phase.js";

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
