/**
 * `run`: one reflector per kind on the platform cluster, shared by the three
 * controllers (config, cluster, access-request), Events, metrics, probes,
 * and leader election when asked. Owns wiring only: which events wake which
 * controller.
 */
import {
  ACCESS_REQUEST,
  CAPI_CLUSTER,
  CLUSTER_PROFILE,
  collectionPath,
  OPENMCP_CLUSTER,
  PROVIDER_CONFIG,
} from "@edgeconnect/capi-provider-api";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import {
  combineHandlers,
  Controller,
  enqueueMapped,
  enqueueObject,
  EventRecorder,
  leaseElection,
  leaseTimings,
  Reflector,
  requestFor,
  RuntimeMetrics,
  runManager,
  Store,
  type ControllerLogger,
  type DeepReadonly,
  type EventHandlers,
  type Reconciler,
  type Request,
} from "@edgeconnect/runtime";
import { AccessRequestReconciler, type AccessRequest } from "../access-request/access-request-reconciler.js";
import { CapiKubeconfigClusters, type WorkloadClusters } from "../access-request/workload-cluster.js";
import type { RunFlags } from "../cli/flags.js";
import { CLUSTERS_BY_PROFILE, clustersByProfile, PROFILES_BY_CONFIG, profilesByConfig, providersBecameReady } from "../cluster/cluster-indexes.js";
import { ClusterReconciler, type CapiCluster } from "../cluster/cluster-reconciler.js";
import { declaringConfigs } from "../config/desired-providers.js";
import { OPERATOR_PROVIDER_KINDS, operatorResource, OperatorProviderStores, type OperatorProvider } from "../config/operator-providers.js";
import { ProviderConfigReconciler, type ClusterProfile, type OpenMcpCluster, type ProviderConfig } from "../config/provider-config-reconciler.js";
import { MANAGED_BY_SELECTOR, OPENMCP_CLUSTER_NAME_LABEL, OPENMCP_CLUSTER_NAMESPACE_LABEL, providerKeys, type ProviderIdentity } from "../provider/provider-identity.js";
import { platformKey } from "../provider/platform-keys.js";

export const COMPONENT = "cluster-provider-capi";

export interface ProviderManagerOptions {
  readonly flags: RunFlags;
  readonly client: RestClient;
  readonly logger: ControllerLogger;
  readonly identity: string;
  readonly metrics?: RuntimeMetrics;
  /** How AccessRequests reach workload clusters; default: Cluster API's kubeconfig Secrets. */
  readonly workloads?: WorkloadClusters;
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
}

/** Runs until `signal` aborts; rejects with LeadershipLostError when the Lease is lost. */
export async function runProviderManager(options: ProviderManagerOptions, signal: AbortSignal): Promise<void> {
  const { flags, client, logger } = options;
  const provider: ProviderIdentity = { environment: flags.environment, providerName: flags.providerName };
  const metrics = options.metrics ?? new RuntimeMetrics();
  const recorder = new EventRecorder({ client, component: COMPONENT, instance: options.identity, logger });

  const configs = new Store<ProviderConfig>();
  const profiles = new Store<ClusterProfile>({ indexers: { [PROFILES_BY_CONFIG]: profilesByConfig } });
  const clusters = new Store<OpenMcpCluster>({ indexers: { [CLUSTERS_BY_PROFILE]: clustersByProfile } });
  const accessRequests = new Store<AccessRequest>({ indexers: { [BY_CLUSTER_REF]: clusterRefOf } });
  const accessSecrets = new Store<KubeObject>();
  const capiClusters = new Store<CapiCluster>();
  const operatorProviders = new OperatorProviderStores();

  const controller = (name: string, reconciler: Reconciler): Controller =>
    new Controller({
      name,
      reconciler,
      maxConcurrentReconciles: flags.maxConcurrentReconciles,
      // One platform cluster is one tenant: every worker may serve it.
      maxInFlightPerTenant: flags.maxConcurrentReconciles,
      logger,
      metrics,
    });
  const configController = controller("providerconfig", new ProviderConfigReconciler({ identity: provider, client, configs, clusters, operatorProviders, recorder }));
  const clusterReconciler = new ClusterReconciler({ identity: provider, client, clusters, profiles, configs, capiClusters, recorder });
  const clusterController = controller("cluster", clusterReconciler);
  const accessReconciler = new AccessRequestReconciler({
    identity: provider,
    client,
    accessRequests,
    clusters,
    workloads: options.workloads ?? new CapiKubeconfigClusters(client),
    accessNamespace: flags.accessNamespace,
    recorder,
  });
  const accessController = controller("accessrequest", accessReconciler);

  const configNamed = (name: string | undefined): Request[] => (name === undefined ? [] : [{ cluster: "", namespace: "", name }]);
  const configOfProfile = (profileName: string): Request[] => configNamed(profiles.get(platformKey(profileName))?.spec?.providerConfigRef.name);
  const clustersOfProfile = (profileName: string): Request[] => clusters.byIndex(CLUSTERS_BY_PROFILE, profileName).map((cluster) => requestFor(cluster));
  const clustersOfConfig = (config: DeepReadonly<ProviderConfig>): Request[] =>
    profiles.byIndex(PROFILES_BY_CONFIG, config.metadata.name ?? "").flatMap((p) => clustersOfProfile(p.metadata.name ?? ""));
  const accessRequestsOf = (cluster: { readonly namespace: string; readonly name: string }): Request[] =>
    accessRequests.byIndex(BY_CLUSTER_REF, platformKey(cluster.name, cluster.namespace)).map((ar) => requestFor(ar));

  // Both read a config's spec and metadata, never its status: a config's own status writes wake nobody.
  const configHandlers = combineHandlers<ProviderConfig>(
    // Configs share providers, so one config's change can settle another's conflict.
    enqueueMapped(configController, () => configs.list().map((config) => requestFor(config)), { ignoreStatus: true }),
    enqueueMapped(clusterController, clustersOfConfig, { ignoreStatus: true }),
    // Except that Clusters waiting for template kinds hear when the config's providers turn ready.
    { updated: (old, current) => (providersBecameReady(old, current) ? clustersOfConfig(current).forEach((r) => clusterController.enqueue(r)) : undefined) },
  );
  const profileHandlers = combineHandlers<ClusterProfile>(
    enqueueMapped(configController, (profile) => configNamed(profile.spec?.providerConfigRef.name)),
    enqueueMapped(clusterController, (profile) => clustersOfProfile(profile.metadata.name ?? "")),
  );
  const clusterHandlers = combineHandlers<OpenMcpCluster>(
    enqueueObject(clusterController),
    // A config being deleted waits for the Clusters of its profile.
    { deleted: (cluster) => configOfProfile(cluster.spec?.profile ?? "").forEach((r) => configController.enqueue(r)) },
    statusChanges(accessController, (cluster) => accessRequestsOf({ namespace: cluster.metadata.namespace ?? "", name: cluster.metadata.name ?? "" })),
  );
  const capiClusterHandlers = combineHandlers<CapiCluster>(
    enqueueMapped(clusterController, openMcpClusterOf),
    // Requests of a Cluster being deleted keep their grants until Cluster API starts deleting it.
    enqueueMapped(accessController, (capi) => openMcpClusterOf(capi).flatMap(accessRequestsOf)),
  );
  const accessRequestHandlers = combineHandlers<AccessRequest>(enqueueObject(accessController), statusChanges(accessController, (ar) => [requestFor(ar)]));
  const operatorProviderHandlers = enqueueMapped<OperatorProvider>(configController, (p) => declaringConfigs(p.metadata.labels).flatMap(configNamed));

  // What this provider alone owns; operator objects are shared with other providers of this image.
  const ownSelector = providerKeys(provider).selector;
  const sources = {
    providerConfigs: reflector(client, collectionPath(PROVIDER_CONFIG), configs, logger, configHandlers),
    clusterProfiles: reflector(client, collectionPath(CLUSTER_PROFILE), profiles, logger, profileHandlers),
    clusters: reflector(client, collectionPath(OPENMCP_CLUSTER), clusters, logger, clusterHandlers),
    accessRequests: reflector(client, collectionPath(ACCESS_REQUEST), accessRequests, logger, accessRequestHandlers),
    capiClusters: reflector(client, collectionPath(CAPI_CLUSTER), capiClusters, logger, capiClusterHandlers, ownSelector),
    // A deleted or edited access Secret is put back at once, not at the token's renewal.
    accessSecrets: reflector(client, "/api/v1/secrets", accessSecrets, logger, enqueueMapped(accessController, owningAccessRequest), ownSelector),
    ...Object.fromEntries(
      OPERATOR_PROVIDER_KINDS.map((kind) => [
        `operator${kind}s`,
        reflector(client, collectionPath(operatorResource(kind)), operatorProviders.stores[kind], logger, operatorProviderHandlers, MANAGED_BY_SELECTOR),
      ]),
    ),
  };

  try {
    await runManager(
      {
        flags,
        metrics,
        sources,
        controllers: [configController, clusterController, accessController],
        ...(flags.leaderElect
          ? { leaderElector: leaseElection({ client, namespace: flags.leaderElectNamespace, name: `${COMPONENT}-${flags.providerName}`, identity: options.identity, ...leaseTimings(flags), metrics, logger }) }
          : {}),
        ...(options.onListening ? { onListening: options.onListening } : {}),
      },
      signal,
    );
  } finally {
    await recorder.flush();
  }
}

function reflector<T extends ProviderConfig | ClusterProfile | OpenMcpCluster | AccessRequest | CapiCluster | OperatorProvider | KubeObject>(
  client: RestClient,
  path: string,
  store: Store<T>,
  logger: ControllerLogger,
  handlers: EventHandlers<T>,
  labelSelector?: string,
): Reflector<T> {
  return new Reflector<T>({ client, path, store, handlers, logger, ...(labelSelector === undefined ? {} : { labelSelector }) });
}

/** The openMCP Cluster a Cluster API Cluster was made for, from the labels the cluster controller puts on it. */
function openMcpClusterOf(capi: DeepReadonly<CapiCluster>): Request[] {
  const name = capi.metadata.labels?.[OPENMCP_CLUSTER_NAME_LABEL];
  const namespace = capi.metadata.labels?.[OPENMCP_CLUSTER_NAMESPACE_LABEL];
  return name === undefined || namespace === undefined ? [] : [{ cluster: "", namespace, name }];
}

const BY_CLUSTER_REF = "clusterRef";

/** The Cluster an AccessRequest is for, in the platform's key format. */
function clusterRefOf(ar: DeepReadonly<AccessRequest>): string[] {
  const ref = ar.spec?.clusterRef;
  return ref === undefined ? [] : [platformKey(ref.name, ref.namespace)];
}

/** The AccessRequest an access Secret was written for, from its controller reference. */
function owningAccessRequest(secret: DeepReadonly<KubeObject>): Request[] {
  const owner = secret.metadata?.ownerReferences?.find((ref) => ref.kind === ACCESS_REQUEST.kind && ref.apiVersion === ACCESS_REQUEST.apiVersion && ref.controller === true);
  const namespace = secret.metadata?.namespace;
  return owner === undefined || namespace === undefined ? [] : [{ cluster: "", namespace, name: owner.name }];
}

/**
 * Requests for a phase change in an object's status, which enqueueObject
 * leaves out: AccessRequests wait for their Cluster's phase, and openMCP's
 * generic controller moves an AccessRequest back to Pending in its status.
 */
function statusChanges<T extends OpenMcpCluster | AccessRequest>(controller: Controller, map: (obj: DeepReadonly<T>) => Request[]): EventHandlers<T> {
  const send = (obj: DeepReadonly<T>): void => map(obj).forEach((r) => controller.enqueue(r));
  return {
    added: send,
    updated: (old, current) => {
      if (phaseOf(old) !== phaseOf(current)) send(current);
    },
    deleted: send,
  };
}

function phaseOf(obj: { readonly status?: unknown }): unknown {
  return (obj.status as { readonly phase?: unknown } | undefined)?.phase;
}
