/**
 * `cluster-provider-capi init|run`, the two commands openMCP's
 * ClusterProvider runs from one image.
 *
 * Exit codes: 0 when init is done or run shut down cleanly; 1 on a failure
 * (init's deadline passing, a lost Lease: the Job or Deployment restarts);
 * 2 on unusable flags or init configuration, with the reason on stderr.
 */
import { readFileSync } from "node:fs";
import { RestClient } from "@edgeconnect/kcp-ts";
import { createLogger, exitOnLeadershipLost, instanceIdentity, readFlags, reportUncaughtErrors, shutdownSignal, sinceProcessStartMs } from "@edgeconnect/runtime";
import { logLevel, parseProviderFlags, USAGE, type InitFlags, type ProviderFlags } from "./cli/flags.js";
import { DEFAULT_INIT_CONFIGURATION, parseInitConfiguration, type InitConfiguration } from "./init/init-configuration.js";
import { install } from "./init/install.js";
import { runProviderManager } from "./manager/provider-manager.js";

/** Flags and the init configuration together: either being unusable is exit code 2. */
function configure(argv: readonly string[]): ProviderFlags & { readonly initConfiguration?: InitConfiguration } {
  const flags = parseProviderFlags(argv);
  if (flags.command !== "init" || flags.help) return flags;
  return { ...flags, initConfiguration: flags.config === undefined ? DEFAULT_INIT_CONFIGURATION : parseInitConfiguration(readFileSync(flags.config, "utf8")) };
}

async function main(): Promise<void> {
  // Every static import has been evaluated by now: what loading the program costs, for the start line.
  const modulesLoadedMs = sinceProcessStartMs();
  const flags = readFlags("cluster-provider-capi", USAGE, configure);
  if (flags === undefined || flags.command === "help") return;
  const logger = createLogger({ level: logLevel(flags.verbosity) });
  // A crash report goes through redaction like every other line.
  reportUncaughtErrors(logger);
  const client = flags.kubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.kubeconfig);
  const shutdown = shutdownSignal(logger);
  const context = { command: flags.command, environment: flags.environment, providerName: flags.providerName };
  try {
    if (flags.command === "init") {
      logger.info(context, "starting cluster-provider-capi init");
      await runInit(flags, flags.initConfiguration ?? DEFAULT_INIT_CONFIGURATION, client, logger, shutdown);
      return;
    }
    const identity = instanceIdentity();
    logger.info({ ...context, identity, modulesLoadedMs }, "starting cluster-provider-capi");
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runProviderManager({ flags, client, logger, identity, onListening }, shutdown);
  } finally {
    client.close();
  }
}

async function runInit(flags: InitFlags, configuration: InitConfiguration, client: RestClient, logger: ReturnType<typeof createLogger>, shutdown: AbortSignal): Promise<void> {
  const signal = AbortSignal.any([shutdown, AbortSignal.timeout(flags.timeoutMs)]);
  await install({ client, configuration, logger, signal });
}

main().catch((err: unknown) => {
  const logger = createLogger();
  logger.error({ err }, "cluster-provider-capi failed");
  process.exitCode = 1;
  // A lost Lease ends the process even while a reconcile that ignores its signal still runs: another replica may lead now.
  exitOnLeadershipLost(err, { log: logger });
});
