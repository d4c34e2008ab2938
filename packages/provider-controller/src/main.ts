#!/usr/bin/env node
/**
 * `provider-controller`: reads flags, connects to kcp (the provider
 * workspace) and to the infrastructure cluster, and runs the controllers
 * until SIGTERM/SIGINT.
 *
 * Exit codes, as the OTC cloud controller manager's: 0 after a clean
 * shutdown, 1 on a runtime failure (a lost Lease included: the restart
 * campaigns afresh), 2 on unusable flags, with the reason on stderr.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { RestClient } from "@edgeconnect/kcp-ts";
import { createLogger } from "@edgeconnect/runtime";
import { parseProviderControllerFlags, USAGE, type ProviderControllerFlags } from "./cli/flags.js";
import { runProviderManager } from "./manager/provider-manager.js";

function configure(argv: readonly string[]): ProviderControllerFlags | undefined {
  try {
    const flags = parseProviderControllerFlags(argv);
    if (flags.help) {
      process.stdout.write(USAGE);
      return undefined;
    }
    return flags;
  } catch (err) {
    process.stderr.write(`provider-controller: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const flags = configure(process.argv.slice(2));
  if (flags === undefined) return;
  const logger = createLogger();
  const kcp = RestClient.fromFile(flags.kcpKubeconfig);
  const infra = flags.infraKubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.infraKubeconfig);
  const shutdown = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      shutdown.abort();
    });
  }
  const identity = `${hostname()}_${randomBytes(8).toString("hex")}`;
  logger.info({ identity, slice: flags.apiExportEndpointSlice }, "starting provider-controller");
  try {
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runProviderManager({ flags, kcp, infra, logger, identity, onListening }, shutdown.signal);
  } finally {
    kcp.close();
    infra.close();
  }
}

main().catch((err: unknown) => {
  createLogger().error({ err }, "provider-controller failed");
  process.exitCode = 1;
});
