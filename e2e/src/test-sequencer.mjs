// The order Jest hands test files to its workers. Jest runs several e2e
// suites side by side (one kcp and infrastructure cluster per worker), so
// the run ends when the last worker does: the longest suites start first.
// The unit files, seconds each, go before them all: filling the gaps at the
// end, they ran beside the heaviest suites, and their 5 s timeouts failed
// under that load.
//
// A suite's expected time is Jest's own record of its last run on this
// machine, else the time committed in e2e/time-budget.json (a fresh clone,
// as in CI, has no record), else a minute. Files that failed last time
// still go first, as with Jest's default sequencer.
//
// Some suites must not run at the same time (time-budget.json's
// "exclusive"): those that take the same machine-wide lock (the Cluster API
// stacks with the in-memory provider, which binds fixed ports) run one after
// another whatever the order, and started together all but one would hold a
// worker doing nothing; and the two that load the machine most (the chaos
// run; the sharded controller, whose exactly-once certificate check a
// starved OTC simulator answering after the client's deadline breaks) each
// need the machine's spare CPU. The order is therefore that of a simulated
// run: each time a worker frees up it takes the longest suite none of whose
// group runs by then.
//
// It also tells the e2e global setup how many e2e suites this run holds,
// in EDGECONNECT_E2E_SUITES (read in global-setup.ts): no more
// environments are started than suites can use. Jest sorts before it runs
// the global setup, in the same process.
import jestTestSequencer from "@jest/test-sequencer";
import { readFileSync } from "node:fs";
import { relative } from "node:path";

// A CommonJS module marked __esModule: Node 24 gives its `default` export as
// the default import, older Node the whole module object.
const TestSequencer = jestTestSequencer.default ?? jestTestSequencer;

const ROOT = new URL("../../", import.meta.url).pathname;
const budget = JSON.parse(readFileSync(new URL("../time-budget.json", import.meta.url), "utf8"));
const UNKNOWN_E2E_SECONDS = 60;

const isE2e = (test) => test.context.config.displayName?.name === "e2e";
const groupOf = (test) => Object.entries(budget.exclusive).find(([, files]) => files.includes(relative(ROOT, test.path)))?.[0];

export default class EdgeconnectSequencer extends TestSequencer {
  constructor(options) {
    super(options);
    this.workers = options.globalConfig.maxWorkers;
  }

  sort(tests) {
    process.env.EDGECONNECT_E2E_SUITES = String(tests.filter(isE2e).length);
    const expected = (test) => {
      if (!isE2e(test)) return 0;
      const recorded = this.time(test);
      if (typeof recorded === "number") return recorded / 1000;
      return budget.seconds[relative(ROOT, test.path)] ?? UNKNOWN_E2E_SECONDS;
    };
    const sorted = [...tests].sort(
      (a, b) => Number(isE2e(a)) - Number(isE2e(b)) || Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || expected(b) - expected(a),
    );
    return simulatedOrder(sorted, expected, this.workers);
  }
}

/** The order in which `workers` workers, each taking the first suite none of whose group runs when it frees up, would start `sorted`. */
function simulatedOrder(sorted, expected, workers) {
  const freeAt = Array.from({ length: Math.max(1, workers) }, () => 0);
  const groupFreeAt = new Map();
  const queue = [...sorted];
  const order = [];
  while (queue.length > 0) {
    const worker = freeAt.indexOf(Math.min(...freeAt));
    const now = freeAt[worker];
    const free = queue.findIndex((test) => (groupFreeAt.get(groupOf(test)) ?? 0) <= now);
    // Every suite left waits on its group: the first of them waits least long in the run too.
    const [test] = queue.splice(free === -1 ? 0 : free, 1);
    const group = groupOf(test);
    const end = Math.max(now, groupFreeAt.get(group) ?? 0) + expected(test);
    if (group !== undefined) groupFreeAt.set(group, end);
    freeAt[worker] = end;
    order.push(test);
  }
  return order;
}
