/**
 * The provider-controller's ClusterAPI backend end to end, on real
 * components: kcp from the e2e environment, and as the infrastructure
 * cluster a kube-apiserver of its own running the real Cluster API stack
 * (core, kubeadm bootstrap and control plane, the in-memory development
 * provider), with the template sets' CRD, the documented in-memory template
 * set and upstream's in-memory ClusterClass it names. The controller runs
 * as its built CLI with `--cluster-api`.
 *
 * A kube-apiserver of its own because Cluster API's managers watch every
 * namespace and register cluster-wide webhooks. The in-memory provider binds
 * fixed ports, so only one such stack runs on a machine at a time
 * (ClusterApiStack waits for the others).
 *
 * The stories: a tenant orders a ClusterAPI cluster and gets it Ready with
 * its kubeconfig; a second tenant with the same namespace and name gets a
 * namespace and Cluster of its own, scales, is refused a version change;
 * deleting the first tears it down and leaves the second Ready; bad input
 * gets a condition and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubernetesCluster } from "@edgeconnect/api";
import { CRD_FILES } from "@edgeconnect/capi-provider-api";
import { IN_MEMORY_PROVIDER_CONFIG, installInMemoryClusterClass, orderCluster, Platform } from "@edgeconnect/demo";
import { fingerprint, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import {
  applyCrds,
  applyManifests,
  ClusterApiStack,
  connectFromEnv,
  eventually,
  holds,
  httpStatus,
  KubeApiServer,
  parseManifests,
  Reaper,
  resolveControlPlaneBinaries,
  SUITE_STARTUP_DURATION,
  waitUntilGone,
  type Workspace,
} from "@edgeconnect/testenv";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("provider-controller Cluster API e2e skipped: it starts a kube-apiserver of its own, which needs the local one's binaries");

const API = "/apis/platform.edgeconnect.eu/v1alpha1";
const CAPI = "/apis/cluster.x-k8s.io/v1beta2";
type Cluster = KubernetesCluster & KubeObject;
type CapiCluster = KubeObject & { spec?: { topology?: { version?: string; workers?: { machineDeployments?: { name: string; replicas?: number }[] } } } };
type Secret = KubeObject & { data?: Record<string, string> };

const CLUSTER_API_SPEC = { providerRef: { type: "ClusterAPI" as const, templateSet: "in-memory" }, kubernetes: { version: "v1.37" }, nodeCount: 2 };

describeInfra("provider-controller with Cluster API", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "provider-controller-capi-e2e-"));
  let reaper: Reaper;
  let management: KubeApiServer | undefined;
  let stack: ClusterApiStack | undefined;
  let infra: RestClient;
  let platform: Platform | undefined;

  beforeAll(async () => {
    reaper = Reaper.start();
    management = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), dir: join(dir, "infrastructure"), reaper });
    infra = management.adminClient();
    stack = await ClusterApiStack.start({ kubeApiServer: management, reaper, dir: join(dir, "cluster-api"), keepDir: true, resolve: { log: (message) => console.error(message) } });
    await applyCrds(infra, CRD_FILES.flatMap((file) => parseManifests(readFileSync(file, "utf8"))));
    await installInMemoryClusterClass(infra, { startupDuration: SUITE_STARTUP_DURATION });
    await applyManifests(infra, parseManifests(readFileSync(IN_MEMORY_PROVIDER_CONFIG, "utf8")));
    if ("skipped" in state.infra) throw new Error(state.infra.skipped);
    platform = await Platform.start({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig: management.kubeconfigPath,
      dir,
      providerWorkspace: `edgeconnect-capi-${run}`,
      reaper,
      runId: `capi-${run}`,
      clusterApi: true,
    });
  }, 900_000);

  afterAll(async () => {
    await platform?.stop();
    infra?.close();
    await stack?.stop();
    await management?.stop();
    await reaper?.close();
  }, 120_000);

  const started = (): Platform => {
    if (platform === undefined) throw new Error("the platform did not start");
    return platform;
  };
  const clusterPath = (namespace: string, name: string): string => `${API}/namespaces/${namespace}/kubernetesclusters/${name}`;
  const tenantNamespace = (ws: Workspace): string => `kcp-${fingerprint(ws.cluster)}`;
  const capiClusters = async (ws: Workspace): Promise<CapiCluster[]> => (await infra.list<CapiCluster>(`${CAPI}/namespaces/${tenantNamespace(ws)}/clusters`)).items;

  async function condition(ws: Workspace, path: string, type: string, status: string, reason?: string, timeoutMs = 90_000): Promise<Cluster> {
    return eventually(
      async () => {
        const kc = await ws.client.get<Cluster>(path);
        const found = kc.status?.conditions?.find((c) => c.type === type);
        const ok = found?.status === status && (reason === undefined || found.reason === reason) && found.observedGeneration === kc.metadata?.generation;
        const summary = (kc.status?.conditions ?? []).map((c) => `${c.type}=${c.status} (${c.reason}: ${c.message})`).join("; ");
        return holds(ok, summary, kc);
      },
      { timeoutMs, intervalMs: 1_000, description: `${path} ${type}=${status}${reason ? `/${reason}` : ""}` },
    ).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- controller\n${platform?.controllerLog.split("\n").slice(-30).join("\n") ?? ""}\n${stack?.logTails(10) ?? ""}`);
    });
  }

  const ready = (ws: Workspace, name = "my-cluster"): Promise<Cluster> => condition(ws, clusterPath("default", name), "Ready", "True", undefined, 400_000);

  const order = (ws: Workspace, name = "my-cluster", spec: Partial<NonNullable<KubernetesCluster["spec"]>> = CLUSTER_API_SPEC): Promise<Cluster> =>
    orderCluster(ws.client, { name, credentials: undefined, spec });

  let first: Workspace;
  let second: Workspace;

  it("orders a ClusterAPI cluster that ends Ready, with the kubeconfig of its API server, made in the tenant namespace with the owner's marks", async () => {
    first = await started().createTenant(`capi-a-${run}`);
    const created = await order(first);
    const kc = await ready(first);
    expect(kc.status?.phase).toBe("Ready");
    expect(kc.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["TemplateSetValid", "True"],
      ["ClusterAvailable", "True"],
      ["KubeconfigReady", "True"],
      ["InfrastructureReachable", "True"],
      ["Ready", "True"],
    ]);
    expect(kc.status?.conditions?.every((c) => c.observedGeneration === created.metadata?.generation)).toBe(true);
    expect(kc.status?.conditions?.find((c) => c.type === "TemplateSetValid")?.message).toBe('template set "in-memory" with Kubernetes v1.37.0');
    expect(kc.status?.apiEndpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kc.status?.kubeconfigSecretName).toBe("my-cluster-kubeconfig");
    expect(kc.status?.flavor).toBeUndefined();

    const secret = await first.client.get<Secret>("/api/v1/namespaces/default/secrets/my-cluster-kubeconfig");
    const text = Buffer.from(secret.data?.kubeconfig ?? "", "base64").toString("utf8");
    const kubeconfig = parse(text) as { clusters: { name: string; cluster: { server: string } }[]; "current-context": string; users: { user: Record<string, string> }[] };
    expect(kubeconfig["current-context"]).toBe("my-cluster");
    expect(kubeconfig.clusters).toEqual([{ name: "my-cluster", cluster: expect.objectContaining({ server: kc.status?.apiEndpoint }) as unknown }]);
    expect(Object.keys(kubeconfig.users[0]?.user ?? {}).sort()).toEqual(["client-certificate-data", "client-key-data"]);
    expect(started().controllerLog).not.toContain(kubeconfig.users[0]?.user["client-key-data"]);
    // The in-memory provider's workload API server answers for what Cluster API itself reads of a cluster.
    const workload = RestClient.fromKubeconfigText(text);
    try {
      const nodes = await workload.list("/api/v1/nodes");
      expect(nodes.items).toHaveLength(3);
    } finally {
      workload.close();
    }

    const [capi, ...more] = await capiClusters(first);
    expect(more).toEqual([]);
    expect(capi?.metadata?.name).toMatch(/^default-my-cluster-[0-9a-f]{8}$/);
    expect(capi?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "provider-controller",
      "platform.edgeconnect.eu/tenant": fingerprint(first.cluster),
      "platform.edgeconnect.eu/namespace": "default",
      "platform.edgeconnect.eu/name": "my-cluster",
      "platform.edgeconnect.eu/uid": created.metadata?.uid,
    });
    expect(capi?.metadata?.annotations).toMatchObject({ "platform.edgeconnect.eu/logical-cluster": first.cluster, "platform.edgeconnect.eu/kubernetes-version": "v1.37.0" });
    expect(capi?.spec?.topology?.version).toBe("v1.37.0");
    expect(capi?.spec?.topology?.workers?.machineDeployments).toEqual([expect.objectContaining({ name: "md-0", replicas: 2 })]);
    const namespace = await infra.get<KubeObject>(`/api/v1/namespaces/${tenantNamespace(first)}`);
    expect(namespace.metadata?.annotations?.["platform.edgeconnect.eu/logical-cluster"]).toBe(first.cluster);
  }, 500_000);

  it("keeps a second tenant with the same namespace and name apart, scales it, refuses a version change, and deleting the first leaves it Ready", async () => {
    second = await started().createTenant(`capi-b-${run}`);
    await order(second);
    await ready(second);
    expect(tenantNamespace(second)).not.toBe(tenantNamespace(first));
    const [capiA] = await capiClusters(first);
    const [capiB] = await capiClusters(second);
    expect(capiB?.metadata?.annotations?.["platform.edgeconnect.eu/logical-cluster"]).toBe(second.cluster);
    expect(capiB?.metadata?.uid).not.toBe(capiA?.metadata?.uid);
    const path = clusterPath("default", "my-cluster");
    const patch = (spec: object): Promise<unknown> => second.client.request("PATCH", path, { body: { spec }, contentType: "application/merge-patch+json" });

    await patch({ nodeCount: 3 });
    await eventually(
      async () => {
        const replicas = (await capiClusters(second))[0]?.spec?.topology?.workers?.machineDeployments?.[0]?.replicas;
        return holds(replicas === 3, `replicas ${String(replicas)}`);
      },
      { timeoutMs: 60_000, intervalMs: 1_000, description: "the machine deployment scaled to 3" },
    );
    await ready(second);

    await patch({ kubernetes: { version: "v1.36" } });
    const refused = await condition(second, path, "Ready", "False", "UnsupportedChange");
    expect(refused.status?.conditions?.find((c) => c.type === "Ready")?.message).toBe("kubernetes.version cannot change from v1.37.0 to v1.36 in place; set it back to v1.37.0");
    expect((await capiClusters(second))[0]?.spec?.topology?.version).toBe("v1.37.0");
    await patch({ kubernetes: { version: "v1.37" } });
    await ready(second);

    const capiPath = `${CAPI}/namespaces/${tenantNamespace(first)}/clusters/${capiA?.metadata?.name ?? ""}`;
    await first.client.delete(clusterPath("default", "my-cluster"));
    await waitUntilGone(first.client, clusterPath("default", "my-cluster"), { timeoutMs: 300_000 });
    expect(await httpStatus(infra, capiPath)).toBe(404);
    expect(await httpStatus(first.client, "/api/v1/namespaces/default/secrets/my-cluster-kubeconfig")).toBe(404);
    expect((await infra.list(`${CAPI}/namespaces/${tenantNamespace(first)}/machines`)).items).toEqual([]);
    // kube-controller-manager's namespace controller empties and removes it (no sooner than 5 s after the delete).
    await waitUntilGone(infra, `/api/v1/namespaces/${tenantNamespace(first)}`, { timeoutMs: 60_000, description: "the tenant's namespace on the infrastructure cluster gone" });

    const still = await second.client.get<Cluster>(path);
    expect(still.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(await capiClusters(second)).toHaveLength(1);
    await second.client.delete(path);
    await waitUntilGone(second.client, path, { timeoutMs: 300_000 });
    expect(await capiClusters(second)).toEqual([]);
  }, 900_000);

  it("answers a template set that does not exist and a version it does not offer with a condition, and creates nothing", async () => {
    const ws = await started().createTenant(`capi-bad-${run}`);
    await order(ws, "typo", { ...CLUSTER_API_SPEC, providerRef: { type: "ClusterAPI", templateSet: "in-memroy" } });
    const typo = await condition(ws, clusterPath("default", "typo"), "TemplateSetValid", "False", "TemplateSetNotFound");
    expect(typo.status?.conditions?.find((c) => c.type === "TemplateSetValid")?.message).toBe('template set "in-memroy" does not exist; set providerRef.templateSet to one of "in-memory"');
    expect(typo.status?.phase).toBe("Pending");

    await order(ws, "old", { ...CLUSTER_API_SPEC, kubernetes: { version: "v1.30" } });
    const old = await condition(ws, clusterPath("default", "old"), "TemplateSetValid", "False", "UnsupportedVersion");
    expect(old.status?.conditions?.find((c) => c.type === "TemplateSetValid")?.message).toBe('template set "in-memory" offers no Kubernetes v1.30; set kubernetes.version to one of v1.37.0');
    expect(old.status?.phase).toBe("Failed");

    expect(await httpStatus(infra, `/api/v1/namespaces/${tenantNamespace(ws)}`)).toBe(404);
    for (const name of ["typo", "old"]) await ws.client.delete(clusterPath("default", name));
    for (const name of ["typo", "old"]) await waitUntilGone(ws.client, clusterPath("default", name), { timeoutMs: 60_000 });
  }, 200_000);
});
