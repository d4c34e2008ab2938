/**
 * The provider-controller on the kcp load simulator instead of kcp: what
 * `Platform` (packages/demo) composes on real kcp, rebuilt for the
 * simulator. The simulator plays the provider workspace (APIExportEndpointSlice,
 * the flavor catalogue, the Lease), the tenants' workspaces and the export's
 * virtual workspace; the OTC simulator plays the cloud and the Crossplane OTC
 * simulator the provider on the infrastructure kube-apiserver, as on kcp.
 * No workload cluster unless one is given: CCE kubeconfigs then lead
 * nowhere, so clusters reach their conditions but not Ready (the load
 * figures need only the first condition).
 *
 * Differences from the Platform on kcp: the controller runs with the
 * simulator's one token (the simulator does no authorization) and the
 * infrastructure cluster's admin kubeconfig; tenants' objects are seeded
 * straight into the simulator's store, not written through HTTP.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  API_EXPORT_NAME,
  KUBERNETES_CLUSTER_RESOURCE,
  MACHINE_CAPABILITIES_RESOURCE,
  PERMISSION_CLAIMS,
  PROVIDER_CONFIG_RESOURCE,
  PROVIDER_MACHINE_FLAVOR_RESOURCE,
  SECRET_LABEL,
  type PlatformResource,
} from "@edgeconnect/api";
import { DEMO_FLAVORS, flavorManifest } from "@edgeconnect/demo";
import { KcpLoadSimulator, type ResourceType, type SimulatedResource } from "@edgeconnect/kcp-load-simulator";
import { startOtcSimulator, type OtcSimulator, type OtcSimulatorOptions } from "@edgeconnect/otc-simulator";
import { CrossplaneOtcSimulator, freePort, REPO_ROOT, resolveBinary, ServerProcess, type Reaper } from "@edgeconnect/testenv";

export const CONTROLLER_MAIN = join(REPO_ROOT, "packages", "provider-controller", "dist", "main.js");

const simulated = (resource: PlatformResource): SimulatedResource => ({
  group: resource.group,
  version: resource.version,
  plural: resource.plural,
  kind: resource.kind,
  namespaced: resource.scope === "Namespaced",
  status: true,
  ...(resource.exported ? { virtualWorkspace: {} } : {}),
});

export const SIM_CLUSTERS = simulated(KUBERNETES_CLUSTER_RESOURCE);
export const SIM_PROVIDER_CONFIGS = simulated(PROVIDER_CONFIG_RESOURCE);
export const SIM_CAPABILITIES = simulated(MACHINE_CAPABILITIES_RESOURCE);
export const SIM_FLAVORS = simulated(PROVIDER_MACHINE_FLAVOR_RESOURCE);
export const SIM_SECRETS: ResourceType = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true, status: false };
export const SIM_EVENTS: ResourceType = { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true, status: false };

const [SECRETS_CLAIM, EVENTS_CLAIM] = PERMISSION_CLAIMS;

export interface SimAccount {
  readonly domainName: string;
  readonly userName: string;
  readonly password: string;
  readonly projectName: string;
}

/** Account `index`: distinct, deterministic credentials per tenant (what fills the controller's redaction registry). */
export function simAccount(index: number): SimAccount {
  const digest = createHash("sha256").update(`sim-tenant-${index}`).digest("hex");
  return { domainName: `OTC-SIM-DOMAIN-${index}`, userName: `sim-tenant-${index}-admin`, password: `sim-password-${index}-${digest.slice(0, 10)}`, projectName: `eu-de_sim${index}` };
}

/** A logical cluster name of kcp's shape (lowercase base36), one per tenant index. */
export function simClusterName(index: number): string {
  return `2sim${index.toString(36).padStart(5, "0")}`;
}

export interface SimPlatformOptions {
  readonly infraKubeconfig: string;
  /** Kubeconfigs and logs. */
  readonly dir: string;
  /** OTC accounts to create (tenant indexes 0 .. accounts-1). */
  readonly accounts: number;
  readonly otcDelays?: Pick<OtcSimulatorOptions, "transitionDelayMs" | "cceClusterCreateMs" | "cceClusterDeleteMs" | "nodePoolSyncMs">;
  readonly reaper?: Reaper;
  readonly log?: (message: string) => void;
  /** Crossplane's poll interval; default 500ms as the Platform's. */
  readonly pollInterval?: string;
  /** Simulator tuning. */
  readonly bookmarkIntervalMs?: number;
  /** Where simulated CCE kubeconfigs lead (the Platform's workload cluster); default nowhere, so no cluster gets Ready. */
  readonly workloadCluster?: OtcSimulatorOptions["workloadCluster"];
}

export interface ControllerLaunch {
  readonly process: ServerProcess;
  /** `http://127.0.0.1:<port>/metrics`. */
  readonly metricsUrl: string;
  readonly logFile: string;
}

export class SimPlatform {
  private launches = 0;

  private constructor(
    readonly options: SimPlatformOptions,
    readonly kcp: KcpLoadSimulator,
    readonly otc: OtcSimulator,
    readonly crossplane: CrossplaneOtcSimulator,
    readonly kcpKubeconfig: string,
  ) {}

  static async start(options: SimPlatformOptions): Promise<SimPlatform> {
    const log = options.log ?? (() => undefined);
    const stops: (() => Promise<void>)[] = [];
    try {
      const kcp = await KcpLoadSimulator.start({
        exportName: API_EXPORT_NAME,
        resources: [SIM_CLUSTERS, SIM_PROVIDER_CONFIGS, SIM_CAPABILITIES, SIM_FLAVORS],
        secretsClaim: { labelSelector: `${SECRET_LABEL.key}=${SECRET_LABEL.value}`, verbs: SECRETS_CLAIM.verbs },
        eventsClaim: { verbs: EVENTS_CLAIM.verbs },
        ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
      });
      stops.push(() => kcp.close());
      for (const flavor of DEMO_FLAVORS) {
        kcp.put(kcp.providerCluster, SIM_FLAVORS, flavorManifest(flavor));
      }
      const kcpKubeconfig = join(options.dir, "kcp-load-simulator.kubeconfig");
      writeFileSync(kcpKubeconfig, kcp.kubeconfig(), { mode: 0o600 });
      log(`kcp load simulator on ${kcp.url}; virtual workspace ${kcp.virtualWorkspaceUrl}`);

      const accounts = Array.from({ length: options.accounts }, (_, index) => simAccount(index));
      const otc = await startOtcSimulator({
        credentials: [],
        users: accounts.map(({ domainName, userName, password }) => ({ domainName, userName, password })),
        projects: accounts.map((account, index) => ({ id: createHash("sha256").update(`project-${index}`).digest("hex").slice(0, 32), name: account.projectName })),
        region: "eu-de",
        ...(options.workloadCluster === undefined ? {} : { workloadCluster: options.workloadCluster }),
        ...options.otcDelays,
      });
      stops.push(() => otc.close());
      log(`OTC simulator on ${otc.url} with ${accounts.length} accounts`);

      const crossplane = await CrossplaneOtcSimulator.start({
        binary: (await resolveBinary("crossplane-otc-simulator")).path,
        kubeconfig: options.infraKubeconfig,
        logFile: join(options.dir, "crossplane-otc-simulator.log"),
        poll: options.pollInterval ?? "500ms",
        ...(options.reaper ? { reaper: options.reaper } : {}),
      });
      return new SimPlatform(options, kcp, otc, crossplane, kcpKubeconfig);
    } catch (err) {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      throw err;
    }
  }

  /** The credentials file of tenant `index` (the seed's password format). */
  credentials(index: number): string {
    const account = simAccount(index);
    return [`auth_url=${this.otc.url}/v3`, `user_name=${account.userName}`, `password=${account.password}`, `domain_name=${account.domainName}`, `tenant_name=${account.projectName}`, ""].join("\n");
  }

  /**
   * Tenant `index`: its logical cluster binds the export and holds what a
   * tenant applies to order clusters (the demo's order: Secret
   * `otc-credentials`, ProviderConfig `otc`, MachineCapabilities `workers`),
   * and `clusters` KubernetesClusters. Returns the logical cluster.
   */
  seedTenant(index: number, clusters: number, firstCluster = 0): string {
    const cluster = simClusterName(index);
    const kcp = this.kcp;
    if (firstCluster === 0) {
      kcp.bind(cluster);
      kcp.put(cluster, SIM_SECRETS, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "otc-credentials", namespace: "default", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } },
        stringData: { credentials: this.credentials(index) },
      });
      kcp.put(cluster, SIM_PROVIDER_CONFIGS, {
        metadata: { name: "otc", namespace: "default" },
        spec: { credentials: { source: "Secret", secretRef: { name: "otc-credentials", key: "credentials" } } },
      });
      kcp.put(cluster, SIM_CAPABILITIES, { metadata: { name: "workers", namespace: "default" }, spec: { vCPUCount: 4, memorySize: "8Gi" } });
    }
    for (let i = firstCluster; i < firstCluster + clusters; i++) {
      kcp.put(cluster, SIM_CLUSTERS, {
        metadata: { name: `cluster-${i}`, namespace: "default" },
        spec: {
          machineCapabilitiesRef: { name: "workers" },
          nodeCount: 2,
          nodeDiskSize: "100Gi",
          providerRef: { type: "OTC", configRef: { name: "otc" } },
          kubernetes: { version: "v1.31" },
          nodeAvailableZone: "random",
        },
      });
    }
    return cluster;
  }

  /** Starts a provider-controller process on the simulator, with the chart's leader election, metrics on a free port. */
  async startController(options: { readonly nodeArgs?: readonly string[]; readonly args?: readonly string[] } = {}): Promise<ControllerLaunch> {
    this.launches += 1;
    const port = await freePort();
    const logFile = join(this.options.dir, `provider-controller-${this.launches}.log`);
    const process_ = ServerProcess.start({
      name: `provider-controller-${this.launches}`,
      command: process.execPath,
      args: [
        ...(options.nodeArgs ?? []),
        CONTROLLER_MAIN,
        `--kcp-kubeconfig=${this.kcpKubeconfig}`,
        `--infra-kubeconfig=${this.options.infraKubeconfig}`,
        `--allowed-otc-auth-url=${this.otc.url}/`,
        `--metrics-bind-address=127.0.0.1:${port}`,
        "--health-probe-bind-address=0",
        "--leader-elect=true",
        ...(options.args ?? []),
      ],
      logFile,
      ...(this.options.reaper ? { reaper: this.options.reaper } : {}),
    });
    return { process: process_, metricsUrl: `http://127.0.0.1:${port}/metrics`, logFile };
  }

  async stop(): Promise<void> {
    await this.crossplane.stop();
    await this.otc.close();
    await this.kcp.close();
  }
}
