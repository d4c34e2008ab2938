/**
 * Suites that need what a machine may lack (a browser, a binary that cannot
 * be built) run where it is there and are skipped with the reason elsewhere,
 * except in CI (`CI=true`): CI provides everything the suites need, so there
 * a missing browser or binary fails the run instead of shrinking it quietly.
 * The kind path (`EDGECONNECT_E2E_INFRA=kind` without Docker) is opt-in and
 * stays a skip; it does not come through here.
 */

/**
 * True when nothing is `missing`. Otherwise warns that `suite` is skipped and
 * why, and returns false; with CI=true it throws instead, which fails the
 * test file that asked.
 */
export function provided(suite: string, missing: string | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (missing === undefined) return true;
  if (env.CI === "true") throw new Error(`${suite} cannot run in CI: ${missing}`);
  console.warn(`${suite} skipped: ${missing}`);
  return false;
}
