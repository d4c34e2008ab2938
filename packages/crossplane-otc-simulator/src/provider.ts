/**
 * The provider process's parts: per MR kind a reflector over the
 * infrastructure cluster and a controller (named as crossplane-runtime
 * names them, `managed/<plural>.<group>`), sharing the OTC clients, behind
 * the runtime's manager (metrics, probes, cache sync, shutdown).
 *
 * Rate limits as crossplane's `--max-reconcile-rate`: that many reconciles
 * at once per kind and that many retries per second, per-key backoff from
 * 1 s (or the poll interval, if shorter) to 60 s.
 */
import { collectionPath, objectPath, type ResourcePathParts } from "@edgeconnect/api";
import { getIfPresent, type RestClient } from "@edgeconnect/kcp-ts";
import {
  Controller,
  enqueueObject,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  Reflector,
  RuntimeMetrics,
  runManager,
  Store,
  TokenBucketRateLimiter,
  type ControllerLogger,
  type Source,
} from "@edgeconnect/runtime";
import type { SimulatorFlags } from "./cli/flags.js";
import { EXTERNAL_KINDS } from "./external/index.js";
import { OtcClients } from "./managed/otc-clients.js";
import { ManagedReconciler } from "./managed/reconciler.js";
import type { ManagedResource } from "./managed/resource.js";

/** Field manager of every write of this process. */
export const FIELD_MANAGER = "crossplane-otc-simulator";

/** A reconcile that takes longer is aborted (and retried): OTC calls have deadlines of their own well below it. */
const RECONCILE_TIMEOUT_MS = 120_000;

export interface ProviderOptions {
  /** The infrastructure cluster the MRs live on. */
  readonly client: RestClient;
  /** The command line's servers, poll, rate and test hooks; main.ts passes what it parsed. */
  readonly flags: Pick<
    SimulatorFlags,
    "metricsBindAddress" | "healthProbeBindAddress" | "pollIntervalMs" | "maxReconcileRate" | "otcEndpointOverride" | "namespace"
  >;
  readonly logger: ControllerLogger;
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
}

/** The kind the CRDs are, for objectPath. */
const CUSTOM_RESOURCE_DEFINITION: ResourcePathParts = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  scope: "Cluster",
};

/** The provider's CRDs that are not served by `client`, by resource name. */
export async function missingCrds(client: Pick<RestClient, "get">, signal?: AbortSignal): Promise<string[]> {
  const missing: string[] = [];
  for (const kind of EXTERNAL_KINDS) {
    const name = `${kind.plural}.${kind.group}`;
    if ((await getIfPresent(client, objectPath(CUSTOM_RESOURCE_DEFINITION, undefined, name), { signal })) === undefined) missing.push(name);
  }
  return missing;
}

/** Runs until `signal` aborts. */
export async function runProvider(options: ProviderOptions, signal: AbortSignal): Promise<void> {
  const { client, logger } = options;
  const { maxReconcileRate, pollIntervalMs, otcEndpointOverride, namespace } = options.flags;
  const metrics = new RuntimeMetrics();
  const clients = new OtcClients();
  const sources: Record<string, Source> = {};
  const controllers: Controller[] = [];
  for (const kind of EXTERNAL_KINDS) {
    const store = new Store<ManagedResource>();
    const controller = new Controller({
      name: `managed/${kind.plural}.${kind.group}`,
      reconciler: new ManagedReconciler({
        kind,
        store,
        client,
        clients,
        settings: otcEndpointOverride === undefined ? {} : { endpointOverride: otcEndpointOverride },
        fieldManager: FIELD_MANAGER,
        pollIntervalMs,
      }),
      maxConcurrentReconciles: maxReconcileRate,
      // One infrastructure cluster is one tenant: it may use every worker.
      maxInFlightPerTenant: maxReconcileRate,
      reconcileTimeoutMs: RECONCILE_TIMEOUT_MS,
      rateLimiter: new MaxOfRateLimiter(
        new ExponentialFailureRateLimiter({ baseDelayMs: Math.min(1_000, pollIntervalMs), maxDelayMs: 60_000 }),
        new TokenBucketRateLimiter({ qps: maxReconcileRate, burst: maxReconcileRate * 10 }),
      ),
      metrics,
      logger,
    });
    controllers.push(controller);
    sources[kind.plural] = new Reflector<ManagedResource>({
      client,
      path: collectionPath(kind, namespace),
      store,
      handlers: enqueueObject(controller),
      logger,
    });
  }
  try {
    await runManager({ flags: options.flags, metrics, sources, controllers, ...(options.onListening ? { onListening: options.onListening } : {}) }, signal);
  } finally {
    await clients.close();
  }
}
