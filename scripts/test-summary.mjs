// Prints the one line CI reads, `N passed, N failed[, N skipped]`, from Jest's
// JSON report, and exits non-zero if anything failed. A suite that could not
// run (a syntax error, a failing beforeAll) has no failed tests of its own, so
// it counts as one failure; a missing report means Jest never got to run.
// The e2e credential guard's report, when named, counts as one more test: it
// fails when it found a credential, could not run, or is missing (then the
// e2e project's teardown never ran the guard).
// `go test -json` output, when named, adds each Go test and subtest; a
// package that failed to build, or a non-zero `go test` status with no
// failed test, counts as one failure.
// The e2e time budget counts as one more test: it prints the ten longest
// e2e suites and fails when their wall times add up to more than
// e2e/time-budget.json allows (e2e/src/time-budget.ts).
import { existsSync, readFileSync } from "node:fs";
import { checkBudget, describeTimes, suiteTimes } from "../e2e/dist/src/time-budget.js";

const [report, jestStatus = "0", guardReport, goReport, goStatus = "0"] = process.argv.slice(2);
if (!report || !existsSync(report)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const result = JSON.parse(readFileSync(report, "utf8"));
const brokenSuites = result.testResults.filter(
  (suite) => suite.status === "failed" && suite.assertionResults.every((test) => test.status !== "failed"),
).length;
const guardPassed = guardReport === undefined ? undefined : credentialGuardPassed(guardReport);
const go = goReport === undefined ? { passed: 0, failed: 0 } : goResults(goReport, Number(goStatus));
const budgetPassed = withinTimeBudget(result);
const passed = result.numPassedTests + (guardPassed === true ? 1 : 0) + go.passed + (budgetPassed ? 1 : 0);
const failed = result.numFailedTests + brokenSuites + (guardPassed === false ? 1 : 0) + go.failed + (budgetPassed ? 0 : 1);
const skipped = result.numPendingTests + result.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || Number(jestStatus) !== 0 ? 1 : 0);

function goResults(path, status) {
  const events = existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line))
    : [];
  const count = (action) => events.filter((event) => event.Test !== undefined && event.Action === action).length;
  const passed = count("pass");
  const failed = count("fail");
  return { passed, failed: failed === 0 && status !== 0 ? 1 : failed };
}

function credentialGuardPassed(path) {
  if (!existsSync(path)) {
    console.error("credential guard: no report; the e2e project's global teardown did not run it");
    return false;
  }
  const guard = JSON.parse(readFileSync(path, "utf8"));
  return guard.error === undefined && guard.findings.length === 0;
}

function withinTimeBudget(jestReport) {
  const root = new URL("..", import.meta.url).pathname;
  const budget = JSON.parse(readFileSync(new URL("../e2e/time-budget.json", import.meta.url), "utf8"));
  const times = suiteTimes(jestReport, root);
  const check = checkBudget(times, budget);
  for (const line of describeTimes(times, check)) console.error(line);
  return check.passed;
}
