/**
 * Assembles the provider-controller: the APIExport's virtual workspaces
 * (our kinds and the claimed Secrets of every bound workspace), the flavor
 * catalogue in the provider workspace, our managed resources on the
 * infrastructure cluster and, with `--cluster-api`, the template sets and
 * our Cluster API Clusters there, two controllers, tenant Events, the OTC
 * gateway, metrics and probes, and either leader election on a Lease in the
 * provider workspace or, `--sharded`, tenants split across the replicas by
 * slot Leases there. The orphan audit runs where the controllers do (the
 * leader; sharded, each replica on its share). The infrastructure cluster's
 * caches do not gate the controllers: while it is away, tenants are told so.
 *
 * Owns wiring only: which change wakes which object.
 */
import { collectionPath, PROVIDER_MACHINE_FLAVOR_RESOURCE, type KubernetesCluster, type ProviderMachineFlavor } from "@edgeconnect/api";
import { clusterOf, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { CLUSTER_API_CLUSTER } from "@edgeconnect/provisioning";
import {
  ApiExportSource,
  combineHandlers,
  Controller,
  enqueueMapped,
  enqueueObject,
  EventRecorder,
  leaseElection,
  leaseTimings,
  Reflector,
  releaseTenantSecrets,
  RuntimeMetrics,
  runManager,
  Store,
  TenantShards,
  type ClusterScope,
  type ControllerLogger,
  type DeepReadonly,
  type Request,
  type RequestSink,
} from "@edgeconnect/runtime";
import { OrphanAudit } from "../audit/orphan-audit.js";
import type { ProviderControllerFlags } from "../cli/flags.js";
import { InfrastructureCluster } from "../infrastructure/infrastructure-cluster.js";
import { ownerRequest } from "../infrastructure/owner.js";
import { watchTemplateSets } from "../infrastructure/template-sets.js";
import { KubernetesClusterReconciler } from "../kubernetes-cluster/kubernetes-cluster-reconciler.js";
import { CACHED_KINDS } from "../kubernetes-cluster/observed-infrastructure.js";
import { ProviderMetrics } from "../metrics/provider-metrics.js";
import { SupersededProviderConfigs } from "../kubernetes-cluster/superseded-provider-configs.js";
import { OtcGateway } from "../otc/otc-gateway.js";
import { ProviderConfigReconciler } from "../provider-config/provider-config-reconciler.js";
import { tenantResources } from "../tenant/tenant-resources.js";
import { eventMappers, requestOf, whenClusterLeaves } from "./event-mappers.js";

export const COMPONENT = "provider-controller";

export interface ProviderManagerOptions {
  readonly flags: ProviderControllerFlags;
  /** On the provider workspace. */
  readonly kcp: RestClient;
  readonly infra: RestClient;
  readonly logger: ControllerLogger;
  readonly identity: string;
  readonly metrics?: RuntimeMetrics;
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
}

type Cluster = DeepReadonly<KubernetesCluster & KubeObject>;

/** Runs until `signal` aborts; rejects with LeadershipLostError when the Lease is lost. */
export async function runProviderManager(options: ProviderManagerOptions, signal: AbortSignal): Promise<void> {
  const { flags, logger } = options;
  const metrics = options.metrics ?? new RuntimeMetrics();
  const providerMetrics = new ProviderMetrics({ metrics, clusters: () => clusters() });
  const gateway = new OtcGateway({
    concurrency: flags.otcConcurrencyPerCredentials,
    timeoutMs: flags.otcTimeoutMs,
    verdictTtlMs: flags.credentialCacheTtlMs,
    observer: providerMetrics,
  });
  // The handlers below run only once the sources have started, when everything they name exists.
  const clusterSink: RequestSink = { enqueue: (request) => clusterController.enqueue(request) };
  const configSink: RequestSink = { enqueue: (request) => configController.enqueue(request) };
  const clusters = (): Cluster[] => source.list(resources.clusters);
  const mappers = eventMappers({
    clusters: (index, value) => source.byIndex(resources.clusters, index, value),
    providerConfigs: (index, value) => source.byIndex(resources.providerConfigs, index, value),
  });

  const resources = tenantResources({
    clusters: combineHandlers(enqueueObject(clusterSink), whenClusterLeaves(clusterSink, mappers.clustersOverQuotaBeside), providerMetrics.clusterHandlers()),
    providerConfigs: combineHandlers(enqueueObject(configSink), enqueueMapped(clusterSink, mappers.clustersUsingConfig)),
    capabilities: enqueueMapped(clusterSink, mappers.clustersUsingCapabilities),
    secrets: combineHandlers(enqueueMapped(configSink, mappers.configsReadingSecret), enqueueMapped(clusterSink, mappers.clustersOfSecret)),
  });
  const source = new ApiExportSource({
    provider: options.kcp,
    sliceName: flags.apiExportEndpointSlice,
    resources: [resources.clusters, resources.providerConfigs, resources.capabilities, resources.secrets],
    onDisengage: (cluster) => {
      for (const controller of [clusterController, configController]) controller.abortInFlight((request) => request.cluster === cluster, "the workspace left this controller's view");
      releaseTenantSecrets(cluster);
    },
    logger,
  });
  // Events outlive the reconcile that records them: their client is bound to no reconcile's signal.
  const unbound = new AbortController().signal;
  const recorder = new EventRecorder({
    client: (regarding) => {
      const cluster = clusterOf(regarding);
      return cluster === undefined ? undefined : source.scopeFor(cluster, unbound)?.client;
    },
    component: COMPONENT,
    instance: options.identity,
    logger,
    audience: "tenant",
  });

  const flavors = new Store<ProviderMachineFlavor & KubeObject>();
  // A change in whether the infrastructure answers concerns every cluster: rare, so a wake of all of them is fine. A pass
  // waiting on the infrastructure when it goes is ended at once, so that its tenant hears why now, not at the call's deadline.
  const onReachabilityChange = (reachable: boolean): void => {
    if (!reachable) clusterController.abortInFlight(() => true, "the infrastructure cluster does not answer");
    wakeAll();
  };
  const infra = new InfrastructureCluster(options.infra, logger, { onReachabilityChange });
  // Every tenant's clusters made from a template set are woken by its change: the set is the platform's, shared by all.
  const templateSets = flags.clusterApi ? watchTemplateSets(options.infra, enqueueMapped(clusterSink, mappers.clustersUsingTemplateSet), logger) : undefined;
  if (templateSets !== undefined) infra.track("templatesets", templateSets.reflector);
  const context = {
    resources,
    gateway,
    allowedAuthUrls: flags.allowedAuthUrls,
    infra,
    flavors: () => flavors.list(),
    kubeconfigValidityDays: flags.kubeconfigValidityDays,
    now: () => new Date(),
    recorder,
    supersededProviderConfigs: new SupersededProviderConfigs(),
    maxClustersPerWorkspace: flags.maxClustersPerWorkspace,
    teardowns: providerMetrics,
    ...(templateSets === undefined ? {} : { clusterApi: { templateSets: templateSets.sets } }),
  };
  const scope = (request: Request, reconcileSignal: AbortSignal): ClusterScope | undefined => source.scopeFor(request.cluster, reconcileSignal);
  // The Leases live in the provider workspace on kcp, as the leader's does (below), for the same reason.
  const shards = flags.sharded
    ? new TenantShards({
        client: options.kcp,
        namespace: flags.leaderElectNamespace,
        group: flags.leaderElectName,
        identity: options.identity,
        slots: flags.shardSlots,
        ...leaseTimings(flags),
        onError: (err) => logger.warn({ err }, "shard Lease round failed; slots not renewed in time are given up"),
      })
    : undefined;
  const admission = shards === undefined ? {} : { admit: shards.admit };
  const clusterController = new Controller<ClusterScope>({
    name: "kubernetesclusters",
    ...admission,
    maxConcurrentReconciles: flags.maxConcurrentReconciles,
    reconciler: new KubernetesClusterReconciler(context),
    reconcileTimeoutMs: flags.reconcileTimeoutMs,
    scope,
    metrics,
    logger,
  });
  const configController = new Controller<ClusterScope>({
    name: "providerconfigs",
    ...admission,
    maxConcurrentReconciles: Math.max(1, Math.floor(flags.maxConcurrentReconciles / 2)),
    reconciler: new ProviderConfigReconciler(context),
    reconcileTimeoutMs: flags.reconcileTimeoutMs,
    scope,
    metrics,
    logger,
  });

  shards?.serve(clusterController, () => clusters().map(requestOf));
  shards?.serve(configController, () => source.list(resources.providerConfigs).map(requestOf));

  // A catalogue change can only help clusters still waiting for a flavor: a Ready cluster keeps the flavor its pool runs.
  const wakeAll = (): void => {
    for (const kc of clusters()) clusterController.enqueue(requestOf(kc));
  };
  const wakeWaiting = (): void => {
    for (const request of mappers.waitingClusters()) clusterController.enqueue(request);
  };
  const catalogue = new Reflector<ProviderMachineFlavor & KubeObject>({
    client: options.kcp,
    path: collectionPath(PROVIDER_MACHINE_FLAVOR_RESOURCE),
    store: flavors,
    handlers: { added: wakeWaiting, updated: wakeWaiting, deleted: wakeWaiting },
    logger,
  });
  for (const kind of [...CACHED_KINDS, ...(flags.clusterApi ? [CLUSTER_API_CLUSTER] : [])]) {
    infra.watch(kind, enqueueMapped(clusterController, (obj) => {
      const owner = ownerRequest(obj);
      return owner === undefined ? [] : [owner];
    }));
  }

  // The audit's Events are about infrastructure objects, for the platform team: on the infrastructure cluster, unabridged.
  const infraRecorder = new EventRecorder({ client: options.infra, component: COMPONENT, instance: options.identity, logger });
  const audit =
    flags.orphanAuditIntervalMs > 0
      ? new OrphanAudit({
          source,
          clusters: resources.clusters,
          infra: options.infra,
          recorder: infraRecorder,
          metrics: providerMetrics,
          intervalMs: flags.orphanAuditIntervalMs,
          teardown: flags.orphanTeardown,
          logger: logger.child({ component: "orphan-audit" }),
          ...(shards === undefined ? {} : { serves: (tenant: string) => shards.coordinator.owns(tenant) }),
        })
      : undefined;
  // The audit runs while `run` does: the leader's term (the manager's `lead`, which runs the controllers) or, without election
  // (sharded included), the whole run.
  const withAudit = (run: (signal: AbortSignal) => Promise<void>) => async (signal: AbortSignal): Promise<void> => {
    const stop = new AbortController();
    const auditing = audit?.run(AbortSignal.any([signal, stop.signal]));
    try {
      await run(signal);
    } finally {
      stop.abort();
      await auditing;
    }
  };
  // The Lease lives in the provider workspace on kcp, not on the infrastructure cluster: a leader keeps leading (and telling
  // tenants) while the infrastructure is away, instead of losing its Lease and restarting into a wait for caches.
  const elect = flags.leaderElect
    ? leaseElection({
        client: options.kcp,
        namespace: flags.leaderElectNamespace,
        name: flags.leaderElectName,
        identity: options.identity,
        ...leaseTimings(flags),
        metrics,
        logger,
      })
    : undefined;

  const manage = (managerSignal: AbortSignal): Promise<void> =>
    runManager(
      {
        flags,
        metrics,
        sources: { apiexport: source, flavors: catalogue },
        // The controllers serve tenants while the infrastructure cluster is away, telling them so (kubernetes-cluster-reconciler.ts).
        optionalSources: infra.sources(),
        controllers: [clusterController, configController],
        ...(elect === undefined ? {} : { leaderElector: (lead: (signal: AbortSignal) => Promise<void>) => elect(withAudit(lead)) }),
        ...(shards === undefined ? {} : { shards }),
        ...(options.onListening ? { onListening: options.onListening } : {}),
      },
      managerSignal,
    );
  try {
    await (elect === undefined ? withAudit(manage)(signal) : manage(signal));
  } finally {
    await Promise.all([recorder.flush(), infraRecorder.flush()]);
    gateway.close();
  }
}
