/**
 * The Cluster API cluster provider on this machine, as openMCP would run
 * it, for its demo and e2e suite. Everything real that builds here:
 * - a platform cluster (kube-apiserver, kube-controller-manager, etcd) with
 *   openMCP's CRDs;
 * - Cluster API core, the kubeadm bootstrap and control-plane providers, the
 *   in-memory development provider (CAPD) and the Cluster API Operator, as
 *   processes (ClusterApiStack);
 * - the provider's own `init` and `run`, the built CLI, as openMCP's
 *   ClusterProvider Job and Deployment run it;
 * - a second kube-apiserver to stand in as a workload cluster where a test
 *   needs real ServiceAccount tokens.
 * Stand-ins, because no kubelet runs here: the Pods of the Deployments the
 * operator installs are marked Ready while the stack's process playing them
 * is healthy (DeploymentStandIn), so those Deployments become Available; and
 * openMCP's own operator (its scheduler and generic AccessRequest
 * controller, whose module is not served here) is played by `requestAccess`.
 *
 * Air-gapped as a platform without GitHub access would be: the operator's
 * manifest is a file, and every provider's components come from ConfigMaps
 * (`fetchConfig.selector`) built from the pinned modules.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ACCESS_REQUEST, collectionPath, OPENMCP_CLUSTER, objectPath, PROVIDER_CONFIG } from "@edgeconnect/capi-provider-api";
import { RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import {
  applyManifests,
  ClusterApiStack,
  CLUSTER_API_PROVIDERS,
  DeploymentStandIn,
  E2E_LOG_DIR_ENV_VAR,
  eventually,
  fetchConfigMap,
  holds,
  installOpenMcpCrds,
  KubeApiServer,
  moduleSource,
  parseManifests,
  providerComponents,
  REPO_ROOT,
  resolveControlPlaneBinaries,
  ServerProcess,
  type ClusterApiProvider,
  withInMemoryStartup,
  type Reaper,
} from "@edgeconnect/testenv";

const PROVIDER_MAIN = join(REPO_ROOT, "packages", "cluster-provider-capi", "dist", "main.js");
export const IN_MEMORY_PROVIDER_CONFIG = join(REPO_ROOT, "deploy", "cluster-provider-capi", "examples", "providerconfig-in-memory.yaml");
/** Where the in-memory example expects its ClusterClass. */
export const TEMPLATES_NAMESPACE = "capi-templates";

/** The Cluster API Operator's label naming the provider version a fetchConfig ConfigMap holds. */
const VERSION_LABEL = "provider.cluster.x-k8s.io/version";

/** The providers the in-memory example declares, where it declares them, and the labels its fetchConfig selects. */
const EXAMPLE_PROVIDERS: readonly { readonly provider: ClusterApiProvider; readonly namespace: string; readonly name: string }[] = [
  { provider: "dev", namespace: "capd-system", name: "docker" },
  { provider: "kubeadm-bootstrap", namespace: "capi-kubeadm-bootstrap-system", name: "kubeadm" },
  { provider: "kubeadm-control-plane", namespace: "capi-kubeadm-control-plane-system", name: "kubeadm" },
];

export interface OpenMcpPlatformOptions {
  /** Kubeconfigs, manifests and logs go here. */
  readonly dir: string;
  readonly environment?: string;
  readonly providerName?: string;
  readonly reaper?: Reaper;
  readonly log?: (message: string) => void;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
export type Conditioned = KubeObject & { status?: { phase?: string; conditions?: Condition[]; [key: string]: unknown } };

export class OpenMcpPlatform {
  private run: ServerProcess | undefined;

  private constructor(
    readonly options: OpenMcpPlatformOptions,
    readonly platform: KubeApiServer,
    readonly workload: KubeApiServer,
    readonly stack: ClusterApiStack,
    private readonly standIn: DeploymentStandIn,
    readonly client: RestClient,
  ) {}

  get environment(): string {
    return this.options.environment ?? "demo";
  }

  get providerName(): string {
    return this.options.providerName ?? "capi";
  }

  /** Starts the servers and the Cluster API stack; `init` and `run` are the caller's next steps. */
  static async start(options: OpenMcpPlatformOptions): Promise<OpenMcpPlatform> {
    const log = options.log ?? (() => undefined);
    mkdirSync(options.dir, { recursive: true });
    const binaries = await resolveControlPlaneBinaries();
    const server = (dir: string): Promise<KubeApiServer> =>
      KubeApiServer.start({ ...binaries, dir: join(options.dir, dir), ...(options.reaper ? { reaper: options.reaper } : {}) });
    log("starting the platform cluster and a workload cluster (kube-apiserver, kube-controller-manager and etcd each)");
    const [platform, workload] = await Promise.all([server("platform"), server("workload")]);
    const client = platform.adminClient();
    await installOpenMcpCrds(client);
    log("starting Cluster API (core, kubeadm bootstrap and control plane, in-memory provider) and the Cluster API Operator");
    const stack = await ClusterApiStack.start({
      kubeApiServer: platform,
      providers: [...CLUSTER_API_PROVIDERS, "operator"],
      dir: join(options.dir, "cluster-api"),
      keepDir: true,
      ...(options.reaper ? { reaper: options.reaper } : {}),
      resolve: { log },
    });
    const standIn = DeploymentStandIn.start(client, await stack.standInDeployments());
    return new OpenMcpPlatform(options, platform, workload, stack, standIn, client);
  }

  /**
   * What an air-gapped platform team prepares before installing the
   * provider: the operator's manifest as a file, and the components of every
   * provider in ConfigMaps of the providers' namespaces. Returns the init
   * configuration's path.
   */
  async prepareAirGappedSources(): Promise<string> {
    const operator = await providerComponents("operator");
    const manifest = join(this.options.dir, "operator-components.yaml");
    writeFileSync(manifest, operator.components);
    const configMaps: KubeObject[] = [];
    const namespaces = new Set(["capi-system", ...EXAMPLE_PROVIDERS.map((p) => p.namespace)]);
    for (const namespace of namespaces) configMaps.push({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const core = await fetchConfigMap("core", { namespace: "capi-system", labels: { "provider.cluster.x-k8s.io/name": "cluster-api" } });
    configMaps.push(core);
    for (const { provider, namespace, name } of EXAMPLE_PROVIDERS) {
      configMaps.push(await fetchConfigMap(provider, { namespace, labels: { "provider.cluster.x-k8s.io/name": name } }));
    }
    await applyManifests(this.client, configMaps);
    // The version the ConfigMap holds, as the operator reads it: the core provider must ask for that one.
    const coreVersion = core.metadata?.labels?.[VERSION_LABEL];
    if (coreVersion === undefined) throw new Error(`the core provider's ConfigMap has no ${VERSION_LABEL} label`);
    const config = join(this.options.dir, "init.yaml");
    writeFileSync(
      config,
      [
        "operator:",
        `  file: ${manifest}`,
        "coreProvider:",
        "  namespace: capi-system",
        `  version: ${coreVersion}`,
        "  fetchConfig:",
        "    selector:",
        "      matchLabels:",
        "        provider.cluster.x-k8s.io/name: cluster-api",
        "  manager:",
        "    featureGates:",
        "      ClusterTopology: true",
        "",
      ].join("\n"),
    );
    return config;
  }

  /** The ClusterClass the in-memory example names. */
  async installInMemoryClusterClass(options: InMemoryClusterClassOptions = {}): Promise<void> {
    await installInMemoryClusterClass(this.client, options);
  }

  /** `cluster-provider-capi init`, as the ClusterProvider's Job runs it; resolves with its exit code. */
  async init(configFile: string, extraArgs: readonly string[] = []): Promise<{ code: number | null; log: string }> {
    const process = this.provider("init", ["init", `--config=${configFile}`, "--timeout=5m", ...extraArgs]);
    const status = await process.exited;
    return { code: status.code, log: process.logTail(40) };
  }

  /** `cluster-provider-capi run`, as the ClusterProvider's Deployment runs it; its exit, unless stopped, ends every wait (`watchExit`). */
  startRun(): ServerProcess {
    this.run = this.provider("run", ["run", "--metrics-bind-address=0", "--health-probe-bind-address=0"]);
    this.run.watchExit();
    return this.run;
  }

  /** The in-memory example ProviderConfig, as documented. */
  async applyInMemoryProviderConfig(): Promise<KubeObject> {
    const [config] = parseManifests(readFileSync(IN_MEMORY_PROVIDER_CONFIG, "utf8"));
    if (config === undefined) throw new Error(`${IN_MEMORY_PROVIDER_CONFIG} holds no object`);
    config.spec = { ...(config.spec as object), providerRef: { name: this.providerName } };
    const [applied] = await applyManifests(this.client, [config]);
    return applied ?? config;
  }

  /** An openMCP Cluster of `profile`, as openMCP's scheduler creates one for a ClusterRequest. */
  async createCluster(namespace: string, name: string, profile: string): Promise<void> {
    await applyManifests(this.client, [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
      { apiVersion: OPENMCP_CLUSTER.apiVersion, kind: OPENMCP_CLUSTER.kind, metadata: { name, namespace }, spec: { profile, tenancy: "Exclusive", purposes: ["workload"] } },
    ]);
  }

  async waitForPhase(path: string, phase: string, timeoutMs: number): Promise<Conditioned> {
    return eventually(
      async () => {
        const obj = await this.client.get<Conditioned>(path);
        const problem = obj.status?.conditions?.find((c) => c.status !== "True");
        return holds(obj.status?.phase === phase, `phase ${obj.status?.phase ?? "(none)"}${problem ? `, ${problem.type}: ${problem.reason ?? ""} ${problem.message ?? ""}` : ""}`, obj);
      },
      { timeoutMs, description: `${path} ${phase}` },
    );
  }

  /**
   * Points Cluster API's kubeconfig Secret of a cluster at the workload
   * kube-apiserver: the in-memory workload API server has no TokenRequest,
   * authentication or authorization, so access requests are granted and
   * tried against a real API server instead.
   */
  async useRealWorkloadApiServer(namespace: string, clusterName: string): Promise<void> {
    const value = Buffer.from(readFileSync(this.workload.kubeconfigPath, "utf8")).toString("base64");
    await this.client.request("PATCH", `/api/v1/namespaces/${namespace}/secrets/${clusterName}-kubeconfig`, {
      body: { data: { value } },
      contentType: "application/merge-patch+json",
    });
  }

  /**
   * An AccessRequest for a Cluster, with what openMCP's generic
   * AccessRequest controller adds before a provider sees it: the provider
   * and profile labels, `spec.clusterRef`, phase Pending.
   */
  async requestAccess(namespace: string, name: string, cluster: { namespace: string; name: string; profile: string }, token: Record<string, unknown>): Promise<string> {
    const path = objectPath(ACCESS_REQUEST, namespace, name);
    await applyManifests(this.client, [
      {
        apiVersion: ACCESS_REQUEST.apiVersion,
        kind: ACCESS_REQUEST.kind,
        metadata: { name, namespace, labels: { "clusters.openmcp.cloud/provider": this.providerName, "clusters.openmcp.cloud/profile": cluster.profile } },
        spec: { clusterRef: { namespace: cluster.namespace, name: cluster.name }, token },
      },
    ]);
    const created = await this.client.get<KubeObject>(path);
    await this.client.request("PATCH", `${path}/status`, {
      body: { status: { phase: "Pending", observedGeneration: created.metadata?.generation ?? 1 } },
      contentType: "application/merge-patch+json",
    });
    return path;
  }

  /** The ClusterProfile name the in-memory example becomes. */
  get inMemoryProfile(): string {
    return `${this.environment}.${this.providerName}.in-memory`;
  }

  providerConfigPath(name: string): string {
    return objectPath(PROVIDER_CONFIG, undefined, name);
  }

  clustersPath(namespace: string): string {
    return collectionPath(OPENMCP_CLUSTER, namespace);
  }

  /** A client with the kubeconfig a Granted AccessRequest's Secret holds. */
  static clientFor(kubeconfig: string): RestClient {
    return RestClient.fromKubeconfigText(kubeconfig);
  }

  async stop(): Promise<void> {
    await this.run?.stop();
    await this.standIn.stop();
    this.client.close();
    await this.stack.stop();
    await Promise.all([this.platform.stop(), this.workload.stop()]);
  }

  private provider(name: string, args: readonly string[]): ServerProcess {
    const logDir = process.env[E2E_LOG_DIR_ENV_VAR] ?? this.options.dir;
    return ServerProcess.start({
      name: `cluster-provider-capi ${name}`,
      command: process.execPath,
      args: [PROVIDER_MAIN, ...args, `--environment=${this.environment}`, "--verbosity=DEBUG", `--provider-name=${this.providerName}`, `--kubeconfig=${this.platform.kubeconfigPath}`],
      logFile: join(logDir, `cluster-provider-capi-${name}.log`),
      ...(this.options.reaper ? { reaper: this.options.reaper } : {}),
    });
  }
}

export interface InMemoryClusterClassOptions {
  /** Replaces upstream's simulated machine boot times (10 s for the VM, then 2 s each for node, API server and etcd). */
  readonly startupDuration?: string;
}

/**
 * The ClusterClass the in-memory example ProviderConfig names, from
 * upstream's template in the pinned test module, into TEMPLATES_NAMESPACE
 * of the management cluster `client` reaches (it needs Cluster API's CRDs).
 */
export async function installInMemoryClusterClass(client: RestClient, options: InMemoryClusterClassOptions = {}): Promise<void> {
  const source = (await moduleSource("capi-dev")).dir;
  const text = readFileSync(join(source, "infrastructure", "docker", "templates", "clusterclass-in-memory.yaml"), "utf8");
  const upstream = parseManifests(text).map((obj) => ({ ...obj, metadata: { ...obj.metadata, namespace: TEMPLATES_NAMESPACE } }));
  const objects = options.startupDuration === undefined ? upstream : withInMemoryStartup(upstream, options.startupDuration);
  await applyManifests(client, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: TEMPLATES_NAMESPACE } }, ...objects]);
}
