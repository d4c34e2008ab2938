#!/usr/bin/env node
/**
 * `crossplane-otc-simulator`: plays Crossplane's OTC provider on an
 * infrastructure cluster for tests and the local demo. Reads flags, checks
 * that the provider's CRDs are installed (the package's `crds/`; tests and
 * the demo apply `crdObjects()` with testenv's `applyCrds`), and
 * reconciles until SIGTERM/SIGINT.
 *
 * Exit codes: 0 after a clean shutdown, 1 on a runtime failure, 2 on
 * unusable flags or a cluster without the CRDs, with the reason on stderr.
 * Logs are JSON lines on stdout; credentials never appear in them.
 */
import { RestClient } from "@edgeconnect/kcp-ts";
import { createLogger, readFlags, reportUncaughtErrors, shutdownSignal } from "@edgeconnect/runtime";
import { parseSimulatorFlags, USAGE } from "./cli/flags.js";
import { missingCrds, runProvider } from "./provider.js";

const NAME = "crossplane-otc-simulator";

function fail(message: string): void {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exitCode = 2;
}

async function main(): Promise<void> {
  const flags = readFlags(NAME, USAGE, parseSimulatorFlags);
  if (flags === undefined) return;
  let kube: RestClient;
  try {
    kube = flags.kubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.kubeconfig);
  } catch (err) {
    fail(`cannot load the kubeconfig: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const logger = createLogger();
  // A crash report goes through redaction like every other line.
  reportUncaughtErrors(logger);
  const shutdown = shutdownSignal(logger);
  try {
    const missing = await missingCrds(kube, AbortSignal.timeout(30_000));
    if (missing.length > 0) {
      fail(`the provider's CRDs are not installed on ${kube.server}: ${missing.join(", ")} (apply the CRDs in the package's crds/ folder)`);
      return;
    }
    logger.info(
      { pollIntervalMs: flags.pollIntervalMs, maxReconcileRate: flags.maxReconcileRate, namespace: flags.namespace ?? "(all)", otcEndpointOverride: flags.otcEndpointOverride },
      `starting ${NAME}`,
    );
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runProvider({ client: kube, flags, logger, onListening }, shutdown);
    logger.info({}, "stopped");
  } finally {
    kube.close();
  }
}

main().catch((err: unknown) => {
  createLogger().error({ err }, `${NAME} failed`);
  process.exitCode = 1;
});
