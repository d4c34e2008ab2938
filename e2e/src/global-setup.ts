/**
 * Boots the test environment once per Jest run: kcp and the infrastructure
 * cluster (kube-apiserver + kube-controller-manager + etcd, or kind with EDGECONNECT_E2E_INFRA=kind).
 * Workers find it through the state file named in EDGECONNECT_TESTENV_STATE;
 * tests isolate themselves by workspace and namespace, never by restarting
 * servers.
 *
 * Processes a test starts write their output under `.cache/e2e-logs/`
 * (emptied here: an earlier run's logs are not this run's), named to
 * workers, and to tests in packages that cannot import e2e code, in
 * `$EDGECONNECT_E2E_LOG_DIR`; the credential guard of the global teardown
 * reads it.
 */
import { REPO_ROOT, STATE_ENV_VAR, TestEnvironment } from "@edgeconnect/testenv";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

declare global {
  var edgeconnectTestEnvironment: TestEnvironment | undefined;
}

export default async function globalSetup(): Promise<void> {
  const log = (message: string): void => {
    process.stderr.write(`[testenv] ${message}\n`);
  };
  const logDir = join(REPO_ROOT, ".cache", "e2e-logs");
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  process.env.EDGECONNECT_E2E_LOG_DIR = logDir;
  log("starting kcp and the infrastructure cluster");
  const environment = await TestEnvironment.start({ log });
  globalThis.edgeconnectTestEnvironment = environment;
  process.env[STATE_ENV_VAR] = environment.writeStateFile();
}
