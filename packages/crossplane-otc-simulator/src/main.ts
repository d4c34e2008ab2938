#!/usr/bin/env node
/**
 * `crossplane-otc-simulator`: plays Crossplane's OTC provider on an
 * infrastructure cluster for tests and the local demo. Reads flags, checks
 * that the provider's CRDs are installed (`installCrds` installs them), and
 * reconciles until SIGTERM/SIGINT.
 *
 * Exit codes: 0 after a clean shutdown, 1 on a runtime failure, 2 on
 * unusable flags or a cluster without the CRDs, with the reason on stderr.
 * Logs are JSON lines on stdout; credentials never appear in them.
 */
import { RestClient } from "@edgeconnect/kcp-ts";
import { createLogger } from "@edgeconnect/runtime";
import { parseSimulatorFlags, USAGE, type SimulatorFlags } from "./cli/flags.js";
import { missingCrds, runProvider } from "./provider.js";

const NAME = "crossplane-otc-simulator";

function fail(message: string, usage: boolean): void {
  process.stderr.write(`${NAME}: ${message}\n${usage ? `\n${USAGE}` : ""}`);
  process.exitCode = 2;
}

function configure(argv: readonly string[]): SimulatorFlags | undefined {
  try {
    const flags = parseSimulatorFlags(argv);
    if (flags.help) {
      process.stdout.write(USAGE);
      return undefined;
    }
    return flags;
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), true);
    return undefined;
  }
}

async function main(): Promise<void> {
  const flags = configure(process.argv.slice(2));
  if (flags === undefined) return;
  let kube: RestClient;
  try {
    kube = flags.kubeconfig === undefined ? RestClient.fromCluster() : RestClient.fromFile(flags.kubeconfig);
  } catch (err) {
    fail(`cannot load the kubeconfig: ${err instanceof Error ? err.message : String(err)}`, false);
    return;
  }
  const logger = createLogger();
  const shutdown = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      shutdown.abort();
    });
  }
  try {
    const missing = await missingCrds(kube, AbortSignal.timeout(30_000));
    if (missing.length > 0) {
      fail(`the provider's CRDs are not installed on ${kube.server}: ${missing.join(", ")} (install them with installCrds from @edgeconnect/crossplane-otc-simulator)`, false);
      return;
    }
    logger.info(
      { pollIntervalMs: flags.pollIntervalMs, maxReconcileRate: flags.maxReconcileRate, namespace: flags.namespace ?? "(all)", otcEndpointOverride: flags.otcEndpointOverride },
      `starting ${NAME}`,
    );
    const onListening = (ports: { metrics: number; probes: number }): void => logger.info(ports, "serving metrics and probes");
    await runProvider(
      {
        client: kube,
        flags,
        pollIntervalMs: flags.pollIntervalMs,
        maxReconcileRate: flags.maxReconcileRate,
        ...(flags.otcEndpointOverride === undefined ? {} : { endpointOverride: flags.otcEndpointOverride }),
        ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
        logger,
        onListening,
      },
      shutdown.signal,
    );
    logger.info({}, "stopped");
  } finally {
    kube.close();
  }
}

main().catch((err: unknown) => {
  createLogger().error({ err }, `${NAME} failed`);
  process.exitCode = 1;
});
