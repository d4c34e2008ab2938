// Prints the one line CI reads, `N passed, N failed[, N skipped]`, from Jest's
// JSON report, and exits non-zero if anything failed. A suite that could not
// run (a syntax error, a failing beforeAll) has no failed tests of its own, so
// it counts as one failure; a missing report means Jest never got to run.
// The e2e credential guard's report, when named, counts as one more test: it
// fails when it found a credential, could not run, or is missing (then the
// e2e project's teardown never ran the guard).
import { existsSync, readFileSync } from "node:fs";

const [report, jestStatus = "0", guardReport] = process.argv.slice(2);
if (!report || !existsSync(report)) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const result = JSON.parse(readFileSync(report, "utf8"));
const brokenSuites = result.testResults.filter(
  (suite) => suite.status === "failed" && suite.assertionResults.every((test) => test.status !== "failed"),
).length;
const guardPassed = guardReport === undefined ? undefined : credentialGuardPassed(guardReport);
const passed = result.numPassedTests + (guardPassed === true ? 1 : 0);
const failed = result.numFailedTests + brokenSuites + (guardPassed === false ? 1 : 0);
const skipped = result.numPendingTests + result.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || Number(jestStatus) !== 0 ? 1 : 0);

function credentialGuardPassed(path) {
  if (!existsSync(path)) {
    console.error("credential guard: no report; the e2e project's global teardown did not run it");
    return false;
  }
  const guard = JSON.parse(readFileSync(path, "utf8"));
  return guard.error === undefined && guard.findings.length === 0;
}
