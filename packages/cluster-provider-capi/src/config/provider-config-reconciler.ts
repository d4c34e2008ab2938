/**
 * The config controller: a ProviderConfig of this provider becomes
 *
 * 1. the Cluster API providers it declares, as Cluster API Operator objects
 *    (InfrastructureProvider, BootstrapProvider, ControlPlaneProvider) in
 *    their namespaces, kept in step with the declaration and deleted when no
 *    config declares them any more;
 * 2. the openMCP ClusterProfile `<environment>.<provider-name>.<config-name>`
 *    with the config's Kubernetes versions, which is how openMCP learns what
 *    this provider offers;
 * 3. status: `TemplateValid`, `ProvidersReady` (from the operator's own
 *    conditions), `ClusterProfileReady`, and the phase derived from them.
 *
 * A config whose template or versions are invalid changes nothing until it
 * is fixed: its conditions say what is wrong. Deleting a config waits until
 * no openMCP Cluster uses its profile, then removes the profile and the
 * providers only it declared.
 */
import type {
  ClusterProfileV1alpha1,
  ClusterV1alpha1,
  ProviderConfigV1alpha1,
  ProviderConfigV1alpha1Provider,
  ProviderConfigV1alpha1Status,
} from "@edgeconnect/capi-provider-api";
import { CLUSTER_PROFILE, INFRASTRUCTURE_PROVIDER, objectPath, PROVIDER_CONFIG } from "@edgeconnect/capi-provider-api";
import { deleteIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { normalizeClusterApiVersion, validateClusterTemplate, type ClusterTemplate } from "@edgeconnect/provisioning";
import {
  applyStatus,
  finalize,
  findCondition,
  joinKey,
  type ConditionUpdate,
  type DeepReadonly,
  type EventRecorder,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Store,
} from "@edgeconnect/runtime";
import { clusterProfileName, ProfileNameError } from "../openmcp/profile-naming.js";
import { commonPhase } from "../openmcp/status-phase.js";
import { OPERATION } from "../openmcp/constants.js";
import { operationOf } from "../openmcp/operation-annotation.js";
import { clearReconcileAnnotation } from "../provider/reconcile-annotation.js";
import { FIELD_MANAGER, MANAGED_BY, providerKeys, type ProviderIdentity, type ProviderKeys } from "../provider/provider-identity.js";
import { allConditions, controllerConditions } from "../provider/status-conditions.js";
import {
  declaredByLabel,
  declaredProviders,
  declaringConfigs,
  operatorProviderObject,
  providerConflicts,
  providerKey,
  type DeclaredProvider,
} from "./desired-providers.js";
import { operatorResource, type OperatorProviderStores } from "./operator-providers.js";
import { providerReadiness } from "./provider-readiness.js";
import { platformKey } from "../provider/platform-keys.js";

export type ProviderConfig = ProviderConfigV1alpha1 & KubeObject;
export type ClusterProfile = ClusterProfileV1alpha1 & KubeObject;
export type OpenMcpCluster = ClusterV1alpha1 & KubeObject;

/** While a config waits for its Clusters to go, how often to look again besides the Clusters' own events. */
const DELETION_RECHECK_MS = 30_000;

export interface ProviderConfigReconcilerOptions {
  readonly identity: ProviderIdentity;
  /** The platform cluster. */
  readonly client: RestClient;
  readonly configs: Store<ProviderConfig>;
  readonly clusters: Store<OpenMcpCluster>;
  readonly operatorProviders: OperatorProviderStores;
  readonly recorder: EventRecorder;
}

export class ProviderConfigReconciler implements Reconciler {
  private readonly keys: ProviderKeys;

  constructor(private readonly options: ProviderConfigReconcilerOptions) {
    this.keys = providerKeys(options.identity);
  }

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const config = this.options.configs.get(joinKey(request));
    if (config === undefined || !this.isOurs(config) || operationOf(config) === OPERATION.Ignore) return undefined;
    const client = this.options.client.withSignal(signal);
    const path = objectPath(PROVIDER_CONFIG, undefined, request.name);
    const result = await finalize(client, path, config as ProviderConfig, this.keys.finalizers.providerConfig, {
      apply: (live) => this.apply(client, live),
      cleanup: (live) => this.cleanup(client, live),
    });
    await clearReconcileAnnotation(client, path, config);
    return result;
  }

  private isOurs(config: DeepReadonly<ProviderConfig>): boolean {
    return config.spec.providerRef.name === this.options.identity.providerName;
  }

  private async apply(client: RestClient, config: ProviderConfig): Promise<Result | undefined> {
    const name = config.metadata.name ?? "";
    const problems = configProblems(config);
    let profile: string | undefined;
    let profileProblem: string | undefined;
    try {
      profile = clusterProfileName(this.options.identity.environment, this.options.identity.providerName, name);
    } catch (err) {
      if (!(err instanceof ProfileNameError)) throw err;
      profileProblem = err.message;
      problems.push(err.message);
    }
    const templateValid: ConditionUpdate =
      problems.length === 0
        ? { type: "TemplateValid", status: "True", reason: "Valid", message: "the template and Kubernetes versions are valid" }
        : { type: "TemplateValid", status: "False", reason: "InvalidConfiguration", message: problems.join("; ") };
    if (problems.length > 0 || profile === undefined) {
      // Nothing is applied from a config that cannot work: what it made before stays as it was.
      await this.writeStatus(client, config, profile, [], [
        templateValid,
        { type: "ProvidersReady", status: "Unknown", reason: "InvalidConfiguration", message: "not installing providers until the configuration is fixed" },
        profileProblem === undefined
          ? { type: "ClusterProfileReady", status: "Unknown", reason: "InvalidConfiguration", message: "not publishing the profile until the configuration is fixed" }
          : { type: "ClusterProfileReady", status: "False", reason: "InvalidProfileName", message: profileProblem },
      ]);
      return undefined;
    }

    const others = this.liveConfigs().filter((other) => other.metadata.name !== name);
    const conflicts = providerConflicts(config, others);
    const conflicting = new Set(conflicts.map((conflict) => providerKey(conflict.provider)));
    const declared = declaredProviders(config);
    const applicable = declared.filter((p) => !conflicting.has(providerKey(p)));
    for (const provider of applicable) {
      await this.ensureNamespace(client, provider.namespace);
      await client.apply(
        objectPath(operatorResource(provider.kind), provider.namespace, provider.name),
        operatorProviderObject(provider, name, INFRASTRUCTURE_PROVIDER.apiVersion),
        configFieldManager(name),
      );
    }
    await this.releaseUndeclared(client, name, new Set(applicable.map(providerKey)));

    await client.apply(objectPath(CLUSTER_PROFILE, undefined, profile), this.profileObject(profile, config), this.keys.fieldManager);

    const providers = this.providerStatuses(declared);
    const notReady = providers.filter((p) => p.status.ready !== true);
    const providersReady: ConditionUpdate =
      conflicts.length > 0
        ? {
            type: "ProvidersReady",
            status: "False",
            reason: "ProviderConflict",
            message: conflicts
              .map((c) => `${c.provider.kind} ${c.provider.name} is declared differently by ProviderConfig ${c.winner}, which wins; declare it the same way here`)
              .join("; "),
          }
        : notReady.length === 0
          ? { type: "ProvidersReady", status: "True", reason: "Ready", message: declared.length === 0 ? "no providers declared" : "every declared provider is installed and ready" }
          : { type: "ProvidersReady", status: "False", reason: "Installing", message: notReady.map((p) => `${p.status.type} ${p.status.name}: ${p.message}`).join("; ") };
    await this.writeStatus(client, config, profile, providers.map((p) => p.status), [
      templateValid,
      providersReady,
      { type: "ClusterProfileReady", status: "True", reason: "Published", message: `ClusterProfile ${profile} is published` },
    ]);
    return undefined;
  }

  private async cleanup(client: RestClient, config: ProviderConfig): Promise<Result | undefined> {
    const name = config.metadata.name ?? "";
    let profile: string | undefined;
    try {
      profile = clusterProfileName(this.options.identity.environment, this.options.identity.providerName, name);
    } catch (err) {
      if (!(err instanceof ProfileNameError)) throw err;
    }
    const users = profile === undefined ? [] : this.options.clusters.list().filter((cluster) => cluster.spec?.profile === profile);
    if (users.length > 0) {
      const listed = users.slice(0, 5).map((c) => `${c.metadata.namespace ?? ""}/${c.metadata.name ?? ""}`);
      await this.writeStatus(client, config, profile, config.status?.providers ?? [], [
        {
          type: "ClusterProfileReady",
          status: "False",
          reason: "WaitingForClusters",
          message: `${users.length} Cluster(s) still use profile ${profile ?? ""} (${listed.join(", ")}${users.length > 5 ? ", …" : ""}); they must be deleted first`,
        },
      ]);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    if (profile !== undefined) await deleteIfPresent(client, objectPath(CLUSTER_PROFILE, undefined, profile));
    await this.releaseUndeclared(client, name, new Set());
    return undefined;
  }

  /**
   * Lets go of the operator objects `configName` labelled but no longer
   * declares: an object no other config declares is deleted (the operator
   * then uninstalls the provider), a shared one only loses this config's
   * label and field ownership.
   */
  private async releaseUndeclared(client: RestClient, configName: string, keep: ReadonlySet<string>): Promise<void> {
    for (const { kind, provider } of this.options.operatorProviders.all()) {
      const labels = provider.metadata.labels ?? {};
      if (!(declaredByLabel(configName) in labels) || keep.has(providerKey({ kind, name: provider.metadata.name ?? "" }))) continue;
      const path = objectPath(operatorResource(kind), provider.metadata.namespace, provider.metadata.name ?? "");
      const others = declaringConfigs(labels).filter((other) => other !== configName && this.options.configs.get(platformKey(other)) !== undefined);
      if (others.length === 0) {
        await deleteIfPresent(client, path);
        continue;
      }
      // An apply with no fields gives up everything this config's manager owned, its label included.
      await client.apply(path, { apiVersion: INFRASTRUCTURE_PROVIDER.apiVersion, kind, metadata: { name: provider.metadata.name, namespace: provider.metadata.namespace } }, configFieldManager(configName));
    }
  }

  private providerStatuses(declared: readonly DeclaredProvider[]): ProviderStatus[] {
    return declared.map((provider) => {
      const observed = this.options.operatorProviders.get(provider.kind, provider.namespace, provider.name);
      const { ready, message } = providerReadiness(provider.declaration.version, observed);
      return {
        status: {
          type: provider.kind,
          name: provider.name,
          namespace: provider.namespace,
          ...(observed?.status?.installedVersion === undefined ? {} : { installedVersion: observed.status.installedVersion }),
          ready,
        },
        message,
      };
    });
  }

  private profileObject(profile: string, config: ProviderConfig): Record<string, unknown> {
    return {
      apiVersion: CLUSTER_PROFILE.apiVersion,
      kind: CLUSTER_PROFILE.kind,
      metadata: { name: profile, labels: { ...this.keys.labels } },
      spec: {
        providerRef: { name: this.options.identity.providerName },
        providerConfigRef: { name: config.metadata.name },
        // openMCP's versions carry no leading v.
        supportedVersions: config.spec.kubernetesVersions.map((v) => ({
          version: normalizeClusterApiVersion(v.version).slice(1),
          ...(v.deprecated === true ? { deprecated: true } : {}),
        })),
      },
    };
  }

  private async ensureNamespace(client: RestClient, namespace: string): Promise<void> {
    await client.apply(`/api/v1/namespaces/${encodeURIComponent(namespace)}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: { ...MANAGED_BY } } }, FIELD_MANAGER);
  }

  private liveConfigs(): DeepReadonly<ProviderConfig>[] {
    return this.options.configs.list().filter((config) => this.isOurs(config) && config.metadata.deletionTimestamp === undefined);
  }

  private async writeStatus(
    client: RestClient,
    config: ProviderConfig,
    profile: string | undefined,
    providers: readonly ProviderConfigV1alpha1Provider[],
    updates: readonly ConditionUpdate[],
  ): Promise<void> {
    const generation = config.metadata.generation;
    const previous = (config.status?.conditions ?? []);
    const conditions = controllerConditions(previous, updates, CONFIG_CONDITIONS, generation);
    const status: ProviderConfigV1alpha1Status = {
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      phase: commonPhase({ deleting: config.metadata.deletionTimestamp !== undefined, conditions: allConditions(previous, conditions) }),
      ...(profile === undefined ? {} : { profile }),
      providers: [...providers],
      conditions,
    };
    await applyStatus(client, objectPath(PROVIDER_CONFIG, undefined, config.metadata.name ?? ""), config, status, this.keys.fieldManager);
    const before = findCondition(previous, "TemplateValid");
    const now = findCondition(conditions, "TemplateValid");
    if (now !== undefined && now.status === "False" && (before?.status !== now.status || before.message !== now.message)) {
      this.options.recorder.event(config, "Warning", now.reason, now.message);
    }
  }
}

const CONFIG_CONDITIONS = ["TemplateValid", "ProvidersReady", "ClusterProfileReady"];

/** A provider's entry in the status, and why it is not ready yet (for the condition). */
interface ProviderStatus {
  readonly status: ProviderConfigV1alpha1Provider;
  readonly message: string;
}

/** Each config applies operator objects as its own field manager, so configs sharing a provider own their labels apart. */
function configFieldManager(configName: string): string {
  return `${FIELD_MANAGER}/${configName}`;
}

/** What is wrong with a config before anything is applied from it. */
export function configProblems(config: DeepReadonly<Pick<ProviderConfig, "spec">>): string[] {
  const problems = validateClusterTemplate(config.spec.template as ClusterTemplate).map((p) => `template: ${p}`);
  for (const entry of config.spec.kubernetesVersions) {
    try {
      normalizeClusterApiVersion(entry.version);
    } catch (err) {
      problems.push(`kubernetesVersions: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!config.spec.kubernetesVersions.some((v) => v.deprecated !== true)) {
    problems.push("kubernetesVersions: at least one version must not be deprecated, for Clusters that name none");
  }
  return problems;
}
