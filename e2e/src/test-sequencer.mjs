// The order Jest hands test files to its workers. Jest runs several e2e
// suites side by side (one kcp and infrastructure cluster per worker), so
// the run ends when the last worker does: the longest suites start first
// and the unit files, seconds each, fill the gaps at the end.
//
// A suite's expected time is Jest's own record of its last run on this
// machine, else the time committed in e2e/time-budget.json (a fresh clone,
// as in CI, has no record), else a minute. Files that failed last time
// still go first, as with Jest's default sequencer.
//
// It also tells the e2e global setup how many e2e suites this run holds,
// in EDGECONNECT_E2E_SUITES (read in global-setup.ts): no more
// environments are started than suites can use. Jest sorts before it runs
// the global setup, in the same process.
import jestTestSequencer from "@jest/test-sequencer";
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const budget = JSON.parse(readFileSync(new URL("../time-budget.json", import.meta.url), "utf8"));
const UNKNOWN_E2E_SECONDS = 60;

const isE2e = (test) => test.context.config.displayName?.name === "e2e";

// A CommonJS module marked __esModule: Node 24 gives its `default` export as
// the default import, older Node the whole module object.
const TestSequencer = jestTestSequencer.default ?? jestTestSequencer;

export default class EdgeconnectSequencer extends TestSequencer {
  sort(tests) {
    process.env.EDGECONNECT_E2E_SUITES = String(tests.filter(isE2e).length);
    const expected = (test) => {
      if (!isE2e(test)) return 0;
      const recorded = this.time(test);
      if (typeof recorded === "number") return recorded / 1000;
      return budget.seconds[relative(ROOT, test.path)] ?? UNKNOWN_E2E_SECONDS;
    };
    return [...tests].sort((a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || expected(b) - expected(a));
  }
}
