/**
 * The e2e time budget: the wall time of every e2e suite (the `e2e` Jest
 * project: e2e/tests and the packages' `*.int.test.ts`) is read from Jest's
 * JSON report, the ten longest are printed, and the run fails when their
 * sum grows past the budget in e2e/time-budget.json. The sum, not the run's
 * wall time, is what a new suite adds whatever the worker count, so a
 * raise of the budget is a visible change to that file. The same file
 * holds each suite's last measured time, from which the test sequencer
 * (test-sequencer.mjs) starts the longest suites first, and the groups of
 * suites that must not run at the same time.
 *
 * scripts/test-summary.mjs uses it from the build (e2e/dist).
 */

/** The part of Jest's `--json` report read here. */
export interface JestReport {
  readonly testResults: readonly { readonly name: string; readonly startTime: number; readonly endTime: number }[];
}

/** e2e/time-budget.json. */
export interface TimeBudget {
  /** The most the e2e suites' wall times may add up to, in seconds. */
  readonly budgetSeconds: number;
  /** Each suite's wall time (path from the repository root) when the budget was last set. */
  readonly seconds: Readonly<Record<string, number>>;
  /** Suites that must not run at the same time (one machine-wide lock, or the machine's spare CPU), by group: the sequencer never starts two of one group together. */
  readonly exclusive: Readonly<Record<string, readonly string[]>>;
}

export interface SuiteTime {
  /** The suite's path from the repository root. */
  readonly file: string;
  readonly seconds: number;
}

export interface BudgetCheck {
  readonly totalSeconds: number;
  readonly budgetSeconds: number;
  readonly passed: boolean;
}

/** Which files the e2e Jest project runs (jest.config.js's testMatch of that project). */
export function isE2eSuite(file: string): boolean {
  return /^e2e\/tests\/.+\.test\.ts$/.test(file) || /^packages\/[^/]+\/src\/.+\.int\.test\.ts$/.test(file);
}

/** The e2e suites' wall times, longest first; `root` is the repository root the report's absolute paths start with. */
export function suiteTimes(report: JestReport, root: string): SuiteTime[] {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return report.testResults
    .map((suite) => ({ file: suite.name.startsWith(prefix) ? suite.name.slice(prefix.length) : suite.name, seconds: (suite.endTime - suite.startTime) / 1000 }))
    .filter((suite) => isE2eSuite(suite.file))
    .sort((a, b) => b.seconds - a.seconds);
}

export function checkBudget(times: readonly SuiteTime[], budget: TimeBudget): BudgetCheck {
  const totalSeconds = times.reduce((sum, suite) => sum + suite.seconds, 0);
  return { totalSeconds, budgetSeconds: budget.budgetSeconds, passed: totalSeconds <= budget.budgetSeconds };
}

/** The lines the test command prints: the `top` longest suites, the sum, and the budget's verdict. */
export function describeTimes(times: readonly SuiteTime[], check: BudgetCheck, top = 10): string[] {
  const width = Math.max(...times.slice(0, top).map((suite) => suite.file.length), 0);
  return [
    `the ${Math.min(top, times.length)} longest of ${times.length} e2e suites (wall time, s):`,
    ...times.slice(0, top).map((suite) => `  ${suite.file.padEnd(width)}  ${suite.seconds.toFixed(1).padStart(6)}`),
    `e2e suites' wall times add up to ${check.totalSeconds.toFixed(0)} s of a budget of ${check.budgetSeconds} s (e2e/time-budget.json)` +
      (check.passed ? "" : `: over budget by ${(check.totalSeconds - check.budgetSeconds).toFixed(0)} s; make the suites faster, or raise the budget there and say why`),
  ];
}
