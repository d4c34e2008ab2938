/**
 * The real Cluster API managers, run out of cluster against a management
 * cluster the caller started (a `KubeApiServer`): core, the kubeadm bootstrap
 * and control-plane providers, and the development infrastructure provider
 * (CAPD) whose in-memory backend needs no Docker.
 *
 * What upstream's kustomize and cert-manager do in a real cluster is done
 * here by hand, because without it the managers start but nothing works:
 * - CRDs from each module's config/crd/bases get the labels its kustomization
 *   adds; the topology controller reads a provider's contract version from
 *   them ("contract version label(s) are either missing" otherwise);
 * - the admission webhooks are registered with URLs on 127.0.0.1 and a CA
 *   made here; without defaulting webhooks, e.g. a MachineDeployment fails
 *   with "unexpected deployment strategy type";
 * - every manager gets its own webhook, health and diagnostics port, since
 *   their defaults (9443, :9440, :8443) are the same for all of them.
 * The dev provider's in-memory backend binds fixed ports of its own (:19000
 * for debugging, one of 20000-30000 per workload cluster, no flag changes
 * them), so only one stack with "dev" runs on a machine at a time.
 * Conversion webhooks are left out: the managers and the upstream templates
 * speak v1beta2 only, the storage version, so nothing is ever converted.
 *
 * On request the stack also runs the Cluster API Operator ("operator"), set
 * up the same way. What it installs is stored but never runs, as nothing here
 * runs pods: `standInDeployments()` names the Deployments a
 * `DeploymentStandIn` should report healthy while the stack's own manager
 * processes are.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { parse as parseYaml } from "yaml";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { applyCrds, applyManifests, parseManifests } from "./apply.js";
import { resolveBinary, type ResolveOptions } from "./binaries.js";
import { COMPONENT_SOURCES, configDirectory, providerComponents } from "./cluster-api-components.js";
import type { StandInDeployment } from "./deployment-stand-in.js";
import { FatalError } from "./errors.js";
import { eventually, holds, type Check } from "./eventually.js";
import type { KubeApiServer } from "./kube-apiserver.js";
import { acquirePortLock, type FileLock } from "./file-lock.js";
import { freePorts, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { ServerProcess } from "./server-process.js";
import { makeServingCertificate } from "./serving-certificate.js";

export type ClusterApiProvider = "core" | "kubeadm-bootstrap" | "kubeadm-control-plane" | "dev";

export const CLUSTER_API_PROVIDERS: readonly ClusterApiProvider[] = ["core", "kubeadm-bootstrap", "kubeadm-control-plane", "dev"];

/** What a stack can run: the providers and, on request, the Cluster API Operator. */
export type ClusterApiManager = ClusterApiProvider | "operator";

/** The order their CRDs are installed in: core first, as the others refer to its kinds; the operator last. The managers then start together. */
const START_ORDER: readonly ClusterApiManager[] = [...CLUSTER_API_PROVIDERS, "operator"];

interface ProviderSpec {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * HOME and XDG_CONFIG_HOME in the stack's directory: the operator reads a
   * clusterctl.yaml below either (provider URLs, image overrides), and a
   * developer's must not change what it installs.
   */
  readonly ownHome?: boolean;
}

// ClusterClass-based clusters (spec.topology) need the ClusterTopology gate in every
// manager: core runs the topology controller, and the providers' webhooks refuse
// templates otherwise ("can be set only if the ClusterTopology feature flag is enabled").
const TOPOLOGY = "--feature-gates=ClusterTopology=true";

const PROVIDERS: Readonly<Record<ClusterApiManager, ProviderSpec>> = {
  core: { args: [TOPOLOGY], env: {} },
  "kubeadm-bootstrap": { args: [TOPOLOGY], env: {} },
  "kubeadm-control-plane": { args: [TOPOLOGY], env: {} },
  // CAPD writes POD_IP into each workload cluster's endpoint and listens there; in a
  // pod it is the pod's address, here the in-memory API servers live on loopback.
  dev: { args: [TOPOLOGY], env: { POD_IP: "127.0.0.1" } },
  // The operator has no feature gates to pass. --watch-configmap re-reconciles a provider when
  // the ConfigMap its fetchConfig.selector picks changes; its pprof server would bind
  // localhost:6060 in every stack, so it is off.
  operator: { args: ["--watch-configmap", "--profiler-address="], env: {}, ownHome: true },
};

export interface ClusterApiStackOptions {
  /** The management cluster; its admin credentials are handed to every manager. */
  readonly kubeApiServer: KubeApiServer;
  readonly reaper?: Reaper;
  /**
   * Default: the four providers (`CLUSTER_API_PROVIDERS`); add "operator" for
   * the Cluster API Operator. Order does not matter; core is started first.
   */
  readonly providers?: readonly ClusterApiManager[];
  /** Directory for certificates and logs; a fresh temporary one when absent. */
  readonly dir?: string;
  readonly keepDir?: boolean;
  /** How binaries are found (and built); see `resolveBinary`. */
  readonly resolve?: ResolveOptions;
  /** Per manager, default 120 s. */
  readonly startTimeoutMs?: number;
  /** How long to wait for another stack with the dev provider to stop; default 30 minutes. */
  readonly lockTimeoutMs?: number;
}

interface RunningManager {
  readonly provider: ClusterApiManager;
  readonly process: ServerProcess;
  readonly healthUrl: string;
  readonly webhookPort: number;
}

export class ClusterApiStack {
  private constructor(
    private readonly options: ClusterApiStackOptions,
    readonly dir: string,
    private readonly client: RestClient,
    private readonly managers: RunningManager[],
    /** Paths of the webhook configurations registered, to remove on stop. */
    private readonly webhookPaths: string[],
    private readonly lock: FileLock | undefined,
  ) {}

  static async start(options: ClusterApiStackOptions): Promise<ClusterApiStack> {
    const wanted = new Set<ClusterApiManager>(options.providers ?? CLUSTER_API_PROVIDERS);
    const providers = START_ORDER.filter((provider) => wanted.has(provider));
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-capi-"));
    options.reaper?.removeOnExit(dir);
    // The dev provider's ports are fixed: one stack with it per machine at a time.
    const lock = providers.includes("dev") ? await acquirePortLock("capi-dev-provider", options.lockTimeoutMs ?? 1_800_000, options.resolve?.log) : undefined;
    const client = options.kubeApiServer.adminClient();
    const stack = new ClusterApiStack(options, dir, client, [], [], lock);
    try {
      // Builds first and one at a time: each Go build already uses every core.
      const binaries = new Map<ClusterApiManager, string>();
      for (const provider of providers) {
        binaries.set(provider, (await resolveBinary(COMPONENT_SOURCES[provider].binary, options.resolve)).path);
      }
      const certDir = join(dir, "certs");
      const caPem = await makeServingCertificate(certDir, { caName: "testenv-capi-webhook-ca", purpose: "the Cluster API webhooks" });
      const sources = new Map<ClusterApiManager, string>();
      for (const provider of providers) {
        const configDir = (await configDirectory(provider, options.resolve?.repoRoot)).dir;
        sources.set(provider, configDir);
        await installCrds(client, configDir);
      }
      await Promise.all(
        providers.map((provider) =>
          startOnFreePorts({
            launch: async () => {
              const [webhookPort, healthPort, diagnosticsPort] = (await freePorts(3)) as [number, number, number];
              const webhookPaths = await registerWebhooks(client, provider, join(sources.get(provider) ?? "", "webhook", "manifests.yaml"), webhookPort, caPem);
              const manager = stack.launch(provider, binaries.get(provider) ?? "", certDir, webhookPort, healthPort, diagnosticsPort);
              stack.track(manager, webhookPaths);
              return manager;
            },
            ready: (manager) => stack.waitHealthy(manager, caPem),
            processOf: (manager) => manager.process,
          })
            // Once it serves, its exit ends every wait: what it reconciles would never come true.
            .then((manager) => manager.process.watchExit()),
        ),
      );
      return stack;
    } catch (err) {
      await stack.stop();
      throw err;
    }
  }

  /** The log file of one manager, for diagnosing a test. */
  logFile(provider: ClusterApiManager): string {
    return join(this.dir, `${provider}.log`);
  }

  /**
   * The Deployments the running managers' components create (see
   * `providerComponents`), each healthy while the manager's /readyz answers
   * 200: for a `DeploymentStandIn`, so that what waits for those Deployments
   * (the operator's Ready condition, an install's wait) sees them available.
   */
  async standInDeployments(): Promise<StandInDeployment[]> {
    const deployments: StandInDeployment[] = [];
    for (const manager of this.managers) {
      const { deployment } = await providerComponents(manager.provider, { repoRoot: this.options.resolve?.repoRoot });
      deployments.push({
        ...deployment,
        healthy: async (signal) => {
          if (!manager.process.running) return false;
          const response = await fetch(manager.healthUrl, { signal });
          // Read to the end, or each poll's connection stays open until the body is collected.
          await response.arrayBuffer();
          return response.ok;
        },
      });
    }
    return deployments;
  }

  /** The last lines of each running manager's log. */
  logTails(lines = 20): string {
    return this.managers.map((m) => `--- ${m.provider}\n${m.process.logTail(lines)}`).join("\n");
  }

  /** Stops the managers and removes the webhook registrations (CRDs stay: the cluster is the caller's). */
  async stop(): Promise<void> {
    await Promise.all(this.managers.map((manager) => manager.process.stop()));
    this.lock?.release();
    for (const path of this.webhookPaths) {
      try {
        await this.client.delete(path);
      } catch {
        // The API server may be gone already; its configurations go with it.
      }
    }
    this.client.close();
    if (!this.options.keepDir) {
      rmSync(this.dir, { recursive: true, force: true });
      this.options.reaper?.forgetDirectory(this.dir);
    }
  }

  /** Records a launched manager, in place of an earlier launch of the same provider, and its webhook registrations. */
  private track(manager: RunningManager, webhookPaths: readonly string[]): void {
    const index = this.managers.findIndex((running) => running.provider === manager.provider);
    if (index === -1) this.managers.push(manager);
    else this.managers[index] = manager;
    for (const path of webhookPaths) if (!this.webhookPaths.includes(path)) this.webhookPaths.push(path);
  }

  private launch(
    provider: ClusterApiManager,
    binary: string,
    certDir: string,
    webhookPort: number,
    healthPort: number,
    diagnosticsPort: number,
  ): RunningManager {
    const spec = PROVIDERS[provider];
    const home = join(this.dir, `${provider}-home`);
    if (spec.ownHome) mkdirSync(home, { recursive: true });
    const env = { ...spec.env, ...(spec.ownHome ? { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } : {}) };
    // ServerProcess passes its own environment on; env(1) adds what a provider needs.
    const envPairs = Object.entries(env).map(([key, value]) => `${key}=${value}`);
    const process = ServerProcess.start({
      name: `cluster-api ${provider}`,
      command: "env",
      args: [
        ...envPairs,
        binary,
        `--kubeconfig=${this.options.kubeApiServer.kubeconfigPath}`,
        `--webhook-port=${webhookPort}`,
        `--webhook-cert-dir=${certDir}`,
        `--health-addr=127.0.0.1:${healthPort}`,
        `--diagnostics-address=127.0.0.1:${diagnosticsPort}`,
        // Secure diagnostics would delegate authentication to the API server for a
        // metrics endpoint no test reads.
        "--insecure-diagnostics=true",
        ...spec.args,
      ],
      logFile: this.logFile(provider),
      ...(this.options.reaper ? { reaper: this.options.reaper } : {}),
    });
    return { provider, process, healthUrl: `http://127.0.0.1:${healthPort}/readyz`, webhookPort };
  }

  /**
   * Healthy means admission works: the providers' /readyz includes their
   * webhook server's check, the operator's only pings and answers before its
   * webhook server listens, so the handshake is tried as well.
   */
  private async waitHealthy(manager: RunningManager, caPem: string): Promise<void> {
    await eventually(
      async () => {
        if (!manager.process.running) {
          throw new FatalError(`cluster-api ${manager.provider} exited:\n${manager.process.logTail(40)}`);
        }
        const response = await fetch(manager.healthUrl, { signal: AbortSignal.timeout(2_000) });
        if (!response.ok) return holds(false, `${manager.healthUrl}: HTTP ${response.status}`);
        return webhookServing(manager.webhookPort, caPem);
      },
      { timeoutMs: this.options.startTimeoutMs ?? 120_000, description: `cluster-api ${manager.provider} ready` },
    );
  }
}

/** Labels a kustomization.yaml adds (`labels[].pairs`), if the file exists. */
function kustomizeLabels(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const doc = parseYaml(readFileSync(file, "utf8")) as { labels?: { pairs?: Record<string, string> }[] } | null;
  return Object.assign({}, ...(doc?.labels ?? []).map((entry) => entry.pairs ?? {})) as Record<string, string>;
}

async function installCrds(client: RestClient, configDir: string): Promise<void> {
  const bases = join(configDir, "crd", "bases");
  // The crd/ kustomization carries the contract labels; default/ the provider label clusterctl reads.
  const labels = { ...kustomizeLabels(join(configDir, "default", "kustomization.yaml")), ...kustomizeLabels(join(configDir, "crd", "kustomization.yaml")) };
  const crds: KubeObject[] = [];
  for (const file of readdirSync(bases).filter((name) => name.endsWith(".yaml")).sort()) {
    for (const crd of parseManifests(readFileSync(join(bases, file), "utf8"))) {
      crd.metadata = { ...crd.metadata, labels: { ...crd.metadata?.labels, ...labels } };
      crds.push(crd);
    }
  }
  await applyCrds(client, crds);
}

/** Whether a TLS handshake with the webhook server on `port` succeeds, trusting the stack's CA. */
async function webhookServing(port: number, caPem: string): Promise<Check<undefined>> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca: caPem, timeout: 2_000 }, () => {
      socket.end();
      resolve(holds(true, ""));
    });
    socket.on("error", (err: Error) => resolve(holds(false, `webhook server 127.0.0.1:${port}: ${err.message}`)));
    socket.on("timeout", () => {
      socket.destroy();
      resolve(holds(false, `webhook server 127.0.0.1:${port}: no TLS handshake within 2 s`));
    });
  });
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: { clientConfig?: { service?: { path?: string }; url?: string; caBundle?: string } }[];
}

/**
 * Registers a provider's webhook configurations under provider-specific names
 * (upstream's are all "mutating-webhook-configuration" and
 * "validating-webhook-configuration", which kustomize's namePrefix tells apart)
 * with URLs on the manager's webhook port. Returns their paths.
 */
async function registerWebhooks(client: RestClient, provider: ClusterApiManager, file: string, port: number, caPem: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  const caBundle = Buffer.from(caPem).toString("base64");
  const configurations = (parseManifests(readFileSync(file, "utf8")) as WebhookConfiguration[]).map((configuration) => ({
    ...configuration,
    metadata: { name: `capi-${provider}-${configuration.metadata?.name ?? ""}` },
    webhooks: (configuration.webhooks ?? []).map((webhook) => ({
      ...webhook,
      clientConfig: { url: `https://127.0.0.1:${port}${webhook.clientConfig?.service?.path ?? "/"}`, caBundle },
    })),
  }));
  const applied = await applyManifests(client, configurations);
  return applied.map(
    (configuration) =>
      `/apis/admissionregistration.k8s.io/v1/${configuration.kind === "MutatingWebhookConfiguration" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations"}/${configuration.metadata?.name ?? ""}`,
  );
}
