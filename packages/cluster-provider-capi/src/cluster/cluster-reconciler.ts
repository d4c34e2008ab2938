/**
 * The cluster controller: an openMCP Cluster whose ClusterProfile belongs to
 * this provider becomes a Cluster API Cluster (`cluster.x-k8s.io/v1beta2`)
 * of the same name in the same namespace, rendered with the objects of the
 * profile's ProviderConfig template by @edgeconnect/provisioning.
 *
 * Per reconcile (level-triggered; the platform cluster is the only state):
 * 1. resolve profile → ProviderConfig → Kubernetes version; each gap is a
 *    `ClusterConfigured=False` condition that says what to change, and
 *    nothing is applied;
 * 2. apply the template's objects, then the Cluster API Cluster;
 * 3. report: `ClusterReady` from the Cluster API Cluster's `Available`,
 *    the `apiserver-external` endpoint, the provider and version labels,
 *    `observedGeneration` and `phase` on every write.
 * Deletion waits for the other finalizers (ClusterRequests hold Clusters
 * with theirs), deletes the Cluster API Cluster, waits until it is gone,
 * then removes what the template made.
 */
import type { ClusterV1alpha1Status, ClusterV1beta2 } from "@edgeconnect/capi-provider-api";
import { CAPI_CLUSTER, OPENMCP_CLUSTER, objectPath } from "@edgeconnect/capi-provider-api";
import { ApiDiscovery, deleteIfPresent, getIfPresent, HttpStatusError, type KubeObject, type RestClient, UnknownKindError } from "@edgeconnect/kcp-ts";
import {
  clusterApiReadiness,
  ClusterTemplateError,
  newestClusterApiVersion,
  normalizeClusterApiVersion,
  renderClusterApiObjects,
  supportsVersion,
  type ClusterApiObjects,
  type ClusterTemplate,
} from "@edgeconnect/provisioning";
import {
  applyStatus,
  finalize,
  findCondition,
  hasFinalizer,
  joinKey,
  scrubText,
  type Condition,
  type ConditionUpdate,
  type DeepReadonly,
  type EventRecorder,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Store,
} from "@edgeconnect/runtime";
import type { ClusterProfile, OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";
import { APISERVER_ENDPOINT, K8S_VERSION_LABEL, OPERATION, PROVIDER_LABEL } from "../openmcp/constants.js";
import { operationOf } from "../openmcp/operation-annotation.js";
import { clearReconcileAnnotation } from "../provider/reconcile-annotation.js";
import { profileBelongsTo } from "../openmcp/responsibility.js";
import { commonPhase } from "../openmcp/status-phase.js";
import {
  FIELD_MANAGER,
  FINALIZERS,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  OPENMCP_CLUSTER_NAME_LABEL,
  OPENMCP_CLUSTER_NAMESPACE_LABEL,
  type ProviderIdentity,
} from "../provider/provider-identity.js";
import { allConditions, controllerConditions } from "../provider/status-conditions.js";
import { platformKey } from "../provider/platform-keys.js";

export type CapiCluster = ClusterV1beta2 & KubeObject;

const CLUSTER_CONDITIONS = ["ClusterConfigured", "ClusterReady"];

/** While Cluster API deletes, how often to look besides its watch events. */
const DELETION_RECHECK_MS = 5_000;

export interface ClusterReconcilerOptions {
  readonly identity: ProviderIdentity;
  readonly client: RestClient;
  readonly clusters: Store<OpenMcpCluster>;
  readonly profiles: Store<ClusterProfile>;
  readonly configs: Store<ProviderConfig>;
  /** Cluster API Clusters carrying our managed-by label. */
  readonly capiClusters: Store<CapiCluster>;
  readonly recorder: EventRecorder;
}

/** What a Cluster resolves to before anything is applied: the objects, or why there are none. */
type Plan = { readonly objects: ClusterApiObjects; readonly version: string } | { readonly problem: ConditionUpdate };

export class ClusterReconciler implements Reconciler {
  private readonly discovery: ApiDiscovery;

  constructor(private readonly options: ClusterReconcilerOptions) {
    this.discovery = new ApiDiscovery(options.client);
  }

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const cluster = this.options.clusters.get(joinKey(request));
    if (cluster === undefined || operationOf(cluster) === OPERATION.Ignore) return undefined;
    if (!this.isOurs(cluster) && !hasFinalizer(cluster, FINALIZERS.cluster)) return undefined;
    const client = this.options.client.withSignal(signal);
    const path = objectPath(OPENMCP_CLUSTER, request.namespace, request.name);
    const result = await finalize(client, path, cluster as OpenMcpCluster, FINALIZERS.cluster, {
      apply: (live) => this.apply(client, live, signal),
      cleanup: (live) => this.cleanup(client, live, signal),
    });
    await clearReconcileAnnotation(client, path, cluster);
    return result;
  }

  /**
   * Whether the Cluster's profile is one of this provider's: providers act
   * only on their own Clusters. A profile that does not exist is ours when
   * its name is in our namespace of names (`<environment>.<provider-name>.`),
   * so that a typo gets a condition rather than silence.
   */
  isOurs(cluster: DeepReadonly<OpenMcpCluster>): boolean {
    const name = cluster.spec?.profile ?? "";
    const profile = this.options.profiles.get(platformKey(name));
    if (profile !== undefined) return profileBelongsTo(profile, this.options.identity.providerName);
    return name.startsWith(`${this.options.identity.environment}.${this.options.identity.providerName}.`);
  }

  private async apply(client: RestClient, cluster: OpenMcpCluster, signal: AbortSignal): Promise<Result | undefined> {
    const plan = this.plan(cluster);
    if ("problem" in plan) {
      await this.writeStatus(client, cluster, [plan.problem], undefined);
      return undefined;
    }
    const { objects, version } = plan;
    const existing = this.options.capiClusters.get(platformKey(objects.cluster.metadata.name, objects.cluster.metadata.namespace));
    const foreign = await this.foreignClusterApiCluster(client, objects, existing);
    if (foreign) {
      await this.writeStatus(client, cluster, [
        {
          type: "ClusterConfigured",
          status: "False",
          reason: "NameConflict",
          message: `a Cluster API Cluster ${objects.cluster.metadata.name} not made for this Cluster exists in namespace ${objects.cluster.metadata.namespace}; remove it or rename this Cluster`,
        },
      ], undefined);
      return undefined;
    }
    try {
      for (const resource of objects.resources) {
        const resourcePath = await this.discovery.objectPath(resource.apiVersion, resource.kind, resource.metadata.namespace, resource.metadata.name, signal);
        await client.apply(resourcePath, resource, FIELD_MANAGER);
      }
    } catch (err) {
      if (!(err instanceof UnknownKindError || (err instanceof HttpStatusError && (err.status === 422 || err.status === 400)))) throw err;
      // The template is the platform team's: the API server's verdict on it is for them to read.
      await this.writeStatus(client, cluster, [{ type: "ClusterConfigured", status: "False", reason: "InvalidTemplate", message: scrubText(errorMessage(err)) }], undefined);
      return undefined;
    }
    const applied = await client.apply<CapiCluster>(objectPath(CAPI_CLUSTER, objects.cluster.metadata.namespace, objects.cluster.metadata.name), objects.cluster, FIELD_MANAGER);
    await client.apply(
      objectPath(OPENMCP_CLUSTER, cluster.metadata.namespace, cluster.metadata.name ?? ""),
      {
        apiVersion: OPENMCP_CLUSTER.apiVersion,
        kind: OPENMCP_CLUSTER.kind,
        metadata: { name: cluster.metadata.name, namespace: cluster.metadata.namespace, labels: { [PROVIDER_LABEL]: this.options.identity.providerName, [K8S_VERSION_LABEL]: version.slice(1) } },
      },
      FIELD_MANAGER,
    );
    const readiness = clusterApiReadiness(applied);
    const ready: ConditionUpdate =
      readiness.state === "Ready"
        ? { type: "ClusterReady", status: "True", reason: readiness.reason, message: readiness.message }
        : { type: "ClusterReady", status: "False", reason: readiness.reason, message: scrubText(readiness.message) };
    await this.writeStatus(
      client,
      cluster,
      [{ type: "ClusterConfigured", status: "True", reason: "Applied", message: `Cluster API Cluster ${objects.cluster.metadata.name} with Kubernetes ${version}` }, ready],
      readiness.apiServerEndpoint,
    );
    return undefined;
  }

  private async cleanup(client: RestClient, cluster: OpenMcpCluster, signal: AbortSignal): Promise<Result | undefined> {
    const foreign = (cluster.metadata.finalizers ?? []).filter((f) => f !== FINALIZERS.cluster);
    if (foreign.length > 0) {
      await this.writeStatus(client, cluster, [{ type: "ClusterReady", status: "False", reason: "WaitingForFinalizers", message: `waiting for finalizers ${foreign.join(", ")} to be removed` }], undefined);
      // Without a requeue, finalize would remove our finalizer now and the Cluster API Cluster would never be deleted.
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    const name = cluster.metadata.name ?? "";
    const namespace = cluster.metadata.namespace ?? "";
    const capiPath = objectPath(CAPI_CLUSTER, namespace, name);
    const capi = await getIfPresent<CapiCluster>(client, capiPath);
    if (capi !== undefined && this.madeFor(capi, cluster)) {
      if (capi.metadata.deletionTimestamp === undefined) await deleteIfPresent(client, capiPath);
      await this.writeStatus(client, cluster, [{ type: "ClusterReady", status: "False", reason: "Deleting", message: `waiting for Cluster API to delete Cluster ${name}` }], undefined);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    // What the template made and Cluster API did not delete with the Cluster (it deletes what the Cluster refers to);
    // only objects carrying this Cluster's labels: one of the name made by someone else is not ours to delete.
    const plan = this.plan(cluster);
    if ("objects" in plan) {
      for (const resource of [...plan.objects.resources].reverse()) {
        let resourcePath: string;
        try {
          resourcePath = await this.discovery.objectPath(resource.apiVersion, resource.kind, namespace, resource.metadata.name, signal);
        } catch (err) {
          if (err instanceof UnknownKindError) continue;
          throw err;
        }
        const existing = await getIfPresent<KubeObject>(client, resourcePath);
        if (existing !== undefined && this.madeFor(existing, cluster)) await deleteIfPresent(client, resourcePath);
      }
    }
    return undefined;
  }

  /** The objects for a Cluster, or the condition that says why there are none. */
  private plan(cluster: DeepReadonly<OpenMcpCluster>): Plan {
    const fail = (reason: string, message: string): Plan => ({ problem: { type: "ClusterConfigured", status: "False", reason, message } });
    const profile = this.options.profiles.get(platformKey(cluster.spec?.profile ?? ""));
    if (profile === undefined || !profileBelongsTo(profile, this.options.identity.providerName)) {
      return fail("ProfileNotFound", `ClusterProfile ${cluster.spec?.profile} does not exist or is not this provider's`);
    }
    const configName = profile.spec?.providerConfigRef.name ?? "";
    const config = this.options.configs.get(platformKey(configName));
    if (config === undefined) return fail("ProviderConfigNotFound", `the ProviderConfig ${configName} of profile ${cluster.spec?.profile} does not exist`);
    const requested = cluster.spec?.kubernetes?.version;
    const supported = config.spec.kubernetesVersions.map((v) => ({ version: v.version, ...(v.deprecated === undefined ? {} : { deprecated: v.deprecated }) }));
    let version: string;
    try {
      if (requested !== undefined && requested !== "") {
        if (!supportsVersion(supported, requested)) {
          return fail("UnsupportedVersion", `Kubernetes ${requested} is not offered by profile ${cluster.spec?.profile}; choose one of ${supported.map((v) => v.version).join(", ")}`);
        }
        version = normalizeClusterApiVersion(requested);
      } else {
        const newest = newestClusterApiVersion(supported.filter((v) => v.deprecated !== true).map((v) => v.version));
        if (newest === undefined) return fail("UnsupportedVersion", `profile ${cluster.spec?.profile} offers no version that is not deprecated; name one in spec.kubernetes.version`);
        version = newest;
      }
      const objects = renderClusterApiObjects({
        name: cluster.metadata.name ?? "",
        namespace: cluster.metadata.namespace ?? "",
        kubernetesVersion: version,
        labels: { ...MANAGED_BY, [OPENMCP_CLUSTER_NAME_LABEL]: cluster.metadata.name ?? "", [OPENMCP_CLUSTER_NAMESPACE_LABEL]: cluster.metadata.namespace ?? "" },
        template: config.spec.template as ClusterTemplate,
      });
      return { objects, version };
    } catch (err) {
      if (!(err instanceof ClusterTemplateError)) throw err;
      return fail("InvalidTemplate", `the template of ProviderConfig ${configName} cannot be rendered: ${err.message}`);
    }
  }

  /** Whether a Cluster API Cluster of the name exists that we did not make for this Cluster. */
  private async foreignClusterApiCluster(client: RestClient, objects: ClusterApiObjects, cached: DeepReadonly<CapiCluster> | undefined): Promise<boolean> {
    // The store holds only our labelled Clusters; a foreign one is only seen by asking.
    const existing = cached ?? (await getIfPresent<CapiCluster>(client, objectPath(CAPI_CLUSTER, objects.cluster.metadata.namespace, objects.cluster.metadata.name)));
    if (existing === undefined) return false;
    const labels = existing.metadata.labels ?? {};
    return labels[MANAGED_BY_LABEL] !== MANAGED_BY[MANAGED_BY_LABEL] || labels[OPENMCP_CLUSTER_NAME_LABEL] !== objects.cluster.metadata.labels[OPENMCP_CLUSTER_NAME_LABEL];
  }

  private madeFor(obj: DeepReadonly<Pick<KubeObject, "metadata">>, cluster: DeepReadonly<OpenMcpCluster>): boolean {
    const labels = obj.metadata?.labels ?? {};
    return labels[OPENMCP_CLUSTER_NAME_LABEL] === cluster.metadata.name && labels[OPENMCP_CLUSTER_NAMESPACE_LABEL] === cluster.metadata.namespace;
  }

  private async writeStatus(client: RestClient, cluster: OpenMcpCluster, updates: readonly ConditionUpdate[], endpoint: string | undefined): Promise<void> {
    const generation = cluster.metadata.generation;
    const previous = (cluster.status?.conditions ?? []) as Condition[];
    const conditions = controllerConditions(previous, updates, CLUSTER_CONDITIONS, generation);
    const status: ClusterV1alpha1Status = {
      observedGeneration: generation ?? 0,
      phase: commonPhase({ deleting: cluster.metadata.deletionTimestamp !== undefined, conditions: allConditions(previous, conditions) }),
      conditions,
      ...(endpoint === undefined ? {} : { endpoints: [{ name: APISERVER_ENDPOINT.External, url: endpoint }] }),
    };
    await applyStatus(client, objectPath(OPENMCP_CLUSTER, cluster.metadata.namespace, cluster.metadata.name ?? ""), cluster, status, FIELD_MANAGER);
    for (const condition of conditions) {
      const before = findCondition(previous, condition.type);
      if (condition.status === "False" && condition.reason !== "Deleting" && (before?.status !== condition.status || before.reason !== condition.reason)) {
        this.options.recorder.event(cluster, condition.type === "ClusterConfigured" ? "Warning" : "Normal", condition.reason, condition.message);
      }
    }
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof HttpStatusError) return err.statusObject?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
