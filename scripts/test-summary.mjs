// Prints the one line CI reads, `N passed, N failed[, N skipped]`, from Jest's
// JSON report, and exits non-zero if anything failed. A suite that could not
// run (a syntax error, a failing beforeAll) has no failed tests of its own, so
// it counts as one failure; a missing report means Jest never got to run.
import { existsSync, readFileSync } from "node:fs";

const [report, jestStatus = "0"] = process.argv.slice(2);
if (!report || !existsSync(report)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const result = JSON.parse(readFileSync(report, "utf8"));
const brokenSuites = result.testResults.filter(
  (suite) => suite.status === "failed" && suite.assertionResults.every((test) => test.status !== "failed"),
).length;
const passed = result.numPassedTests;
const failed = result.numFailedTests + brokenSuites;
const skipped = result.numPendingTests + result.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || Number(jestStatus) !== 0 ? 1 : 0);
