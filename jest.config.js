// Two projects: `unit` runs in seconds without servers; `e2e` boots one real
// kcp and one infrastructure cluster per worker for the whole run
// (e2e/src/global-setup.ts) and holds the suites that need them, wherever they
// live (`*.int.test.ts` in packages, everything under e2e/tests). Type
// checking is `tsc -b`'s job; swc only strips types.
const shared = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "es6" } }],
  },
  // Workspace packages resolve to their TypeScript sources: no build needed.
  testEnvironmentOptions: { customExportConditions: ["source", "node", "node-addons"] },
};

export default {
  // The e2e suites wait on servers more than they compute, and run side by
  // side, each on servers of its own (global-setup starts one kcp and one
  // infrastructure cluster per worker; the sequencer keeps the suites that
  // share a fixed port or the CPU apart). Measured on two cores and 24 GiB
  // (fresh clones, warm Go cache, 2026-12-07/08): with two workers the cores
  // were 29 % idle and Jest took 1,033 s; with three, 853-972 s at 92 % busy,
  // but under that load 5 of 9 full runs failed: clusters not Ready within
  // their deadlines, the chaos run's clusters losing Ready once to a
  // Crossplane ReconcileError, a CCE cluster created twice. Two until the
  // suites hold under three. `-w N` on the command line overrides it.
  maxWorkers: 2,
  // The unit tests' timeout, Jest's 5 s unless a file sets its own (the e2e
  // suites' is e2e/src/timeouts.ts's). The workers share two cores with the
  // Go builds that a cold run does in the background, and a test that makes
  // RSA keys in JavaScript (the OTC simulator's certificates) took over 5 s
  // there; a timeout is no speed check.
  testTimeout: 30_000,
  // Longest suites first, from what the last run measured (e2e/time-budget.json).
  testSequencer: "<rootDir>/e2e/src/test-sequencer.mjs",
  projects: [
    {
      ...shared,
      displayName: "unit",
      testMatch: ["<rootDir>/packages/*/src/**/*.test.ts"],
      testPathIgnorePatterns: ["\\.int\\.test\\.ts$"],
    },
    {
      ...shared,
      displayName: "e2e",
      testMatch: ["<rootDir>/e2e/tests/**/*.test.ts", "<rootDir>/packages/*/src/**/*.int.test.ts"],
      globalSetup: "<rootDir>/e2e/src/global-setup.ts",
      globalTeardown: "<rootDir>/e2e/src/global-teardown.ts",
      setupFilesAfterEnv: ["<rootDir>/e2e/src/timeouts.ts"],
    },
  ],
};
