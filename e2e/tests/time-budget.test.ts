import { describe, expect, it } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { checkBudget, describeTimes, isE2eSuite, suiteTimes, type TimeBudget } from "../src/time-budget.js";

const report = {
  testResults: [
    { name: "/repo/e2e/tests/a.e2e.test.ts", startTime: 0, endTime: 120_000 },
    { name: "/repo/packages/runtime/src/x.int.test.ts", startTime: 1_000, endTime: 31_000 },
    { name: "/repo/packages/runtime/src/x.test.ts", startTime: 0, endTime: 500_000 },
  ],
};

describe("the e2e time budget", () => {
  it("takes the e2e project's suites only, longest first, by path from the root", () => {
    expect(suiteTimes(report, "/repo")).toEqual([
      { file: "e2e/tests/a.e2e.test.ts", seconds: 120 },
      { file: "packages/runtime/src/x.int.test.ts", seconds: 30 },
    ]);
  });

  it("passes at the budget and fails past it, saying by how much and where the budget is", () => {
    const times = suiteTimes(report, "/repo/");
    expect(checkBudget(times, { budgetSeconds: 150, seconds: {}, exclusive: {} })).toEqual({ totalSeconds: 150, budgetSeconds: 150, passed: true });
    const over = checkBudget(times, { budgetSeconds: 100, seconds: {}, exclusive: {} });
    expect(over.passed).toBe(false);
    expect(describeTimes(times, over).at(-1)).toMatch(/add up to 150 s of a budget of 100 s \(e2e\/time-budget.json\): over budget by 50 s/);
    expect(describeTimes(times, over, 1)).toHaveLength(3);
  });

  it("names, in the committed budget, only suites the e2e project runs and that exist", () => {
    const budget = JSON.parse(readFileSync(new URL("../time-budget.json", import.meta.url), "utf8")) as TimeBudget;
    expect(budget.budgetSeconds).toBeGreaterThan(0);
    const named = [...Object.keys(budget.seconds), ...Object.values(budget.exclusive).flat()];
    expect(named.filter((file) => !isE2eSuite(file) || !existsSync(new URL(`../../${file}`, import.meta.url)))).toEqual([]);
  });
});
