/**
 * The whole provider-controller system on this machine, for the demo and
 * the e2e suites: on a running kcp and infrastructure cluster it starts a
 * workload kube-apiserver (what simulated CCE clusters' kubeconfigs reach),
 * the OTC simulator, the Crossplane OTC provider simulator and the
 * provider-controller as their own processes (the built CLIs, started as a
 * user starts them), installs our APIExport, WorkspaceType and flavor
 * catalogue in a provider workspace, and makes tenant workspaces of that
 * type.
 *
 * The simulators are test support; the controller talks to them as to OTC
 * and Crossplane.
 *
 * The controller runs with the rights it ships, not as admin
 * (`leastPrivilege`): in kcp as the static user `provider-controller` bound
 * by deploy/provider-controller/kcp, on the infrastructure cluster as a
 * ServiceAccount bound by the chart's own RBAC. A right missing there fails
 * the suites that use this. The platform's own setup and the tests' checks
 * stay admin.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  collectionPath,
  KUBERNETES_CLUSTER_RESOURCE,
  MACHINE_CAPABILITIES_RESOURCE,
  objectPath,
  PLATFORM_API_VERSION,
  PROVIDER_CONFIG_RESOURCE,
  PROVIDER_MACHINE_FLAVOR_RESOURCE,
  SECRET_LABEL,
  type KubernetesCluster,
} from "@edgeconnect/api";
import { HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { createCertificateAuthority, startOtcSimulator, type OtcSimulator, type OtcSimulatorOptions } from "@edgeconnect/otc-simulator";
import {
  applyManifests,
  parseManifests,
  createWorkspace,
  CrossplaneOtcSimulator,
  E2E_LOG_DIR_ENV_VAR,
  eventually,
  kcpUserKubeconfig,
  KubeApiServer,
  objectPath as manifestPath,
  readKubeconfig,
  recordE2eCredentials,
  REPO_ROOT,
  resolveBinary,
  resolveControlPlaneBinaries,
  ServerProcess,
  writeKubeconfig,
  type ExitStatus,
  type Reaper,
  type Workspace,
} from "@edgeconnect/testenv";

export const TENANT_WORKSPACE_TYPE = "edgeconnect-tenant";
const APIEXPORT_DIR = join(REPO_ROOT, "apiexports", "platform.edgeconnect.eu");
const CONTROLLER_MAIN = join(REPO_ROOT, "packages", "provider-controller", "dist", "main.js");
const CONTROLLER_CHART = join(REPO_ROOT, "deploy", "provider-controller");
const CONTROLLER_KCP_RBAC = join(CONTROLLER_CHART, "kcp", "provider-controller-rbac.yaml");
/** The static user of the test kcp (KCP_TEST_USERS) that the kcp RBAC manifest binds. */
const CONTROLLER_KCP_USER = "provider-controller";
/** The chart's templates that make the ServiceAccount and its RBAC; nothing else of the chart is rendered. */
const CONTROLLER_IDENTITY_TEMPLATES = ["templates/serviceaccount.yaml", "templates/rbac.yaml"];
const IDENTITY_KINDS = new Set(["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]);
const run = promisify(execFile);

/** A catalogue like a platform team would register for OTC eu-de. */
export const DEMO_FLAVORS: readonly { name: string; flavor: string; vCPUCount: number; memorySize: string; gpuModelName?: string; zones?: string[]; available?: boolean }[] = [
  { name: "otc-s3-large-2", flavor: "s3.large.2", vCPUCount: 2, memorySize: "4Gi" },
  { name: "otc-c4-xlarge-2", flavor: "c4.xlarge.2", vCPUCount: 4, memorySize: "8Gi" },
  { name: "otc-s3-xlarge-4", flavor: "s3.xlarge.4", vCPUCount: 4, memorySize: "16Gi" },
  { name: "otc-s3-2xlarge-4", flavor: "s3.2xlarge.4", vCPUCount: 8, memorySize: "32Gi" },
  { name: "otc-p2s-2xlarge-8", flavor: "p2s.2xlarge.8", vCPUCount: 8, memorySize: "64Gi", gpuModelName: "V100", zones: ["eu-de-01"] },
];

export interface PlatformOptions {
  readonly kcpUrl: string;
  /** kcp admin kubeconfig. */
  readonly kcpKubeconfig: string;
  readonly infraKubeconfig: string;
  /** Kubeconfigs and logs go here. */
  readonly dir: string;
  /** Name of the provider workspace below root. Default `edgeconnect`. */
  readonly providerWorkspace?: string;
  /** Per flavor and zone; flavors not named have unlimited capacity. */
  readonly capacity?: OtcSimulatorOptions["capacity"];
  /** Crossplane's poll interval (the real provider's default is 10m). Default 500ms. */
  readonly pollInterval?: string;
  readonly reaper?: Reaper;
  readonly log?: (message: string) => void;
  /** Tells process log files apart when several platforms run in one test run. */
  readonly runId?: string;
  /**
   * Runs the controller with `--cluster-api`: the infrastructure cluster must
   * then serve the template sets' CRD and Cluster API's Cluster.
   */
  readonly clusterApi?: boolean;
  /**
   * OTC accounts (an IAM user and a project each) in the simulator, one per
   * tenant: `tenantCredentials(0 .. n-1)`. Default 8. The first 8 are the
   * literal ones below; further ones have generated, deterministic passwords.
   */
  readonly tenantAccounts?: number;
  /** How long the simulator keeps resources in their transitional states (its defaults when unset). */
  readonly otcDelays?: Pick<OtcSimulatorOptions, "transitionDelayMs" | "cceClusterCreateMs" | "cceClusterDeleteMs" | "nodePoolSyncMs">;
  /** Node options for the provider-controller process, before its script (e.g. `--cpu-prof`). */
  readonly controllerNodeArgs?: readonly string[];
  /**
   * More provider-controller flags, after the platform's own (a later flag
   * wins). Read at each start, so a test can restart the controller
   * (`stopController`, `resumeController`) with other flags.
   */
  readonly controllerArgs?: () => readonly string[];
  /**
   * Runs the controller with only the rights it ships (`controllerIdentities`)
   * instead of the admin kubeconfigs. Default true. Needs a kcp started by
   * testenv's KcpServer (its static token file) and a token-authenticated
   * infrastructure kubeconfig.
   */
  readonly leastPrivilege?: boolean;
  /**
   * Provider-controller processes to run side by side, all with the same
   * flags (pass `--sharded` in `controllerArgs` for more than one). Default
   * 1; 0 when the controller is run otherwise (`make run-kcp-local`). The
   * single-controller methods act on replica 0.
   */
  readonly controllerReplicas?: number;
  /**
   * Where the controller reaches the infrastructure cluster under
   * `leastPrivilege` (its ServiceAccount's token rides along): a proxy in
   * front of it, for tests that cut its watches. Default the cluster itself.
   */
  readonly controllerInfraServer?: string;
}

export interface ControllerIdentityOptions {
  readonly kcpUrl: string;
  /** kcp admin kubeconfig: its directory holds the static token file. */
  readonly kcpKubeconfig: string;
  /** Admin on the infrastructure cluster. */
  readonly infraKubeconfig: string;
  /** The provider workspace, with an admin client. */
  readonly provider: Workspace;
  /** Kubeconfigs and helm's scratch files go here. */
  readonly dir: string;
  /** Helm release name: names the ServiceAccount, its namespace and the cluster-wide RBAC, so one per platform. */
  readonly release: string;
  /** The chart's `clusterApi.enabled`. */
  readonly clusterApi?: boolean;
  /** Where the controller reaches the infrastructure cluster, if not where the admin does (a proxy that cuts its watches). */
  readonly infraServer?: string;
}

/** What the controller runs as under `leastPrivilege`. */
export interface ControllerIdentities {
  /** The kcp user on the provider workspace. */
  readonly kcpKubeconfig: string;
  /** The chart's ServiceAccount, by a TokenRequest token. */
  readonly infraKubeconfig: string;
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
  /** What was applied on the infrastructure cluster, its namespace first; removed by `Platform.stop`. */
  readonly infraObjects: readonly KubeObject[];
}

export interface TenantCredentials {
  readonly domainName: string;
  readonly userName: string;
  readonly password: string;
  readonly projectName: string;
}

export class Platform {
  private controllerRuns = 0;
  private crossplane: CrossplaneOtcSimulator | undefined;
  /** The provider-controller replicas; index 0 is "the" controller. */
  private readonly controllers: ServerProcess[] = [];
  /** What the controller runs as: the least-privilege identities, or the admin ones. */
  private controllerKubeconfigs: { readonly kcp: string; readonly infra: string };
  private identities: ControllerIdentities | undefined;

  private constructor(
    private readonly options: PlatformOptions,
    private readonly accounts: readonly TenantCredentials[],
    readonly kcp: RestClient,
    readonly infra: RestClient,
    readonly provider: Workspace,
    readonly providerKubeconfig: string,
    readonly workload: KubeApiServer,
    readonly otc: OtcSimulator,
  ) {
    this.controllerKubeconfigs = { kcp: providerKubeconfig, infra: options.infraKubeconfig };
  }

  static async start(options: PlatformOptions): Promise<Platform> {
    const log = options.log ?? (() => undefined);
    const kcp = RestClient.fromFile(options.kcpKubeconfig);
    const infra = RestClient.fromFile(options.infraKubeconfig);
    const started: (() => Promise<void>)[] = [];
    try {
      const accounts = tenantAccounts(options.tenantAccounts ?? TENANT_PASSWORDS.length);
      // The generated passwords are in no source the e2e credential guard reads: it reads them from this record.
      recordE2eCredentials(
        `demo-platform-${process.pid}-${randomBytes(4).toString("hex")}`,
        accounts.map((account, index) => ({ origin: `OTC password of demo tenant ${index} (${account.userName})`, value: account.password })),
      );
      // The simulated cloud and the provider workspace need nothing of each
      // other and each waits on a server of its own (the workload cluster's
      // start; kcp serving the catalogue CRD, seconds each): made side by side.
      // Both are awaited even when one fails, so that what either started is stopped.
      const [cloud, provider] = await Promise.allSettled([Platform.startCloud(options, accounts, started, log), Platform.setUpProvider(options, kcp, infra, started, log)]);
      if (cloud.status === "rejected") throw cloud.reason;
      if (provider.status === "rejected") throw provider.reason;
      const { workload, otc } = cloud.value;
      const platform = new Platform(options, accounts, kcp, infra, provider.value.workspace, provider.value.kubeconfig, workload, otc);
      const identities = provider.value.identities;
      if (identities !== undefined) {
        platform.identities = identities;
        platform.controllerKubeconfigs = { kcp: identities.kcpKubeconfig, infra: identities.infraKubeconfig };
      }
      platform.crossplane = await CrossplaneOtcSimulator.start({
        binary: (await resolveBinary("crossplane-otc-simulator")).path,
        kubeconfig: options.infraKubeconfig,
        logFile: platform.logFile("crossplane-otc-simulator"),
        poll: options.pollInterval ?? "500ms",
        ...(options.reaper ? { reaper: options.reaper } : {}),
      });
      started.push(() => platform.crossplane?.stop() ?? Promise.resolve());
      for (let i = 0; i < (options.controllerReplicas ?? 1); i++) platform.controllers.push(platform.startController());
      log(`Crossplane OTC provider simulator and ${platform.controllers.length} provider-controller replica(s) running`);
      return platform;
    } catch (err) {
      for (const stop of started.reverse()) await stop().catch(() => undefined);
      kcp.close();
      infra.close();
      throw err;
    }
  }

  /** The workload cluster behind simulated CCE and the OTC simulator serving the tenants' accounts. */
  private static async startCloud(
    options: PlatformOptions,
    accounts: readonly TenantCredentials[],
    started: (() => Promise<void>)[],
    log: (message: string) => void,
  ): Promise<{ workload: KubeApiServer; otc: OtcSimulator }> {
    const clientCa = createCertificateAuthority("edgeconnect-simulated-cce");
    const binaries = await resolveControlPlaneBinaries();
    log("starting the workload cluster (kube-apiserver, kube-controller-manager, etcd) behind simulated CCE");
    const workload = await KubeApiServer.start({
      ...binaries,
      clientCaPem: clientCa.certPem,
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
    started.push(() => workload.stop());
    const servingCaPem = readKubeconfig(workload.kubeconfigPath).caPem;
    const otc = await startOtcSimulator({
      credentials: [TENANT_ACCESS_KEY],
      users: accounts.map(({ domainName, userName, password }) => ({ domainName, userName, password })),
      projects: accounts.map((user, index) => ({ id: tenantProjectId(index), name: user.projectName })),
      region: "eu-de",
      workloadCluster: { url: workload.url, servingCaPem, clientCa },
      ...(options.capacity ? { capacity: options.capacity } : {}),
      ...options.otcDelays,
    });
    started.push(() => otc.close());
    log(`OTC simulator on ${otc.url}`);
    return { workload, otc };
  }

  /** The provider workspace with our API and the demo catalogue, and, under `leastPrivilege`, the identities the controller runs as. */
  private static async setUpProvider(
    options: PlatformOptions,
    kcp: RestClient,
    infra: RestClient,
    started: (() => Promise<void>)[],
    log: (message: string) => void,
  ): Promise<{ workspace: Workspace; kubeconfig: string; identities: ControllerIdentities | undefined }> {
    const providerName = options.providerWorkspace ?? "edgeconnect";
    const workspace = await createWorkspace(kcp, providerName);
    await installPlatformApi(workspace);
    await installFlavors(workspace.client, DEMO_FLAVORS);
    const admin = readKubeconfig(options.kcpKubeconfig);
    const kubeconfig = writeKubeconfig(join(options.dir, `${providerName}.kubeconfig`), {
      ...admin,
      name: workspace.path,
      server: `${options.kcpUrl}/clusters/${workspace.path}`,
    });
    log(`provider workspace ${workspace.path}: APIExport, WorkspaceType ${TENANT_WORKSPACE_TYPE} and ${DEMO_FLAVORS.length} flavors installed`);
    if (!(options.leastPrivilege ?? true)) return { workspace, kubeconfig, identities: undefined };
    const identities = await Platform.controllerIdentities({
      kcpUrl: options.kcpUrl,
      kcpKubeconfig: options.kcpKubeconfig,
      infraKubeconfig: options.infraKubeconfig,
      provider: workspace,
      dir: options.dir,
      release: `provider-controller-${options.runId ?? randomBytes(3).toString("hex")}`,
      ...(options.clusterApi === undefined ? {} : { clusterApi: options.clusterApi }),
      ...(options.controllerInfraServer === undefined ? {} : { infraServer: options.controllerInfraServer }),
    });
    started.push(() => removeInfraObjects(infra, identities.infraObjects));
    log(`the controller runs as kcp user ${CONTROLLER_KCP_USER} and ServiceAccount ${identities.serviceAccount.namespace}/${identities.serviceAccount.name}`);
    return { workspace, kubeconfig, identities };
  }

  /**
   * Makes the identities the controller runs with under `leastPrivilege`
   * and returns kubeconfigs for them. In kcp: applies
   * deploy/provider-controller/kcp in the provider workspace, which binds the
   * test kcp's static user `provider-controller`. On the infrastructure
   * cluster: renders the chart's ServiceAccount and RBAC templates only
   * (helm template --show-only), applies them in a namespace named after the
   * release, and asks the TokenRequest API for the ServiceAccount's token.
   */
  static async controllerIdentities(options: ControllerIdentityOptions): Promise<ControllerIdentities> {
    await applyManifests(options.provider.client, readFileSync(CONTROLLER_KCP_RBAC, "utf8"));
    const kcpKubeconfig = writeKubeconfig(
      join(options.dir, `${options.provider.name}-${CONTROLLER_KCP_USER}.kubeconfig`),
      kcpUserKubeconfig(options.kcpKubeconfig, CONTROLLER_KCP_USER, `${options.kcpUrl}/clusters/${options.provider.path}`),
    );

    const namespace = options.release;
    const rendered = await renderControllerIdentity(options.dir, options.release, namespace, options.clusterApi === true);
    const infraObjects: KubeObject[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, ...rendered];
    const serviceAccount = rendered.find((obj) => obj.kind === "ServiceAccount")?.metadata?.name;
    if (serviceAccount === undefined) throw new Error(`${CONTROLLER_CHART} rendered no ServiceAccount`);
    const admin = RestClient.fromFile(options.infraKubeconfig);
    try {
      await applyManifests(admin, infraObjects);
      const review = await admin.create<{ status?: { token?: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`, {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        // A day covers the longest suite and a demo session; the API server may shorten it.
        spec: { expirationSeconds: 86_400 },
      });
      const token = review.status?.token;
      if (token === undefined) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
      const infraKubeconfig = writeKubeconfig(join(options.dir, `${options.release}-infra.kubeconfig`), {
        ...readKubeconfig(options.infraKubeconfig),
        name: `${namespace}:${serviceAccount}`,
        token,
        ...(options.infraServer === undefined ? {} : { server: options.infraServer }),
      });
      return { kcpKubeconfig, infraKubeconfig, serviceAccount: { namespace, name: serviceAccount }, infraObjects };
    } finally {
      admin.close();
    }
  }

  /** The kubeconfigs the controller is started with: least-privilege ones unless `leastPrivilege` is false. */
  get controllerIdentity(): { readonly kcpKubeconfig: string; readonly infraKubeconfig: string } {
    return { kcpKubeconfig: this.controllerKubeconfigs.kcp, infraKubeconfig: this.controllerKubeconfigs.infra };
  }

  /** A tenant workspace of our type: kcp binds the export and accepts its claims; waits until our API is served there. */
  async createTenant(name: string): Promise<Workspace> {
    // Right after the WorkspaceType is made, kcp's admission may not know it yet and answers 403.
    const tenant = await eventually<Workspace>(
      async () => {
        try {
          return [true, await createWorkspace(this.kcp, name, { type: { name: TENANT_WORKSPACE_TYPE, path: this.provider.path } })];
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 403) return [false, err.message];
          throw err;
        }
      },
      { timeoutMs: 30_000, description: `workspace ${name} of type ${TENANT_WORKSPACE_TYPE}` },
    );
    await eventually(
      async () => {
        try {
          await tenant.client.list(collectionPath(KUBERNETES_CLUSTER_RESOURCE));
          return [true, undefined];
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 404) return [false, "the platform API is not served in the workspace yet"];
          throw err;
        }
      },
      { timeoutMs: 60_000, description: `platform API bound in ${tenant.path}` },
    );
    return tenant;
  }

  /** The OTC account of tenant `index` in the simulator (each tenant has its own user and project). */
  tenantCredentials(index: number): TenantCredentials {
    const user = this.accounts[index];
    if (user === undefined) throw new Error(`the simulator has ${this.accounts.length} tenant accounts`);
    return user;
  }

  /** The credentials file of the seed's password format for tenant `index`. */
  passwordCredentials(index: number, override: Partial<TenantCredentials> = {}): string {
    const user = { ...this.tenantCredentials(index), ...override };
    return [`auth_url=${this.otc.url}/v3`, `user_name=${user.userName}`, `password=${user.password}`, `domain_name=${user.domainName}`, `tenant_name=${user.projectName}`, ""].join("\n");
  }

  /** The credentials file of the seed's AK/SK format, for tenant `index`'s project. */
  accessKeyCredentials(index: number): string {
    const user = this.tenantCredentials(index);
    return `${JSON.stringify({ access_key: this.accessKey.accessKey, secret_key: this.accessKey.secretKey, auth_url: `${this.otc.url}/v3`, region: "eu-de", tenant_name: user.projectName }, null, 2)}\n`;
  }

  /** The access key the simulator accepts for every tenant's project. */
  get accessKey(): { readonly accessKey: string; readonly secretKey: string } {
    return TENANT_ACCESS_KEY;
  }

  /** Stops the controller as a crash would (SIGKILL), then starts a new one. */
  async crashController(): Promise<void> {
    await this.controllers[0]?.kill();
    this.controllers[0] = this.startController();
  }

  /** Provider-controller replica `index` (from `controllerReplicas`), to kill, stop or read. */
  replica(index: number): ServerProcess {
    const replica = this.controllers[index];
    if (replica === undefined) throw new Error(`the platform runs ${this.controllers.length} provider-controller replica(s)`);
    return replica;
  }

  get controllerLog(): string {
    return this.controllers[0]?.logTail(400) ?? "";
  }

  /** The running provider-controller's process id (its process group's too). */
  get controllerPid(): number | undefined {
    return this.controllers[0]?.pid;
  }

  /**
   * Stops the provider-controller: SIGTERM, SIGKILL after `graceMs`. A
   * process that profiles itself (`controllerNodeArgs`) writes its profile
   * only on a clean exit, which a busy one may need longer than the default
   * 10 s for. Resolves with how it exited.
   */
  async stopController(graceMs?: number): Promise<ExitStatus | undefined> {
    const controller = this.controllers[0];
    if (controller === undefined) return undefined;
    await controller.stop(graceMs);
    return controller.exited;
  }
  /** Starts a new provider-controller after `stopController`. */
  resumeController(): void {
    if (this.controllers[0]?.running === true) throw new Error("the provider-controller is still running");
    this.controllers[0] = this.startController();
  }


  async stop(): Promise<void> {
    await Promise.allSettled([...this.controllers.map((controller) => controller.stop()), this.crossplane?.stop()]);
    await this.otc.close();
    await this.workload.stop();
    if (this.identities !== undefined) await removeInfraObjects(this.infra, this.identities.infraObjects).catch(() => undefined);
    this.kcp.close();
    this.infra.close();
  }

  private startController(): ServerProcess {
    this.controllerRuns += 1;
    return this.launch(
      `provider-controller-${this.controllerRuns}`,
      CONTROLLER_MAIN,
      [
        `--kcp-kubeconfig=${this.controllerKubeconfigs.kcp}`,
        `--infra-kubeconfig=${this.controllerKubeconfigs.infra}`,
        `--allowed-otc-auth-url=${this.otc.url}/`,
        "--metrics-bind-address=0",
        "--health-probe-bind-address=0",
        ...(this.options.clusterApi === true ? ["--cluster-api"] : []),
        ...(this.options.controllerArgs?.() ?? []),
      ],
      this.options.controllerNodeArgs,
    );
  }

  /**
   * A node process whose output goes where the e2e credential guard reads it.
   * Its exit, unless `stopController`, `crashController` or a replica's own
   * `stop`/`kill` asked for it, ends every wait at once (`watchExit`).
   */
  private launch(name: string, main: string, args: readonly string[], nodeArgs: readonly string[] = []): ServerProcess {
    const child = ServerProcess.start({
      name,
      command: process.execPath,
      args: [...nodeArgs, main, ...args],
      logFile: this.logFile(name),
      ...(this.options.reaper ? { reaper: this.options.reaper } : {}),
    });
    child.watchExit();
    return child;
  }

  /** Where the e2e credential guard reads a process's output, or the platform's directory. */
  private logFile(name: string): string {
    const logDir = process.env[E2E_LOG_DIR_ENV_VAR] ?? this.options.dir;
    const suffix = this.options.runId === undefined ? "" : `-${this.options.runId}`;
    return join(logDir, `${name}${suffix}.log`);
  }
}

export interface ClusterOrder {
  readonly namespace?: string;
  readonly name?: string;
  /** The Secret's credentials file; undefined: no Secret is written. */
  readonly credentials: string | undefined;
  /** The tenant's ProviderConfig; default `otc`. */
  readonly providerConfigName?: string;
  readonly capabilities?: { readonly vCPUCount: number; readonly memorySize: string; readonly gpuModelName?: string };
  readonly spec?: Partial<NonNullable<KubernetesCluster["spec"]>>;
}

/**
 * What a tenant applies to order a cluster, as the seed's demo flow does:
 * Secret `otc-credentials`, ProviderConfig `otc` (or the one named), MachineCapabilities
 * `workers` and the KubernetesCluster (default `my-cluster` with 2 nodes of
 * 100Gi disk, Kubernetes v1.31, workers in any zone).
 */
export async function orderCluster(client: RestClient, order: ClusterOrder): Promise<KubernetesCluster & KubeObject> {
  const namespace = order.namespace ?? "default";
  const manager = "edgeconnect-demo";
  const providerConfig = order.providerConfigName ?? "otc";
  if (order.credentials !== undefined) {
    await client.apply(`/api/v1/namespaces/${namespace}/secrets/otc-credentials`, { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, stringData: { credentials: order.credentials } }, manager);
  }
  await client.apply(
    objectPath(PROVIDER_CONFIG_RESOURCE, namespace, providerConfig),
    { apiVersion: PLATFORM_API_VERSION, kind: "ProviderConfig", metadata: { name: providerConfig }, spec: { credentials: { source: "Secret", secretRef: { name: "otc-credentials", key: "credentials" } } } },
    manager,
  );
  await client.apply(
    objectPath(MACHINE_CAPABILITIES_RESOURCE, namespace, "workers"),
    { apiVersion: PLATFORM_API_VERSION, kind: "MachineCapabilities", metadata: { name: "workers" }, spec: order.capabilities ?? { vCPUCount: 4, memorySize: "8Gi" } },
    manager,
  );
  const name = order.name ?? "my-cluster";
  return client.apply<KubernetesCluster & KubeObject>(
    objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name),
    {
      apiVersion: PLATFORM_API_VERSION,
      kind: "KubernetesCluster",
      metadata: { name },
      spec: {
        machineCapabilitiesRef: { name: "workers" },
        nodeCount: 2,
        nodeDiskSize: "100Gi",
        providerRef: { type: "OTC", configRef: { name: providerConfig } },
        kubernetes: { version: "v1.31" },
        nodeAvailableZone: "random",
        ...order.spec,
      },
    },
    manager,
  );
}

/**
 * One OTC user and project per tenant: tenants bring their own cloud
 * accounts. The first passwords are literals, as they always were; the e2e
 * credential guard learns every account's password, literal or generated,
 * from the record `Platform.start` writes (recordE2eCredentials).
 */
const TENANT_PASSWORDS = [
  { password: "simulated-tenant-password-0-Hq7vR2" },
  { password: "simulated-tenant-password-1-Lw3kP9" },
  { password: "simulated-tenant-password-2-Xs8mT4" },
  { password: "simulated-tenant-password-3-Bn5cJ1" },
  { password: "simulated-tenant-password-4-Fy2dQ6" },
  { password: "simulated-tenant-password-5-Kp9gW3" },
  { password: "simulated-tenant-password-6-Rz4hN8" },
  { password: "simulated-tenant-password-7-Vt6jM5" },
];
/** An access key the simulator accepts for every project (OTC's are per user; the simulator does not model users for AK/SK). */
const TENANT_ACCESS_KEY = { accessKey: "SIMULATEDTENANTAK0001", secretKey: "simulated-tenant-secret-key-Pd3sX7" };

/**
 * `count` tenant accounts: the literal ones first, then accounts whose
 * passwords are derived from their index (the same on every run, distinct
 * per tenant), for runs with many tenants such as the provider benchmark.
 */
function tenantAccounts(count: number): TenantCredentials[] {
  if (!Number.isInteger(count) || count < 1) throw new Error(`tenantAccounts must be a positive integer, not ${count}`);
  return Array.from({ length: count }, (_, index) => ({
    domainName: `OTC-EU-DE-0000000000100${index}`,
    userName: `tenant-${index}-admin`,
    password: TENANT_PASSWORDS[index]?.password ?? `simulated-tenant-password-${index}-${digest(`password-${index}`).slice(0, 6)}`,
    projectName: `eu-de_tenant${index}`,
  }));
}

/** OTC's 32 hex digits; the literal accounts keep the ids they always had. */
function tenantProjectId(index: number): string {
  return index < TENANT_PASSWORDS.length ? `0${index}1a2b3c4d5e6f70809a0b0c0d0e0f1${index}` : digest(`project-${index}`).slice(0, 32);
}

function digest(text: string): string {
  return createHash("sha256").update(`edgeconnect-demo-tenant-${text}`).digest("hex");
}

/** Applies the generated APIResourceSchemas, APIExport, WorkspaceType and catalogue CRD, the type's binding pointed at this workspace. */
async function installPlatformApi(provider: Workspace): Promise<void> {
  const files = readdirSync(APIEXPORT_DIR).filter((file) => file.endsWith(".yaml")).sort();
  const documents = files.flatMap((file) => parseManifests(readFileSync(join(APIEXPORT_DIR, file), "utf8")) as (KubeObject & { spec?: Record<string, unknown> })[]);
  for (const doc of documents) {
    if (doc.kind !== "WorkspaceType") continue;
    const bindings = (doc.spec?.defaultAPIBindings ?? []) as { path?: string; export: string }[];
    doc.spec = { ...doc.spec, defaultAPIBindings: bindings.map((binding) => ({ ...binding, path: provider.path })) };
  }
  const crds = documents.filter((doc) => doc.kind === "CustomResourceDefinition");
  await applyManifests(provider.client, crds);
  await eventually(
    async () => {
      try {
        const discovery = await provider.client.get<{ resources?: { name: string }[] }>(`/apis/${PLATFORM_API_VERSION}`);
        return [discovery.resources?.some((resource) => resource.name === PROVIDER_MACHINE_FLAVOR_RESOURCE.plural) === true, "discovery does not list providermachineflavors yet"];
      } catch (err) {
        if (err instanceof HttpStatusError && err.status === 404) return [false, "the flavor catalogue CRD is not served yet"];
        throw err;
      }
    },
    { timeoutMs: 30_000, description: "ProviderMachineFlavor served" },
  );
  await applyManifests(provider.client, documents.filter((doc) => doc.kind !== "CustomResourceDefinition"));
}

/**
 * The chart's ServiceAccount and RBAC as `helm template` renders them for
 * this release, nothing else: the controller's process here stands in for
 * the Deployment. Helm's homes go under `dir`, not the user's home.
 */
async function renderControllerIdentity(dir: string, release: string, namespace: string, clusterApi: boolean): Promise<KubeObject[]> {
  const helm = (await resolveBinary("helm")).path;
  const scratch = join(dir, `${release}-helm`);
  mkdirSync(scratch, { recursive: true });
  const values = join(scratch, "values.json");
  // The Secret is the Deployment's; the chart requires its name even for the templates that do not use it.
  writeFileSync(values, JSON.stringify({ kcp: { kubeconfigSecret: { name: "unused", key: "kubeconfig" } }, clusterApi: { enabled: clusterApi } }));
  const args = ["template", release, CONTROLLER_CHART, "--namespace", namespace, "-f", values, ...CONTROLLER_IDENTITY_TEMPLATES.flatMap((template) => ["--show-only", template])];
  const env = { ...process.env, HELM_CACHE_HOME: join(scratch, "cache"), HELM_CONFIG_HOME: join(scratch, "config"), HELM_DATA_HOME: join(scratch, "data") };
  const { stdout } = await run(helm, args, { env, maxBuffer: 16 * 1024 * 1024 });
  const objects = parseManifests(stdout);
  const unexpected = objects.filter((obj) => !IDENTITY_KINDS.has(obj.kind ?? ""));
  if (unexpected.length > 0) throw new Error(`${CONTROLLER_CHART}: the identity templates rendered ${unexpected.map((obj) => obj.kind).join(", ")}`);
  return objects;
}

/** Deletes what `controllerIdentities` applied, cluster-wide RBAC and then the namespace (which holds the rest); absent is fine. */
async function removeInfraObjects(admin: RestClient, objects: readonly KubeObject[]): Promise<void> {
  const clusterScoped = objects.filter((obj) => obj.kind === "ClusterRole" || obj.kind === "ClusterRoleBinding" || obj.kind === "Namespace");
  for (const obj of clusterScoped.reverse()) {
    try {
      await admin.delete(await manifestPath(admin, obj));
    } catch (err) {
      if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
    }
  }
}

/** The ProviderMachineFlavor of one catalogue entry (DEMO_FLAVORS). */
export function flavorManifest(flavor: (typeof DEMO_FLAVORS)[number]): KubeObject {
  return {
    apiVersion: PLATFORM_API_VERSION,
    kind: "ProviderMachineFlavor",
    metadata: { name: flavor.name },
    spec: {
      available: flavor.available ?? true,
      providerRef: { type: "OTC" },
      flavor: flavor.flavor,
      capabilities: { vCPUCount: flavor.vCPUCount, memorySize: flavor.memorySize, ...(flavor.gpuModelName ? { gpuModelName: flavor.gpuModelName } : {}) },
      availableZones: flavor.zones ?? ["eu-de-01", "eu-de-02", "eu-de-03"],
    },
  };
}

async function installFlavors(client: RestClient, flavors: typeof DEMO_FLAVORS): Promise<void> {
  await applyManifests(
    client,
    flavors.map(flavorManifest),
  );
}
