/**
 * The provider-controller end to end, on real kcp and a real infrastructure
 * kube-apiserver, with the controller and the Crossplane OTC provider
 * simulator running as their own processes and a real workload
 * kube-apiserver behind the simulated CCE clusters.
 *
 * Each test is one tenant story in a workspace (and an OTC account) of its
 * own: ordering a cluster and using its kubeconfig, scaling, deleting with
 * ordered teardown; two tenants with the same namespace and name; capacity
 * running out; unbinding; bad input; the controller killed mid-way.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubernetesCluster, ProviderConfig } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { fingerprint, HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, Reaper, waitUntilGone, type Workspace } from "@edgeconnect/testenv";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("provider-controller e2e skipped: it starts a workload kube-apiserver, which needs the local one's binaries");

const API = "/apis/platform.edgeconnect.eu/v1alpha1";
type Cluster = KubernetesCluster & KubeObject;

interface Order {
  readonly name?: string;
  readonly namespace?: string;
  readonly credentials?: string;
  readonly providerConfigName?: string;
  readonly capabilities?: { vCPUCount: number; memorySize: string; gpuModelName?: string };
  readonly spec?: Partial<NonNullable<KubernetesCluster["spec"]>>;
  /** Leave the Secret out. */
  readonly noSecret?: boolean;
}

describeInfra("provider-controller", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "provider-controller-e2e-"));
  let reaper: Reaper;
  let platform: Platform;
  let accounts = 0;

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
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await reaper?.close();
  });

  /** A tenant workspace with an OTC account of its own. */
  async function tenant(label: string): Promise<{ ws: Workspace; account: number }> {
    const account = accounts++;
    return { ws: await platform.createTenant(`${label}-${run}`), account };
  }

  async function order(ws: Workspace, account: number, input: Order = {}): Promise<Cluster> {
    if (input.namespace !== undefined) await ignoreConflict(ws.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: input.namespace } }));
    return orderCluster(ws.client, { ...input, credentials: input.noSecret === true ? undefined : (input.credentials ?? platform.passwordCredentials(account)) });
  }

  const clusterPath = (namespace: string, name: string): string => `${API}/namespaces/${namespace}/kubernetesclusters/${name}`;

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

  it("orders a cluster that ends Ready with a kubeconfig that works, scales it, and deletes it in order with nothing left", async () => {
    const { ws, account } = await tenant("lifecycle");
    const created = await order(ws, account);
    const kc = await ready(ws);
    expect(kc.status?.phase).toBe("Ready");
    expect(kc.status?.flavor).toMatchObject({ name: "c4.xlarge.2", source: "Matched" });
    expect(kc.status?.flavor?.rejected?.map((r) => r.flavor)).toContain("s3.large.2");
    expect(kc.status?.kubeconfigSecretName).toBe("my-cluster-kubeconfig");
    expect(kc.status?.apiEndpoint).toBe(platform.workload.url);
    for (const type of ["CredentialsValid", "FlavorMatched", "NetworkReady", "ControlPlaneReady", "NodePoolReady", "KubeconfigReady"]) {
      expect(kc.status?.conditions?.find((c) => c.type === type)).toMatchObject({ status: "True", observedGeneration: created.metadata?.generation });
    }
    const pc = await ws.client.get<ProviderConfig & KubeObject>(`${API}/namespaces/default/providerconfigs/otc`);
    expect(pc.status?.conditions?.find((c) => c.type === "CredentialsValid")).toMatchObject({ status: "True" });
    expect(pc.status?.authMode).toBe("Password");

    const kubeconfigText = Buffer.from((await ws.client.get<KubeObject & { data?: Record<string, string> }>("/api/v1/namespaces/default/secrets/my-cluster-kubeconfig")).data?.kubeconfig ?? "", "base64").toString();
    const clientKey = /client-key-data: (\S+)/.exec(kubeconfigText)?.[1] ?? "";
    expect(clientKey.length).toBeGreaterThan(100);
    const workload = await kubeconfigClient(ws);
    const namespaces = await workload.list("/api/v1/namespaces");
    expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain("kube-system");
    workload.close();
    expect(live(account)).toMatchObject({ vpcs: 1, subnets: 1, cceClusters: 1, nodePools: 1, servers: 2, eips: 1, keypairs: 1 });

    const namespace = await infraNamespace(ws);
    expect(namespace?.metadata?.annotations?.["platform.edgeconnect.eu/logical-cluster"]).toBe(ws.cluster);

    const patch = (spec: object): Promise<unknown> =>
      ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { spec }, contentType: "application/merge-patch+json" });
    await patch({ kubernetes: { version: "v1.32" } });
    const refused = await condition(ws, clusterPath("default", "my-cluster"), "Ready", "False", "UnsupportedChange");
    expect(refused.status?.conditions?.find((c) => c.type === "Ready")?.message).toMatch(/v1\.31/);
    expect(refused.status?.phase).toBe("Failed");
    await patch({ kubernetes: { version: "v1.31" }, nodeCount: 3 });
    await eventually(async () => [live(account).servers === 3, `${live(account).servers} servers`], { timeoutMs: 60_000, description: "3 servers" });
    await ready(ws);

    expect(platform.controllerLog).not.toContain(clientKey);
    expect(platform.controllerLog).not.toContain(platform.tenantCredentials(account).password);
    const clusterV3s = await platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${tenantNamespace(ws)}/clusterv3s`);
    expect(JSON.stringify(clusterV3s)).not.toContain(clientKey);

    const before = platform.otc.faults.requests.length;
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    const deletes = platform.otc.faults.requests
      .slice(before)
      .filter((r) => r.method === "DELETE" && r.status < 300)
      .map((r) => (/nodepools/.test(r.path) ? "nodepool" : /clusters/.test(r.path) ? "cluster" : /subnets/.test(r.path) ? "subnet" : /vpcs/.test(r.path) ? "vpc" : "other"));
    const first = (what: (typeof deletes)[number]): number => deletes.indexOf(what);
    expect(first("nodepool")).toBeGreaterThanOrEqual(0);
    expect(first("nodepool")).toBeLessThan(first("cluster"));
    expect(first("cluster")).toBeLessThan(first("subnet"));
    expect(first("subnet")).toBeLessThan(first("vpc"));
    await expect(ws.client.get(`/api/v1/namespaces/default/secrets/my-cluster-kubeconfig`)).rejects.toMatchObject({ status: 404 });
    // kube-controller-manager's namespace controller empties and removes it (no sooner than 5 s after the delete).
    await waitUntilGone(platform.infra, `/api/v1/namespaces/${tenantNamespace(ws)}`, { timeoutMs: 60_000, description: "the tenant's namespace on the infrastructure cluster gone" });
  });

  it("keeps two tenants with the seed's names apart: one deletes its cluster and orders again while the other keeps its own", async () => {
    const a = await tenant("twin-a");
    const b = await tenant("twin-b");
    // The seed's example names (default/my-cluster, ProviderConfig my-provider) in both, and one
    // tenant in each credentials format of the seed: password lines and AK/SK JSON.
    const seedNames = { providerConfigName: "my-provider" };
    await Promise.all([order(a.ws, a.account, seedNames), order(b.ws, b.account, { ...seedNames, credentials: platform.accessKeyCredentials(b.account) })]);
    const [readyA, readyB] = await Promise.all([ready(a.ws), ready(b.ws)]);
    expect(readyA.status?.clusterID).not.toBe(readyB.status?.clusterID);
    const pcB = await b.ws.client.get<ProviderConfig & KubeObject>(`${API}/namespaces/default/providerconfigs/my-provider`);
    expect(pcB.status?.authMode).toBe("AccessKey");
    expect(tenantNamespace(a.ws)).not.toBe(tenantNamespace(b.ws));
    expect(live(a.account).cceClusters).toBe(1);
    expect(live(b.account).cceClusters).toBe(1);
    const mrs = await platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${tenantNamespace(a.ws)}/clusterv3s`);
    expect(mrs.items.every((mr) => mr.metadata?.annotations?.["platform.edgeconnect.eu/logical-cluster"] === a.ws.cluster)).toBe(true);

    await a.ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(a.ws, clusterPath("default", "my-cluster"));
    expect(live(a.account).cceClusters).toBe(0);
    expect(live(b.account)).toMatchObject({ cceClusters: 1, nodePools: 1, servers: 2 });
    const stillB = await b.ws.client.get<Cluster>(clusterPath("default", "my-cluster"));
    expect(stillB.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    // Crossplane's ProviderConfig controller counts usages by name across namespaces: had both
    // tenants' ProviderConfigs one name, B's cluster would hold A's in use and A's namespace would
    // hang in Terminating, refusing A's next order.
    await waitUntilGone(platform.infra, `/api/v1/namespaces/${tenantNamespace(a.ws)}`, { timeoutMs: 60_000, description: "tenant A's namespace on the infrastructure cluster gone" });
    await order(a.ws, a.account, seedNames);
    await ready(a.ws);
    for (const twin of [a, b]) await twin.ws.client.delete(clusterPath("default", "my-cluster"));
    await Promise.all([a, b].map((twin) => gone(twin.ws, clusterPath("default", "my-cluster"))));
  });

  it("moves a matched node pool to the next flavor when its flavor is sold out, and tells the tenant when a pinned one is", async () => {
    for (const zone of ["eu-de-01", "eu-de-02", "eu-de-03"]) platform.otc.setCapacity("c4.xlarge.2", zone, 0);
    try {
      const matched = await tenant("soldout");
      await order(matched.ws, matched.account);
      const kc = await ready(matched.ws);
      expect(kc.status?.flavor).toMatchObject({ name: "s3.xlarge.4", source: "Matched" });
      expect(kc.status?.flavor?.soldOut).toEqual([{ flavor: "c4.xlarge.2", zone: "random" }]);
      // The sold-out pool is deleted while its successor is created; it may take a moment longer to go.
      await eventually(async () => [live(matched.account).nodePools === 1, JSON.stringify(live(matched.account))], { timeoutMs: 30_000, description: "only the new node pool left" });
      expect(live(matched.account)).toMatchObject({ nodePools: 1, servers: 2 });
      const events = await matched.ws.client.list<KubeObject & { reason?: string; message?: string }>("/api/v1/namespaces/default/events");
      expect(events.items.some((event) => event.reason === "FlavorSoldOut" && /s3\.xlarge\.4/.test(event.message ?? ""))).toBe(true);

      await order(matched.ws, matched.account, { name: "pinned", spec: { nodeFlavor: "c4.xlarge.2" } });
      const pinned = await condition(matched.ws, clusterPath("default", "pinned"), "NodePoolReady", "False", "SoldOut");
      expect(pinned.status?.conditions?.find((c) => c.type === "NodePoolReady")?.message).toMatch(/nodeFlavor/);
      expect(pinned.status?.flavor).toMatchObject({ name: "c4.xlarge.2", source: "Pinned" });
      for (const name of ["my-cluster", "pinned"]) await matched.ws.client.delete(clusterPath("default", name));
      for (const name of ["my-cluster", "pinned"]) await gone(matched.ws, clusterPath("default", name));
      expect(live(matched.account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    } finally {
      for (const zone of ["eu-de-01", "eu-de-02", "eu-de-03"]) platform.otc.setCapacity("c4.xlarge.2", zone, 1_000);
    }
  });

  it("tears a tenant's clusters down when the workspace unbinds the export", async () => {
    const { ws, account } = await tenant("unbind");
    await order(ws, account);
    await ready(ws);
    const bindings = await ws.client.list("/apis/apis.kcp.io/v1alpha2/apibindings");
    const binding = bindings.items.find((item) => (item as { spec?: { reference?: { export?: { name?: string } } } }).spec?.reference?.export?.name === "platform.edgeconnect.eu");
    expect(binding).toBeDefined();
    await ws.client.delete(`/apis/apis.kcp.io/v1alpha2/apibindings/${binding?.metadata?.name ?? ""}`);
    await eventually(async () => [live(account).cceClusters === 0 && live(account).vpcs === 0, JSON.stringify(live(account))], { timeoutMs: 120_000, description: "cloud objects gone after unbind" });
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });

  it("answers bad input with a condition that says what to change, and creates nothing", async () => {
    const { ws, account } = await tenant("bad-input");
    await order(ws, account, { name: "no-secret", namespace: "missing", noSecret: true });
    const missing = await condition(ws, clusterPath("missing", "no-secret"), "CredentialsValid", "False", "SecretNotFound");
    expect(missing.status?.conditions?.find((c) => c.type === "CredentialsValid")?.message).toMatch(/Secret "missing\/otc-credentials"/);

    await order(ws, account, { name: "malformed", namespace: "malformed", credentials: "auth_url=not a url\nuser_name\n" });
    await condition(ws, clusterPath("malformed", "malformed"), "CredentialsValid", "False", "InvalidCredentials");

    const wrong = platform.passwordCredentials(account, { password: `wrong-password-${run}` });
    await order(ws, account, { name: "rejected", namespace: "rejected", credentials: wrong });
    const rejected = await condition(ws, clusterPath("rejected", "rejected"), "CredentialsValid", "False", "CredentialsRejected");
    expect(JSON.stringify(rejected.status)).not.toContain(`wrong-password-${run}`);

    await order(ws, account, { name: "huge", namespace: "huge", capabilities: { vCPUCount: 64, memorySize: "512Gi", gpuModelName: "A100" } });
    const huge = await condition(ws, clusterPath("huge", "huge"), "FlavorMatched", "False", "NoMatchingFlavor");
    expect(huge.status?.conditions?.find((c) => c.type === "FlavorMatched")?.message).toMatch(/64 vCPU/);

    await expect(
      ws.client.create(`${API}/namespaces/default/kubernetesclusters`, {
        apiVersion: "platform.edgeconnect.eu/v1alpha1",
        kind: "KubernetesCluster",
        metadata: { name: "invalid" },
        spec: { machineCapabilitiesRef: { name: "workers" }, nodeCount: 0, nodeDiskSize: "100Gi", providerRef: { type: "AWS", configRef: { name: "otc" } }, kubernetes: { version: "latest" } },
      }),
    ).rejects.toMatchObject({ status: 422 });

    expect(await infraNamespace(ws)).toBeUndefined();
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    for (const [namespace, name] of [["missing", "no-secret"], ["malformed", "malformed"], ["rejected", "rejected"], ["huge", "huge"]] as const) {
      await ws.client.delete(clusterPath(namespace, name));
      await gone(ws, clusterPath(namespace, name));
    }
  });

  it("refuses a tenant namespace that another workspace holds, and touches nothing in it", async () => {
    const { ws, account } = await tenant("collision");
    const namespace = tenantNamespace(ws);
    // What a fingerprint collision would look like: the namespace exists, made for another logical cluster.
    await platform.infra.create("/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, annotations: { "platform.edgeconnect.eu/logical-cluster": `other-${run}` }, labels: { "app.kubernetes.io/managed-by": "provider-controller" } },
    });
    await order(ws, account);
    const refused = await condition(ws, clusterPath("default", "my-cluster"), "Ready", "False", "TenantNamespaceConflict");
    expect(refused.status?.conditions?.find((c) => c.type === "Ready")?.message).not.toContain(`other-${run}`);
    const secrets = await platform.infra.list(`/api/v1/namespaces/${namespace}/secrets`);
    expect(secrets.items).toHaveLength(0);
    expect(live(account).vpcs).toBe(0);
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    const after = await infraNamespace(ws);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it("finishes provisioning and teardown after the controller is killed mid-way, leaking nothing", async () => {
    const { ws, account } = await tenant("crash");
    await order(ws, account);
    await eventually(async () => [live(account).cceClusters === 1, JSON.stringify(live(account))], { timeoutMs: 90_000, description: "CCE cluster requested" });
    await platform.crashController();
    await ready(ws);
    expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1, servers: 2 });

    await ws.client.delete(clusterPath("default", "my-cluster"));
    await eventually(async () => [live(account).nodePools === 0, JSON.stringify(live(account))], { timeoutMs: 90_000, description: "node pool deleted" });
    await platform.crashController();
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });
});

async function ignoreConflict(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
}
