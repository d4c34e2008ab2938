/**
 * The cluster controller: an openMCP Cluster whose ClusterProfile belongs to
 * this provider becomes a Cluster API Cluster (`cluster.x-k8s.io/v1beta2`)
 * of the same name in the same namespace, rendered with the objects of the
 * profile's ProviderConfig template by @edgeconnect/provisioning.
 *
 * Per reconcile (level-triggered; the platform cluster is the only state):
 * 1. resolve profile → ProviderConfig → Kubernetes version (the one policy
 *    of `templateSetVersion`, from the version the Cluster API Cluster
 *    runs); each gap is a `ClusterConfigured=False` condition that says what
 *    to change, and nothing is applied;
 * 2. wait, with `ClusterConfigured=False` reason `ProvidersNotReady`, while
 *    the API server serves none of some template kinds (their providers are
 *    not installed yet); the config's providers turning ready wakes it;
 * 3. record the template objects about to be applied on the Cluster (see
 *    applied-objects.ts), apply them, then the Cluster API Cluster; the API
 *    server refusing either (admission: webhooks, CEL, schema) is
 *    `ClusterConfigured=False` reason `InvalidTemplate` with its message;
 *    then prune what the template no longer makes;
 * 4. report on every write, also when something above failed, from the
 *    Cluster API Cluster as it is: `ClusterReady` from its `Available`, the
 *    endpoints, the provider status, the provider/version labels and the
 *    providerinfo annotation (cluster-report.ts), `observedGeneration` and
 *    `phase`.
 * Deletion waits for the other finalizers (ClusterRequests hold Clusters
 * with theirs), deletes the Cluster API Cluster, waits until it is gone,
 * then removes what the template made, as recorded.
 */
import type { ClusterV1alpha1Status, ClusterV1beta2 } from "@edgeconnect/capi-provider-api";
import { CAPI_CLUSTER, OPENMCP_CLUSTER, objectPath } from "@edgeconnect/capi-provider-api";
import { ApiDiscovery, deleteIfPresent, getIfPresent, HttpStatusError, type KubeObject, type RestClient, UnknownKindError } from "@edgeconnect/kcp-ts";
import {
  clusterApiKubeconfigSecret,
  clusterApiReadiness,
  ClusterTemplateError,
  renderClusterApiObjects,
  templateSetVersion,
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
import { kubeconfigEndpoint } from "../access-request/workload-cluster.js";
import type { ClusterProfile, OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";
import { K8S_VERSION_LABEL, OPERATION, PROVIDER_INFO_ANNOTATION, PROVIDER_LABEL } from "../openmcp/constants.js";
import { operationOf } from "../openmcp/operation-annotation.js";
import { clearReconcileAnnotation } from "../provider/reconcile-annotation.js";
import { profileBelongsTo } from "../openmcp/responsibility.js";
import { commonPhase } from "../openmcp/status-phase.js";
import { carriesLabels, OPENMCP_CLUSTER_NAME_LABEL, OPENMCP_CLUSTER_NAMESPACE_LABEL, providerKeys, type ProviderIdentity, type ProviderKeys } from "../provider/provider-identity.js";
import { allConditions, controllerConditions } from "../provider/status-conditions.js";
import { platformKey } from "../provider/platform-keys.js";
import {
  APPLIED_OBJECTS_ANNOTATION,
  appliedObjectsOf,
  droppedFrom,
  recordedObjects,
  recordText,
  unionOf,
  type AppliedObject,
} from "./applied-objects.js";
import { clusterConfigsCondition, endpointsOf, providerInfoOf, providerStatusOf, runningVersion } from "./cluster-report.js";

export type CapiCluster = ClusterV1beta2 & KubeObject;

const CLUSTER_CONDITIONS = ["ClusterConfigured", "ClusterReady", "ClusterConfigsApplied"];

/** While Cluster API deletes, how often to look besides its watch events. */
const DELETION_RECHECK_MS = 5_000;
/**
 * While template kinds are not served, how often to look besides the
 * config's providers turning ready: kinds may also come from providers
 * another config or someone else installs.
 */
const PROVIDERS_RECHECK_MS = 120_000;

export interface ClusterReconcilerOptions {
  readonly identity: ProviderIdentity;
  readonly client: RestClient;
  readonly clusters: Store<OpenMcpCluster>;
  readonly profiles: Store<ClusterProfile>;
  readonly configs: Store<ProviderConfig>;
  /** Cluster API Clusters carrying this provider's labels. */
  readonly capiClusters: Store<CapiCluster>;
  readonly recorder: EventRecorder;
}

/** What a Cluster resolves to before anything is applied: the objects, or why there are none. */
type Plan = { readonly objects: ClusterApiObjects; readonly version: string; readonly configName: string } | { readonly problem: ConditionUpdate };

export class ClusterReconciler implements Reconciler {
  private readonly discovery: ApiDiscovery;
  private readonly keys: ProviderKeys;
  /** The applied-objects record has a field manager of its own: see applied-objects.ts. */
  private readonly recordFieldManager: string;

  constructor(private readonly options: ClusterReconcilerOptions) {
    this.discovery = new ApiDiscovery(options.client);
    this.keys = providerKeys(options.identity);
    this.recordFieldManager = `${this.keys.fieldManager}/applied-objects`;
  }

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const cluster = this.options.clusters.get(joinKey(request));
    if (cluster === undefined || operationOf(cluster) === OPERATION.Ignore) return undefined;
    if (!this.isOurs(cluster) && !hasFinalizer(cluster, this.keys.finalizers.cluster)) return undefined;
    const client = this.options.client.withSignal(signal);
    const path = objectPath(OPENMCP_CLUSTER, request.namespace, request.name);
    const result = await finalize(client, path, cluster as OpenMcpCluster, this.keys.finalizers.cluster, {
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
    const name = cluster.metadata.name ?? "";
    const namespace = cluster.metadata.namespace ?? "";
    const cached = this.options.capiClusters.get(platformKey(name, namespace));
    const ours = cached !== undefined && this.madeFor(cached, cluster) ? cached : undefined;
    const clusterConfigs = clusterConfigsCondition(cluster.spec?.clusterConfigs);
    const plan = this.plan(cluster, runningVersion(ours, cluster.metadata.labels));
    if ("problem" in plan) {
      await this.report(client, cluster, [plan.problem, clusterConfigs], ours);
      return undefined;
    }
    const { objects, version, configName } = plan;
    if (await this.foreignClusterApiCluster(client, objects, cached)) {
      const message = `a Cluster API Cluster ${name} not made for this Cluster exists in namespace ${namespace}; remove it or rename this Cluster`;
      await this.report(client, cluster, [{ type: "ClusterConfigured", status: "False", reason: "NameConflict", message }, clusterConfigs], undefined);
      return undefined;
    }
    const unserved = await this.unservedKinds(objects, signal);
    if (unserved.length > 0) {
      const message = `the API server serves no ${unserved.join(", ")} yet; waiting for the Cluster API providers of ProviderConfig ${configName} to be installed`;
      await this.report(client, cluster, [{ type: "ClusterConfigured", status: "False", reason: "ProvidersNotReady", message }, clusterConfigs], ours);
      return { requeueAfterMs: PROVIDERS_RECHECK_MS };
    }

    const recorded = recordedObjects(cluster.metadata.annotations);
    const desired = appliedObjectsOf(objects.resources);
    // Recorded before they exist: a reconcile that stops halfway leaves nothing unrecorded behind.
    const record = await this.record(client, cluster, cluster.metadata.annotations?.[APPLIED_OBJECTS_ANNOTATION], unionOf(recorded, desired));
    let applied: CapiCluster;
    try {
      applied = await this.applyObjects(client, objects, signal);
    } catch (err) {
      if (!isAdmissionRefusal(err)) throw err;
      // The template is the platform team's, the version the Cluster's: the API server's verdict is for them to read.
      await this.report(client, cluster, [{ type: "ClusterConfigured", status: "False", reason: "InvalidTemplate", message: scrubText(errorMessage(err)) }, clusterConfigs], ours);
      return undefined;
    }
    await this.deleteMadeFor(client, cluster, droppedFrom(recorded, desired), signal);
    await this.record(client, cluster, record, desired);
    await client.apply(
      objectPath(OPENMCP_CLUSTER, namespace, name),
      {
        apiVersion: OPENMCP_CLUSTER.apiVersion,
        kind: OPENMCP_CLUSTER.kind,
        metadata: {
          name,
          namespace,
          labels: { [PROVIDER_LABEL]: this.options.identity.providerName, [K8S_VERSION_LABEL]: version.slice(1) },
          annotations: { [PROVIDER_INFO_ANNOTATION]: providerInfoOf(applied) },
        },
      },
      this.keys.fieldManager,
    );
    const configured: ConditionUpdate = { type: "ClusterConfigured", status: "True", reason: "Applied", message: `Cluster API Cluster ${name} with Kubernetes ${version}` };
    await this.report(client, cluster, [configured, clusterConfigs], applied);
    return undefined;
  }

  /** The template's resources, then the Cluster API Cluster; the applied Cluster API Cluster. */
  private async applyObjects(client: RestClient, objects: ClusterApiObjects, signal: AbortSignal): Promise<CapiCluster> {
    for (const resource of objects.resources) {
      const resourcePath = await this.discovery.objectPath(resource.apiVersion, resource.kind, resource.metadata.namespace, resource.metadata.name, signal);
      await client.apply(resourcePath, resource, this.keys.fieldManager);
    }
    return client.apply<CapiCluster>(objectPath(CAPI_CLUSTER, objects.cluster.metadata.namespace, objects.cluster.metadata.name), objects.cluster, this.keys.fieldManager);
  }

  /** `kind (apiVersion)` of each kind the objects need that the API server does not serve. */
  private async unservedKinds(objects: ClusterApiObjects, signal: AbortSignal): Promise<string[]> {
    const kinds = new Map([objects.cluster, ...objects.resources].map((o) => [`${o.kind} (${o.apiVersion})`, o]));
    const unserved: string[] = [];
    for (const [label, o] of kinds) {
      if ((await this.discovery.served(o.apiVersion, o.kind, signal)) === undefined) unserved.push(label);
    }
    return unserved;
  }

  /** Writes `objects` as the applied-objects record unless it is the `previous` text; the record's text. */
  private async record(client: RestClient, cluster: DeepReadonly<OpenMcpCluster>, previous: string | undefined, objects: readonly AppliedObject[]): Promise<string> {
    const text = recordText(objects);
    if (text === previous) return text;
    const path = objectPath(OPENMCP_CLUSTER, cluster.metadata.namespace, cluster.metadata.name ?? "");
    const metadata = { name: cluster.metadata.name, namespace: cluster.metadata.namespace, annotations: { [APPLIED_OBJECTS_ANNOTATION]: text } };
    await client.apply(path, { apiVersion: OPENMCP_CLUSTER.apiVersion, kind: OPENMCP_CLUSTER.kind, metadata }, this.recordFieldManager);
    return text;
  }

  private async cleanup(client: RestClient, cluster: OpenMcpCluster, signal: AbortSignal): Promise<Result | undefined> {
    const foreign = (cluster.metadata.finalizers ?? []).filter((f) => f !== this.keys.finalizers.cluster);
    const name = cluster.metadata.name ?? "";
    const namespace = cluster.metadata.namespace ?? "";
    const capiPath = objectPath(CAPI_CLUSTER, namespace, name);
    const capi = await getIfPresent<CapiCluster>(client, capiPath);
    const ours = capi !== undefined && this.madeFor(capi, cluster) ? capi : undefined;
    if (foreign.length > 0) {
      const message = `waiting for finalizers ${foreign.join(", ")} to be removed`;
      await this.report(client, cluster, [{ type: "ClusterReady", status: "False", reason: "WaitingForFinalizers", message }], ours);
      // Without a requeue, finalize would remove our finalizer now and the Cluster API Cluster would never be deleted.
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    if (ours !== undefined) {
      if (ours.metadata.deletionTimestamp === undefined) await deleteIfPresent(client, capiPath);
      await this.report(client, cluster, [{ type: "ClusterReady", status: "False", reason: "Deleting", message: `waiting for Cluster API to delete Cluster ${name}` }], ours);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    // What the template made and Cluster API did not delete with the Cluster (it deletes what the Cluster refers to), as recorded.
    await this.deleteMadeFor(client, cluster, [...recordedObjects(cluster.metadata.annotations)].reverse(), signal);
    return undefined;
  }

  /**
   * Deletes those of `objects` that carry this Cluster's labels, in order:
   * one of the name made by someone else is not ours to delete, and a kind
   * no longer served has nothing left to delete.
   */
  private async deleteMadeFor(client: RestClient, cluster: DeepReadonly<OpenMcpCluster>, objects: readonly AppliedObject[], signal: AbortSignal): Promise<void> {
    for (const object of objects) {
      let resourcePath: string;
      try {
        resourcePath = await this.discovery.objectPath(object.apiVersion, object.kind, object.namespace, object.name, signal);
      } catch (err) {
        if (err instanceof UnknownKindError) continue;
        throw err;
      }
      const existing = await getIfPresent<KubeObject>(client, resourcePath);
      if (existing !== undefined && this.madeFor(existing, cluster)) await deleteIfPresent(client, resourcePath);
    }
  }

  /** The objects for a Cluster in the version it runs or moves to, or the condition that says why there are none. */
  private plan(cluster: DeepReadonly<OpenMcpCluster>, current: string | undefined): Plan {
    const fail = (reason: string, message: string): Plan => ({ problem: { type: "ClusterConfigured", status: "False", reason, message } });
    const profileName = cluster.spec?.profile ?? "";
    const profile = this.options.profiles.get(platformKey(profileName));
    if (profile === undefined || !profileBelongsTo(profile, this.options.identity.providerName)) {
      return fail("ProfileNotFound", `ClusterProfile ${profileName} does not exist or is not this provider's`);
    }
    const configName = profile.spec?.providerConfigRef.name ?? "";
    const config = this.options.configs.get(platformKey(configName));
    if (config === undefined) return fail("ProviderConfigNotFound", `the ProviderConfig ${configName} of profile ${profileName} does not exist`);
    try {
      const version = templateSetVersion({
        requested: cluster.spec?.kubernetes?.version,
        offeredBy: `profile ${profileName}`,
        offered: config.spec.kubernetesVersions.map((v) => ({ version: v.version, ...(v.deprecated === undefined ? {} : { deprecated: v.deprecated }) })),
        current,
      });
      if (!version.ok) return fail(version.reason, version.message);
      const objects = renderClusterApiObjects({
        name: cluster.metadata.name ?? "",
        namespace: cluster.metadata.namespace ?? "",
        kubernetesVersion: version.version,
        labels: { ...this.keys.labels, [OPENMCP_CLUSTER_NAME_LABEL]: cluster.metadata.name ?? "", [OPENMCP_CLUSTER_NAMESPACE_LABEL]: cluster.metadata.namespace ?? "" },
        template: config.spec.template as ClusterTemplate,
      });
      return { objects, version: version.version, configName };
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
    return !carriesLabels(existing, this.keys.labels) || existing.metadata.labels?.[OPENMCP_CLUSTER_NAME_LABEL] !== objects.cluster.metadata.labels[OPENMCP_CLUSTER_NAME_LABEL];
  }

  private madeFor(obj: DeepReadonly<Pick<KubeObject, "metadata">>, cluster: DeepReadonly<OpenMcpCluster>): boolean {
    const labels = obj.metadata?.labels ?? {};
    return labels[OPENMCP_CLUSTER_NAME_LABEL] === cluster.metadata.name && labels[OPENMCP_CLUSTER_NAMESPACE_LABEL] === cluster.metadata.namespace;
  }

  /**
   * Writes the status: `updates`, and from the Cluster API Cluster made for
   * this Cluster when there is one, `ClusterReady`, the endpoints and the
   * provider status. Every write says all of them, so that a reconcile that
   * stops early does not take back what the Cluster runs.
   */
  private async report(client: RestClient, cluster: OpenMcpCluster, updates: readonly ConditionUpdate[], capi: DeepReadonly<CapiCluster> | undefined): Promise<void> {
    if (capi === undefined) {
      await this.writeStatus(client, cluster, updates, {});
      return;
    }
    const readiness = clusterApiReadiness(capi);
    const ready: ConditionUpdate = { type: "ClusterReady", status: readiness.state === "Ready" ? "True" : "False", reason: readiness.reason, message: scrubText(readiness.message) };
    // Deletion says itself why the Cluster is not ready.
    const all = updates.some((u) => u.type === ready.type) ? updates : [ready, ...updates];
    const internal = await this.kubeconfigServer(client, capi);
    await this.writeStatus(client, cluster, all, { endpoints: endpointsOf(readiness.apiServerEndpoint, internal), providerStatus: { ...providerStatusOf(capi) } });
  }

  /** The API server URL of Cluster API's kubeconfig for the Cluster, once it wrote one; nothing of the kubeconfig but its server leaves here. */
  private async kubeconfigServer(client: RestClient, capi: DeepReadonly<CapiCluster>): Promise<string | undefined> {
    const secret = clusterApiKubeconfigSecret(capi.metadata.name ?? "");
    const found = await getIfPresent<{ data?: Record<string, string> }>(
      client,
      `/api/v1/namespaces/${encodeURIComponent(capi.metadata.namespace ?? "")}/secrets/${encodeURIComponent(secret.name)}`,
    );
    const value = found?.data?.[secret.key];
    if (value === undefined) return undefined;
    try {
      return kubeconfigEndpoint(Buffer.from(value, "base64").toString("utf8")).server;
    } catch {
      // A kubeconfig without a server is Cluster API's to fix; the AccessRequest controller reports it where it matters.
      return undefined;
    }
  }

  private async writeStatus(
    client: RestClient,
    cluster: OpenMcpCluster,
    updates: readonly ConditionUpdate[],
    observed: Pick<ClusterV1alpha1Status, "endpoints" | "providerStatus">,
  ): Promise<void> {
    const generation = cluster.metadata.generation;
    const previous = (cluster.status?.conditions ?? []) as Condition[];
    const conditions = controllerConditions(previous, updates, CLUSTER_CONDITIONS, generation);
    const status: ClusterV1alpha1Status = {
      observedGeneration: generation ?? 0,
      phase: commonPhase({ deleting: cluster.metadata.deletionTimestamp !== undefined, conditions: allConditions(previous, conditions) }),
      conditions,
      ...(observed.endpoints === undefined || observed.endpoints.length === 0 ? {} : { endpoints: observed.endpoints }),
      ...(observed.providerStatus === undefined ? {} : { providerStatus: observed.providerStatus }),
    };
    await applyStatus(client, objectPath(OPENMCP_CLUSTER, cluster.metadata.namespace, cluster.metadata.name ?? ""), cluster, status, this.keys.fieldManager);
    for (const condition of conditions) {
      const before = findCondition(previous, condition.type);
      if (condition.status === "False" && condition.reason !== "Deleting" && (before?.status !== condition.status || before.reason !== condition.reason)) {
        this.options.recorder.event(cluster, condition.type === "ClusterReady" ? "Normal" : "Warning", condition.reason, condition.message);
      }
    }
  }
}

/** The API server's refusal of an object as written (admission webhooks, CEL rules, the schema): retrying the same cannot help. */
function isAdmissionRefusal(err: unknown): err is HttpStatusError {
  return err instanceof HttpStatusError && (err.status === 400 || err.status === 422);
}

function errorMessage(err: HttpStatusError): string {
  return err.statusObject?.message ?? err.message;
}
