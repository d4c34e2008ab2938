/**
 * Boots the test environments once per Jest run, one per Jest worker that
 * runs e2e suites: kcp and the infrastructure cluster (kube-apiserver +
 * kube-controller-manager + etcd, or kind with EDGECONNECT_E2E_INFRA=kind).
 * Suites wait on servers far more than they compute, so several run side
 * by side; each worker finds its own environment through the state files
 * named in EDGECONNECT_TESTENV_STATE (`connectFromEnv`), so suites running
 * at the same time never share a server. Within a worker, suites run one
 * after another and isolate themselves by workspace and namespace, never
 * by restarting servers.
 *
 * Processes a test starts write their output under `.cache/e2e-logs/`
 * (emptied here: an earlier run's logs are not this run's), named to
 * workers, and to tests in packages that cannot import e2e code, in
 * `$EDGECONNECT_E2E_LOG_DIR`; the credential guard of the global teardown
 * reads it.
 */
import { e2eCredentialsDir, REPO_ROOT, STATE_ENV_VAR, TestEnvironment } from "@edgeconnect/testenv";
import { mkdirSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Set by test-sequencer.mjs, which Jest runs before the global setup: how many e2e suites this run holds. */
const E2E_SUITES_ENV_VAR = "EDGECONNECT_E2E_SUITES";

/** What the global setup reads of Jest's configuration. */
interface JestConfig {
  readonly maxWorkers: number;
  readonly runInBand: boolean;
}

declare global {
  var edgeconnectTestEnvironments: TestEnvironment[] | undefined;
}

export default async function globalSetup(globalConfig: JestConfig): Promise<void> {
  const log = (message: string): void => {
    process.stderr.write(`[testenv] ${message}\n`);
  };
  const logDir = join(REPO_ROOT, ".cache", "e2e-logs");
  rmSync(logDir, { recursive: true, force: true });
  // An interrupted run's generated credentials (the teardown removes a finished run's).
  const credentialsDir = e2eCredentialsDir(logDir);
  if (credentialsDir !== undefined) rmSync(credentialsDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  process.env.EDGECONNECT_E2E_LOG_DIR = logDir;
  const count = environmentCount(globalConfig);
  log(`starting ${count === 1 ? "kcp and the infrastructure cluster" : `${count} pairs of kcp and an infrastructure cluster, one per worker`}`);
  const started = await Promise.allSettled(Array.from({ length: count }, () => TestEnvironment.start({ log })));
  const environments = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) {
    // Jest runs no teardown after a failed setup.
    await Promise.all(environments.map((environment) => environment.stop()));
    throw failed.reason;
  }
  globalThis.edgeconnectTestEnvironments = environments;
  process.env[STATE_ENV_VAR] = environments.map((environment) => environment.writeStateFile()).join(delimiter);
}

/**
 * As many environments as workers that can run e2e suites at once: Jest's
 * worker count, but no more than the e2e suites of this run (the test
 * sequencer counted them); one when Jest runs in band.
 */
function environmentCount(globalConfig: JestConfig): number {
  if (globalConfig.runInBand) return 1;
  const suites = Number(process.env[E2E_SUITES_ENV_VAR] ?? "1");
  return Math.max(1, Math.min(globalConfig.maxWorkers, Number.isInteger(suites) ? suites : 1));
}
