#!/usr/bin/env node
/**
 * `otc-cloud-controller-manager`: reads flags and cloud.conf, connects to the
 * workload cluster and to OTC, and runs the controllers until SIGTERM/SIGINT.
 *
 * Exit codes: 0 after a clean shutdown, 1 on a runtime failure (a lost
 * Lease included: the restart campaigns afresh), 2 on unusable flags or
 * configuration, with the reason on stderr and credentials never in it.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { RestClient } from "@edgeconnect/kcp-ts";
import { connectOtcClient } from "@edgeconnect/otc";
import { createLogger } from "@edgeconnect/runtime";
import { parseCcmFlags, USAGE, type CcmFlags } from "./cli/flags.js";
import { parseCloudConfig, type CloudConfig } from "./config/cloud-config.js";
import { runControllerManager } from "./manager/controller-manager.js";

function configure(argv: readonly string[]): { flags: CcmFlags; cloudConfig: CloudConfig } | undefined {
  try {
    const flags = parseCcmFlags(argv);
    if (flags.help) {
      process.stdout.write(USAGE);
      return undefined;
    }
    const text = flags.cloudConfig === undefined ? "" : readFileSync(flags.cloudConfig, "utf8");
    return { flags, cloudConfig: parseCloudConfig(text) };
  } catch (err) {
    process.stderr.write(`otc-cloud-controller-manager: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const configured = configure(process.argv.slice(2));
  if (configured === undefined) return;
  const { flags, cloudConfig } = configured;
  const logger = createLogger();
  const { global } = cloudConfig;
  const kube = flags.kubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.kubeconfig);
  const otc = await connectOtcClient({
    credentials: { accessKey: global.accessKey, secretKey: global.secretKey, ...(global.securityToken ? { securityToken: global.securityToken } : {}) },
    region: global.region,
    projectName: global.projectName,
    ...(global.projectId ? { projectId: global.projectId } : {}),
    endpoints: global.endpoints,
  });
  const shutdown = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      shutdown.abort();
    });
  }
  const identity = `${hostname()}_${randomBytes(8).toString("hex")}`;
  logger.info({ identity, region: global.region, controllers: [...flags.controllers] }, "starting otc-cloud-controller-manager");
  try {
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runControllerManager({ flags, cloudConfig, kube, otc, logger, identity, onListening }, shutdown.signal);
  } finally {
    otc.close();
    kube.close();
  }
}

main().catch((err: unknown) => {
  createLogger().error({ err }, "otc-cloud-controller-manager failed");
  process.exitCode = 1;
});
