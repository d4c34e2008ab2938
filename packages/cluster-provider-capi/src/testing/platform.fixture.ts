/**
 * A platform cluster for the provider's integration tests: a kube-apiserver
 * of its own (the controllers watch every namespace, and would act on other
 * suites' objects on the shared one) with openMCP's CRDs, ours, and the
 * Cluster API and operator CRDs the controllers read and write, all from the
 * pinned modules; and the provider's `run` in this process against it.
 *
 * Without Cluster API's managers or the operator running, nobody writes
 * those kinds' status: a test that needs it writes it, playing that
 * component, and says so.
 */
import { readFileSync } from "node:fs";
import { CRD_FILES } from "@edgeconnect/capi-provider-api";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { createLogger, RuntimeMetrics } from "@edgeconnect/runtime";
import {
  applyCrds,
  e2eLogStream,
  installOpenMcpCrds,
  KubeApiServer,
  parseManifests,
  providerComponents,
  Reaper,
  resolveControlPlaneBinaries,
} from "@edgeconnect/testenv";
import { parseProviderFlags } from "../cli/flags.js";
import { runProviderManager } from "../manager/provider-manager.js";
import type { WorkloadClusters } from "../access-request/workload-cluster.js";

export const ENVIRONMENT = "test";
export const PROVIDER_NAME = "capi";

export interface Platform {
  readonly server: KubeApiServer;
  readonly client: RestClient;
  readonly reaper: Reaper;
  stop(): Promise<void>;
}

/** A kube-apiserver with every CRD the provider touches, Established. */
export async function startPlatform(): Promise<Platform> {
  const reaper = Reaper.start();
  const server = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper });
  const client = server.adminClient();
  await installOpenMcpCrds(client);
  const moduleCrds = await Promise.all((["core", "operator"] as const).map(async (manager) => crdsOf((await providerComponents(manager)).components)));
  const own = CRD_FILES.flatMap((file) => parseManifests(readFileSync(file, "utf8")));
  await applyCrds(client, [...moduleCrds.flat(), ...own]);
  return {
    server,
    client,
    reaper,
    stop: async () => {
      client.close();
      await server.stop();
      await reaper.close();
    },
  };
}

function crdsOf(components: string): KubeObject[] {
  return parseManifests(components).filter((obj) => obj.kind === "CustomResourceDefinition");
}

export interface RunningProvider {
  stop(): Promise<void>;
}

/** The provider's `run` in this process, as `--environment=test --provider-name=capi` (or `providerName`) with metrics and probes off. */
export function runProvider(platform: Platform, options: { readonly workloads?: WorkloadClusters; readonly logName?: string; readonly providerName?: string } = {}): RunningProvider {
  const flags = parseProviderFlags(
    [
      "run",
      `--environment=${ENVIRONMENT}`,
      `--provider-name=${options.providerName ?? PROVIDER_NAME}`,
      "--verbosity=DEBUG",
      "--metrics-bind-address=0",
      "--health-probe-bind-address=0",
      "--access-namespace=openmcp-access",
      "--leader-elect-resource-namespace=kube-system",
    ],
    {},
  );
  if (flags.command !== "run") throw new Error("the provider's run flags parsed as another command");
  const stop = new AbortController();
  const destination = e2eLogStream(options.logName ?? "cluster-provider-capi");
  const logger = createLogger({ level: "debug", ...(destination === undefined ? {} : { destination }) });
  // A run that fails is reported by stop(); until then the test sees it through the conditions it waits for.
  const done = runProviderManager(
    { flags, client: platform.server.adminClient(), logger, identity: "test", metrics: new RuntimeMetrics(), ...(options.workloads ? { workloads: options.workloads } : {}) },
    stop.signal,
  );
  done.catch(() => undefined);
  return {
    stop: async () => {
      stop.abort();
      await done;
    },
  };
}
