/**
 * The provider-controller's tenant stories end to end, on real kcp and a real
 * infrastructure kube-apiserver, with the controller and the Crossplane OTC
 * provider simulator running as their own processes and a real workload
 * kube-apiserver behind the simulated CCE clusters.
 *
 * Each story is one tenant in a workspace (and an OTC account) of its own.
 * The stories are split over four files (provider-controller-lifecycle,
 * -capacity, -input and -faults) so that they run side by side, each file on
 * its own Jest worker's servers with a Platform of its own; this module is
 * what they share: the Platform's start and stop, and the tenant's helpers.
 */
import { afterAll, beforeAll, describe } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubernetesCluster } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { fingerprint, HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, Reaper, type Workspace } from "@edgeconnect/testenv";

export const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);

/** `describe` where the suites can start a workload kube-apiserver, else `describe.skip` with a warning. */
export function describeProviderController(name: string, body: () => void): void {
  if (!ownCluster) console.warn(`${name} e2e skipped: it starts a workload kube-apiserver, which needs the local one's binaries`);
  (ownCluster ? describe : describe.skip)(name, body);
}

export const API = "/apis/platform.edgeconnect.eu/v1alpha1";
export type Cluster = KubernetesCluster & KubeObject;

export interface Order {
  readonly name?: string;
  readonly namespace?: string;
  readonly credentials?: string;
  readonly providerConfigName?: string;
  readonly capabilities?: { vCPUCount: number; memorySize: string; gpuModelName?: string };
  readonly spec?: Partial<NonNullable<KubernetesCluster["spec"]>>;
  /** Leave the Secret out. */
  readonly noSecret?: boolean;
}

export const clusterPath = (namespace: string, name: string): string => `${API}/namespaces/${namespace}/kubernetesclusters/${name}`;

/**
 * Starts a Platform before the enclosing describe's tests and stops it after
 * them; call it inside that describe. `platform` is there once the tests run.
 */
export function providerControllerStories() {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "provider-controller-e2e-"));
  let reaper: Reaper;
  let platform: Platform;
  let accounts = 0;
  /** Flags a test adds to the controller's next start. */
  let controllerArgs: readonly string[] = [];

  beforeAll(async () => {
    reaper = Reaper.start();
    if ("skipped" in state.infra) throw new Error(state.infra.skipped);
    platform = await Platform.start({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig: state.infra.kubeconfig,
      dir,
      providerWorkspace: `edgeconnect-${run}`,
      reaper,
      runId: run,
      // More tenants than the default accounts: each test's workspace has an OTC account of its own.
      tenantAccounts: 16,
      controllerArgs: () => controllerArgs,
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await reaper?.close();
  });

  /** An OTC account no tenant of this Platform has used yet. */
  const nextAccount = (): number => accounts++;

  /** A tenant workspace with an OTC account of its own. */
  async function tenant(label: string): Promise<{ ws: Workspace; account: number }> {
    const account = nextAccount();
    return { ws: await platform.createTenant(`${label}-${run}`), account };
  }

  async function order(ws: Workspace, account: number, input: Order = {}): Promise<Cluster> {
    if (input.namespace !== undefined) await ignoreConflict(ws.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: input.namespace } }));
    return orderCluster(ws.client, { ...input, credentials: input.noSecret === true ? undefined : (input.credentials ?? platform.passwordCredentials(account)) });
  }

  async function condition(ws: Workspace, path: string, type: string, status: string, reason?: string, timeoutMs = 90_000): Promise<Cluster> {
    return eventually<Cluster>(
      async () => {
        const kc = await ws.client.get<Cluster>(path);
        const found = kc.status?.conditions?.find((c) => c.type === type);
        const ok = found?.status === status && (reason === undefined || found.reason === reason) && found.observedGeneration === kc.metadata?.generation;
        return ok ? [true, kc] : [false, `${type}=${found?.status ?? "unset"} (${found?.reason ?? ""}: ${found?.message ?? ""}); Ready: ${kc.status?.conditions?.find((c) => c.type === "Ready")?.message ?? "unset"}`];
      },
      { timeoutMs, description: `${path} ${type}=${status}${reason ? `/${reason}` : ""}` },
    );
  }

  const ready = (ws: Workspace, namespace = "default", name = "my-cluster"): Promise<Cluster> => condition(ws, clusterPath(namespace, name), "Ready", "True", undefined, 120_000);

  async function gone(ws: Workspace, path: string, timeoutMs = 120_000): Promise<void> {
    await eventually(
      async () => {
        try {
          const kc = await ws.client.get<Cluster>(path);
          return [false, `still there: ${kc.status?.conditions?.find((c) => c.type === "Ready")?.message ?? ""}`];
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 404) return [true, undefined];
          throw err;
        }
      },
      { timeoutMs, description: `${path} deleted` },
    );
  }

  const projectOf = (account: number): string => platform.otc.state.projects.find((p) => p.name === platform.tenantCredentials(account).projectName)?.id ?? "";
  const live = (account: number) => platform.otc.liveObjects(projectOf(account));
  const tenantNamespace = (ws: Workspace): string => `kcp-${fingerprint(ws.cluster)}`;

  async function infraNamespace(ws: Workspace): Promise<KubeObject | undefined> {
    try {
      return await platform.infra.get(`/api/v1/namespaces/${tenantNamespace(ws)}`);
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return undefined;
      throw err;
    }
  }

  async function kubeconfigClient(ws: Workspace, namespace = "default", name = "my-cluster"): Promise<RestClient> {
    const secret = await ws.client.get<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/${name}-kubeconfig`);
    const file = join(dir, `${ws.name}-${name}.kubeconfig`);
    writeFileSync(file, Buffer.from(secret.data?.kubeconfig ?? "", "base64"));
    return RestClient.fromFile(file);
  }

  return {
    run,
    dir,
    get platform(): Platform {
      return platform;
    },
    get controllerArgs(): readonly string[] {
      return controllerArgs;
    },
    set controllerArgs(args: readonly string[]) {
      controllerArgs = args;
    },
    nextAccount,
    tenant,
    order,
    condition,
    ready,
    gone,
    live,
    /** The OTC simulator's project id of the account. */
    projectOf,
    tenantNamespace,
    infraNamespace,
    kubeconfigClient,
  };
}

export async function ignoreConflict(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
}
