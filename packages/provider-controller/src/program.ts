/**
 * `provider-controller`: reads flags, connects to kcp (the provider
 * workspace) and to the infrastructure cluster, and runs the controllers
 * until SIGTERM/SIGINT.
 *
 * Exit codes, as the OTC cloud controller manager's: 0 after a clean
 * shutdown, 1 on a runtime failure (a lost Lease included: the restart
 * campaigns afresh), 2 on unusable flags, with the reason on stderr.
 */
import { RestClient } from "@edgeconnect/kcp-ts";
import { createLogger, exitOnLeadershipLost, instanceIdentity, readFlags, reportUncaughtErrors, shutdownSignal, sinceProcessStartMs } from "@edgeconnect/runtime";
import { parseProviderControllerFlags, USAGE } from "./cli/flags.js";
import { runProviderManager } from "./manager/provider-manager.js";

async function main(): Promise<void> {
  // Every static import has been evaluated by now: what loading the program costs, for the start line.
  const modulesLoadedMs = sinceProcessStartMs();
  const flags = readFlags("provider-controller", USAGE, parseProviderControllerFlags);
  if (flags === undefined) return;
  const logger = createLogger();
  // A crash report goes through redaction like every other line.
  reportUncaughtErrors(logger);
  const kcp = RestClient.fromFile(flags.kcpKubeconfig);
  const infra = flags.infraKubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.infraKubeconfig);
  const shutdown = shutdownSignal(logger);
  const identity = instanceIdentity();
  logger.info({ identity, modulesLoadedMs, slice: flags.apiExportEndpointSlice }, "starting provider-controller");
  try {
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runProviderManager({ flags, kcp, infra, logger, identity, onListening }, shutdown);
  } finally {
    kcp.close();
    infra.close();
  }
}

main().catch((err: unknown) => {
  const logger = createLogger();
  logger.error({ err }, "provider-controller failed");
  process.exitCode = 1;
  // A lost Lease ends the process even while a reconcile that ignores its signal still runs: another replica may lead now.
  exitOnLeadershipLost(err, { log: logger });
});
