// Two projects: `unit` runs in seconds without servers; `e2e` boots one real
// kcp and one infrastructure cluster for the whole run (e2e/src/global-setup.ts)
// and holds the suites that need them, wherever they live (`*.int.test.ts` in
// packages, everything under e2e/tests). Type checking is `tsc -b`'s job;
// swc only strips types.
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
