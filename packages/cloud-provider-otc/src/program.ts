/**
 * `otc-cloud-controller-manager`: reads flags and cloud.conf, connects to the
 * workload cluster and to OTC, and runs the controllers until SIGTERM/SIGINT.
 *
 * Exit codes: 0 after a clean shutdown, 1 on a runtime failure (a lost
 * Lease included: the restart campaigns afresh), 2 on unusable flags or
 * configuration, with the reason on stderr and credentials never in it.
 */
import { readFileSync } from "node:fs";
import { RestClient } from "@edgeconnect/kcp-ts";
import { connectOtcClient } from "@edgeconnect/otc";
import { createLogger, exitOnLeadershipLost, instanceIdentity, readFlags, reportUncaughtErrors, shutdownSignal, sinceProcessStartMs } from "@edgeconnect/runtime";
import { parseCcmFlags, USAGE, type CcmFlags } from "./cli/flags.js";
import { parseCloudConfig, type CloudConfig } from "./config/cloud-config.js";
import { runControllerManager } from "./manager/controller-manager.js";

/** Flags and cloud.conf together: either being unusable is exit code 2. `--help` needs no cloud.conf. */
function configure(argv: readonly string[]): CcmFlags & { readonly parsedCloudConfig?: CloudConfig } {
  const flags = parseCcmFlags(argv);
  if (flags.help) return flags;
  const text = flags.cloudConfig === undefined ? "" : readFileSync(flags.cloudConfig, "utf8");
  return { ...flags, parsedCloudConfig: parseCloudConfig(text) };
}

async function main(): Promise<void> {
  // Every static import has been evaluated by now: what loading the program costs, for the start line.
  const modulesLoadedMs = sinceProcessStartMs();
  const configured = readFlags("otc-cloud-controller-manager", USAGE, configure);
  if (configured?.parsedCloudConfig === undefined) return;
  const { parsedCloudConfig: cloudConfig, ...flags } = configured;
  const logger = createLogger();
  // A crash report goes through redaction like every other line.
  reportUncaughtErrors(logger);
  const { global } = cloudConfig;
  const kube = flags.kubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.kubeconfig);
  const otc = await connectOtcClient({
    credentials: { accessKey: global.accessKey, secretKey: global.secretKey, ...(global.securityToken ? { securityToken: global.securityToken } : {}) },
    region: global.region,
    projectName: global.projectName,
    ...(global.projectId ? { projectId: global.projectId } : {}),
    endpoints: global.endpoints,
  });
  const shutdown = shutdownSignal(logger);
  const identity = instanceIdentity();
  logger.info({ identity, modulesLoadedMs, region: global.region, controllers: [...flags.controllers] }, "starting otc-cloud-controller-manager");
  try {
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runControllerManager({ flags, cloudConfig, kube, otc, logger, identity, onListening }, shutdown);
  } finally {
    otc.close();
    kube.close();
  }
}

main().catch((err: unknown) => {
  const logger = createLogger();
  logger.error({ err }, "otc-cloud-controller-manager failed");
  process.exitCode = 1;
  // A lost Lease ends the process even while a reconcile that ignores its signal still runs: another replica may lead now.
  exitOnLeadershipLost(err, { log: logger });
});
