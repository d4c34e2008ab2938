/**
 * Boots the test environment once per Jest run: kcp and the infrastructure
 * cluster (kube-apiserver + etcd, or kind with EDGECONNECT_E2E_INFRA=kind).
 * Workers find it through the state file named in EDGECONNECT_TESTENV_STATE;
 * tests isolate themselves by workspace and namespace, never by restarting
 * servers.
 */
import { STATE_ENV_VAR, TestEnvironment } from "@edgeconnect/testenv";

declare global {
  var edgeconnectTestEnvironment: TestEnvironment | undefined;
}

export default async function globalSetup(): Promise<void> {
  const log = (message: string): void => {
    process.stderr.write(`[testenv] ${message}\n`);
  };
  log("starting kcp and the infrastructure cluster");
  const environment = await TestEnvironment.start({ log });
  globalThis.edgeconnectTestEnvironment = environment;
  process.env[STATE_ENV_VAR] = environment.writeStateFile();
}
