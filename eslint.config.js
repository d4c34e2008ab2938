// Type-aware linting for every TypeScript file. The rules that matter most
// for controllers are on by default in the type-checked preset:
// no-floating-promises and no-misused-promises catch an unawaited reconcile
// or a watch callback that swallows a rejection.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["**/dist/**", "**/node_modules/**", ".cache/**", "coverage/**"] },
  js.configs.recommended,
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      // Packages are used through their public entry point only.
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@edgeconnect/*/src/*", "@edgeconnect/*/dist/*"], message: "import the package entry point" }] },
      ],
    },
  },
  {
    // Test doubles implement async interfaces with synchronous bodies.
    files: ["**/*.test.ts", "**/*.fixture.ts"],
    rules: { "@typescript-eslint/require-await": "off" },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly", setTimeout: "readonly" } },
  },
);
