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
import { SECRET_LABEL, type KubernetesCluster, type ProviderConfig } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { fingerprint, HttpStatusError, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { CROSSPLANE_PROVIDER_CONFIG, MANAGED_RESOURCE_KINDS } from "@edgeconnect/provisioning";
import { connectFromEnv, eventually, freePort, readKubeconfig, Reaper, StallingProxy, waitUntilGone, type Workspace } from "@edgeconnect/testenv";
import { stringify } from "yaml";

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
    // Capabilities the running pool's flavor lacks: refused, not reported as matched.
    const capabilities = (vCPUCount: number): Promise<unknown> =>
      ws.client.request("PATCH", `${API}/namespaces/default/machinecapabilities/workers`, { body: { spec: { vCPUCount } }, contentType: "application/merge-patch+json" });
    await patch({ kubernetes: { version: "v1.31" } });
    await ready(ws);
    await capabilities(16);
    const grown = await condition(ws, clusterPath("default", "my-cluster"), "FlavorMatched", "False", "UnsupportedChange");
    expect(grown.status?.conditions?.find((c) => c.type === "FlavorMatched")?.message).toMatch(/runs c4\.xlarge\.2, which lacks .*4 vCPUs \(needs 16\)/);
    await capabilities(4);
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
    expect(live(a.account).cceClusters).toBe(1);
    expect(live(b.account).cceClusters).toBe(1);
    // What the infrastructure cluster holds, not names computed here: a namespace per tenant, each
    // holding only that tenant's objects, and ProviderConfig names that differ across the two
    // (crossplane-runtime counts usages by name across namespaces).
    const LOGICAL_CLUSTER = "platform.edgeconnect.eu/logical-cluster";
    const namespaces = (await platform.infra.list("/api/v1/namespaces", { query: { labelSelector: "app.kubernetes.io/managed-by=provider-controller" } })).items;
    const held = new Map<string, string>();
    for (const twin of [a, b]) {
      const ns = namespaces.filter((item) => item.metadata?.annotations?.[LOGICAL_CLUSTER] === twin.ws.cluster);
      expect(ns).toHaveLength(1);
      const name = ns[0]?.metadata?.name ?? "";
      const inside = [
        ...(await platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${name}/clusterv3s`)).items,
        ...(await platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${name}/nodepoolv3s`)).items,
        ...(await platform.infra.list(`/apis/${CROSSPLANE_PROVIDER_CONFIG.apiVersion}/namespaces/${name}/${CROSSPLANE_PROVIDER_CONFIG.plural}`)).items,
      ];
      expect(inside.length).toBeGreaterThanOrEqual(3);
      expect(inside.map((obj) => obj.metadata?.annotations?.[LOGICAL_CLUSTER])).toEqual(inside.map(() => twin.ws.cluster));
      for (const pc of inside.filter((obj) => obj.kind === "ProviderConfig")) held.set(pc.metadata?.name ?? "", name);
    }
    expect(new Set(held.values()).size).toBe(2);
    expect(held.size).toBe(2);

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
      // Remembered where the tenant cannot write: on the cluster's ClusterV3, not only in the tenant's status.
      const [clusterV3] = (await platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${tenantNamespace(matched.ws)}/clusterv3s`)).items;
      expect(JSON.parse(clusterV3?.metadata?.annotations?.["platform.edgeconnect.eu/sold-out"] ?? "[]")).toEqual([{ flavor: "c4.xlarge.2", zone: "random" }]);
      // The sold-out pool is deleted while its successor is created; it may take a moment longer to go.
      await eventually(async () => [live(matched.account).nodePools === 1, JSON.stringify(live(matched.account))], { timeoutMs: 30_000, description: "only the new node pool left" });
      expect(live(matched.account)).toMatchObject({ nodePools: 1, servers: 2 });
      // Events are sent in the background: give the recorder a moment.
      await eventually(
        async () => {
          const events = await matched.ws.client.list<KubeObject & { reason?: string; message?: string }>("/api/v1/namespaces/default/events");
          return [events.items.some((event) => event.reason === "FlavorSoldOut" && /s3\.xlarge\.4/.test(event.message ?? "")), "no FlavorSoldOut Event naming s3.xlarge.4"];
        },
        { timeoutMs: 30_000, description: "the FlavorSoldOut Event" },
      );

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

    // A Secret without the label the Secrets claim selects: invisible to the platform, and the condition says which label to add.
    await ignoreConflict(ws.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "unlabelled" } }));
    await ws.client.apply("/api/v1/namespaces/unlabelled/secrets/otc-credentials", { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials" }, stringData: { credentials: platform.passwordCredentials(account) } }, "e2e");
    await order(ws, account, { name: "unlabelled", namespace: "unlabelled", noSecret: true });
    const unlabelled = await condition(ws, clusterPath("unlabelled", "unlabelled"), "CredentialsValid", "False", "SecretNotFound");
    expect(unlabelled.status?.conditions?.find((c) => c.type === "CredentialsValid")?.message).toContain(`label ${SECRET_LABEL.key}=${SECRET_LABEL.value}`);

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
    for (const [namespace, name] of [["missing", "no-secret"], ["unlabelled", "unlabelled"], ["malformed", "malformed"], ["rejected", "rejected"], ["huge", "huge"]] as const) {
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

  it("serves a healthy tenant while another stores 100 KB, 1 MiB, binary and many-line credentials, and never restarts", async () => {
    const pid = platform.controllerPid;
    const hostile = await tenant("hostile");
    const healthy = await tenant("healthy");
    const variants: readonly [string, Buffer][] = [
      ["large", Buffer.from(`${platform.passwordCredentials(hostile.account)}#${"x".repeat(100 * 1024)}\n`)],
      // A Secret holds at most 1 MiB in all; leave room for the rest of the object.
      ["mebibyte", Buffer.alloc(1024 * 1024 - 4096, "a")],
      ["binary", randomBytes(64 * 1024)],
      ["many-lines", Buffer.from(`${platform.passwordCredentials(hostile.account)}${"#\n".repeat(100_000)}`)],
    ];
    for (const [namespace, data] of variants) {
      await ignoreConflict(hostile.ws.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }));
      await hostile.ws.client.apply(
        `/api/v1/namespaces/${namespace}/secrets/otc-credentials`,
        { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, data: { credentials: data.toString("base64") } },
        "e2e",
      );
      await order(hostile.ws, hostile.account, { namespace, noSecret: true });
    }
    await order(healthy.ws, healthy.account);
    // The healthy tenant's own Secret under the name the kubeconfig of its second cluster would get: never written over.
    const taken = { apiVersion: "v1", kind: "Secret", metadata: { name: "taken-kubeconfig", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, stringData: { note: "mine" } };
    await healthy.ws.client.apply("/api/v1/namespaces/default/secrets/taken-kubeconfig", taken, "e2e");
    await order(healthy.ws, healthy.account, { name: "taken", noSecret: true });
    await ready(healthy.ws);
    const conflict = await condition(healthy.ws, clusterPath("default", "taken"), "KubeconfigReady", "False", "KubeconfigSecretConflict", 120_000);
    expect(conflict.status?.conditions?.find((c) => c.type === "KubeconfigReady")?.message).toMatch(/taken-kubeconfig/);
    const kept = await healthy.ws.client.get<KubeObject & { data?: Record<string, string> }>("/api/v1/namespaces/default/secrets/taken-kubeconfig");
    expect(Object.keys(kept.data ?? {})).toEqual(["note"]);
    for (const [namespace] of variants) {
      const refused = await condition(hostile.ws, clusterPath(namespace, "my-cluster"), "CredentialsValid", "False", "InvalidCredentials");
      expect(refused.status?.conditions?.find((c) => c.type === "CredentialsValid")?.message).toMatch(/larger than 8192 bytes|not UTF-8 text|control characters|more than 100 lines/);
    }
    expect(platform.controllerPid).toBe(pid);
    expect(() => process.kill(pid ?? -1, 0)).not.toThrow();
    expect(await infraNamespace(hostile.ws)).toBeUndefined();
    expect(live(hostile.account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    for (const name of ["my-cluster", "taken"]) await healthy.ws.client.delete(clusterPath("default", name));
    for (const [namespace] of variants) await hostile.ws.client.delete(clusterPath(namespace, "my-cluster"));
    for (const name of ["my-cluster", "taken"]) await gone(healthy.ws, clusterPath("default", name));
    await expect(healthy.ws.client.get("/api/v1/namespaces/default/secrets/taken-kubeconfig")).resolves.toBeDefined();
    for (const [namespace] of variants) await gone(hostile.ws, clusterPath(namespace, "my-cluster"));
  });

  it("keeps a cluster in the OTC account it was made in: a rotation within the project goes through, another project is refused", async () => {
    const { ws, account } = await tenant("account");
    const other = accounts++;
    await order(ws, account);
    await ready(ws);
    const before = live(account);
    const rotate = (credentials: string): Promise<unknown> =>
      ws.client.apply(
        "/api/v1/namespaces/default/secrets/otc-credentials",
        { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, stringData: { credentials } },
        "edgeconnect-demo",
      );

    await rotate(platform.accessKeyCredentials(account));
    await eventually(
      async () => {
        const pc = await ws.client.get<ProviderConfig & KubeObject>(`${API}/namespaces/default/providerconfigs/otc`);
        return [pc.status?.authMode === "AccessKey", `authMode ${pc.status?.authMode ?? "unset"}`];
      },
      { timeoutMs: 60_000, description: "the rotated access key checked" },
    );
    const infraSecret = async (): Promise<string> => {
      const secrets = await platform.infra.list<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${tenantNamespace(ws)}/secrets`);
      return secrets.items.map((secret) => Buffer.from(secret.data?.credentials ?? "", "base64").toString()).join("");
    };
    await eventually(async () => [(await infraSecret()).includes("access_key"), "Crossplane's credentials still the password"], { timeoutMs: 60_000, description: "Crossplane's credentials rotated" });
    await ready(ws);
    expect(live(account)).toEqual(before);

    await rotate(platform.passwordCredentials(other));
    const refused = await condition(ws, clusterPath("default", "my-cluster"), "Ready", "False", "UnsupportedChange");
    const message = refused.status?.conditions?.find((c) => c.type === "Ready")?.message ?? "";
    expect(message).toContain(`instead of ${platform.tenantCredentials(account).projectName}`);
    expect(message).toMatch(/restore credentials of that project/);
    expect(refused.status?.conditions?.find((c) => c.type === "CredentialsValid")).toMatchObject({ status: "False", reason: "UnsupportedChange" });
    // Crossplane still holds the access key of the cluster's own project, and nothing was made in the other one.
    expect(await infraSecret()).toContain("access_key");
    expect(live(other)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    expect(live(account)).toEqual(before);

    await rotate(platform.passwordCredentials(account));
    await ready(ws);
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });

  it("moves a cluster off a ProviderConfig of the old naming without touching a cloud resource, and removes the old one", async () => {
    const { ws, account } = await tenant("migrate");
    await order(ws, account);
    await ready(ws);
    const namespace = tenantNamespace(ws);
    const kinds = MANAGED_RESOURCE_KINDS.map((kind) => `/apis/${kind.apiVersion}/namespaces/${namespace}/${kind.plural}`);
    type Managed = KubeObject & { spec?: { providerConfigRef?: { name?: string } } };
    const managed = async (): Promise<Managed[]> => (await Promise.all(kinds.map((path) => platform.infra.list<Managed>(path)))).flatMap((list) => list.items);
    const pcPath = (name = ""): string => `/apis/${CROSSPLANE_PROVIDER_CONFIG.apiVersion}/namespaces/${namespace}/${CROSSPLANE_PROVIDER_CONFIG.plural}${name === "" ? "" : `/${name}`}`;
    const configs = async (): Promise<string[]> => (await platform.infra.list(pcPath())).items.map((pc) => pc.metadata?.name ?? "");
    const [current] = await configs();
    if (current === undefined) throw new Error("no Crossplane ProviderConfig");
    // The state a controller of the old naming left: its ProviderConfig and Secret, every managed resource on it, and no other.
    const legacy = `${current.replace(/-pc-[0-9a-f]+$/, "")}-pc-legacy0`;
    const pc = await platform.infra.get<KubeObject & { spec?: object }>(pcPath(current));
    const secret = await platform.infra.get<KubeObject & { data?: object }>(`/api/v1/namespaces/${namespace}/secrets/${current}`);
    const marks = { labels: pc.metadata?.labels, annotations: pc.metadata?.annotations };
    await platform.infra.create(`/api/v1/namespaces/${namespace}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name: legacy, ...marks }, data: secret.data });
    await platform.infra.create(pcPath(), { apiVersion: pc.apiVersion, kind: pc.kind, metadata: { name: legacy, ...marks }, spec: { credentials: { source: "Secret", secretRef: { namespace, name: legacy, key: "credentials" } } } });
    await platform.stopController();
    const cloudWrites = (): number => platform.otc.faults.requests.filter((r) => r.method !== "GET" && !/auth\/tokens|clustercert/.test(r.path)).length;
    const writesBefore = cloudWrites();
    for (const mr of await managed()) {
      await platform.infra.request("PATCH", `${kinds.find((path) => path.endsWith(`/${mr.kind?.toLowerCase()}s`)) ?? ""}/${mr.metadata?.name ?? ""}`, {
        body: { spec: { providerConfigRef: { name: legacy } } },
        contentType: "application/merge-patch+json",
      });
    }
    await platform.infra.delete(pcPath(current));
    await platform.infra.delete(`/api/v1/namespaces/${namespace}/secrets/${current}`);
    await waitUntilGone(platform.infra, pcPath(current), { timeoutMs: 60_000, description: "the current ProviderConfig released by Crossplane" });

    platform.resumeController();
    await eventually(
      async () => {
        const names = await configs();
        const refs = new Set((await managed()).map((mr) => mr.spec?.providerConfigRef?.name));
        return [names.length === 1 && names[0] === current && refs.size === 1 && refs.has(current), `configs ${names.join(",")}; managed resources on ${[...refs].join(",")}`];
      },
      { timeoutMs: 90_000, description: "managed resources moved to the current ProviderConfig and the old one gone" },
    );
    await expect(platform.infra.get(`/api/v1/namespaces/${namespace}/secrets/${legacy}`)).rejects.toMatchObject({ status: 404 });
    await ready(ws);
    expect(cloudWrites()).toBe(writesBefore);
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
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

  it("stays up while the infrastructure cluster does not answer, tells the tenant instead of a frozen Ready, and recovers", async () => {
    const { ws, account } = await tenant("unreachable");
    // The controller's infrastructure calls (and only its) go through a proxy that can hold every request unanswered.
    const identity = readKubeconfig(platform.controllerIdentity.infraKubeconfig);
    const proxy = await StallingProxy.start({ upstream: identity.server });
    // Plain http to the loopback proxy, which client-node takes only with TLS verification off (there is no TLS to verify).
    const proxied = join(dir, `infra-through-proxy-${run}.kubeconfig`);
    writeFileSync(
      proxied,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "proxied",
        clusters: [{ name: "proxied", cluster: { server: proxy.url, "insecure-skip-tls-verify": true } }],
        users: [{ name: "proxied", user: { token: identity.token } }],
        contexts: [{ name: "proxied", context: { cluster: "proxied", user: "proxied" } }],
      }),
    );
    await platform.stopController();
    controllerArgs = [`--infra-kubeconfig=${proxied}`];
    try {
      platform.resumeController();
      const pid = platform.controllerPid;
      await order(ws, account);
      await ready(ws);
      expect((await ws.client.get<Cluster>(clusterPath("default", "my-cluster"))).status?.conditions?.find((c) => c.type === "InfrastructureReachable")?.status).toBe("True");

      proxy.stall();
      // A spec change as the infrastructure goes: its pass waits on calls that get no answer, and is ended when the probe
      // finds the infrastructure gone, so the tenant hears of it then rather than at those calls' deadlines.
      await ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { spec: { nodeCount: 3 } }, contentType: "application/merge-patch+json" });
      const unreachable = await condition(ws, clusterPath("default", "my-cluster"), "InfrastructureReachable", "False", "InfrastructureUnreachable", 60_000);
      expect(unreachable.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "Unknown", reason: "InfrastructureUnreachable" });
      // What the steps said last stays: the cloud resources did not go anywhere.
      expect(unreachable.status?.conditions?.find((c) => c.type === "NodePoolReady")?.status).toBe("True");
      expect(unreachable.status?.phase).toBe("Ready");
      // The change is not acted on meanwhile, and nothing crashes.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(live(account).servers).toBe(2);
      expect(platform.controllerPid).toBe(pid);
      expect(() => process.kill(pid ?? -1, 0)).not.toThrow();

      proxy.resume();
      await eventually(async () => [live(account).servers === 3, `${live(account).servers} servers`], { timeoutMs: 90_000, description: "the change made once the infrastructure answers" });
      const back = await ready(ws);
      expect(back.status?.conditions?.find((c) => c.type === "InfrastructureReachable")?.status).toBe("True");
      expect(platform.controllerPid).toBe(pid);
    } finally {
      proxy.resume();
      await platform.stopController();
      controllerArgs = [];
      platform.resumeController();
      await proxy.close();
    }
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });

  it("reports the infrastructure of a cluster that vanished without teardown, and deletes it with --orphan-teardown", async () => {
    const { ws, account } = await tenant("orphan");
    await order(ws, account);
    const kc = await ready(ws);
    const namespace = tenantNamespace(ws);
    expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1 });

    // The cluster vanishes without teardown: the controller's finalizer taken off by hand while it is down.
    await platform.stopController();
    const finalizers = (kc.metadata?.finalizers ?? []).filter((f) => f !== "platform.edgeconnect.eu/provider-controller");
    await ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { metadata: { finalizers } }, contentType: "application/merge-patch+json" });
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"), 30_000);

    // The same controller, under the same least-privilege identities, restarted with a quick audit and its metrics on.
    const metricsPort = await freePort();
    controllerArgs = ["--orphan-audit-interval=2s", `--metrics-bind-address=127.0.0.1:${metricsPort}`];
    try {
      platform.resumeController();
      const orphaned = async (kind: string): Promise<number | undefined> => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const line = text.split("\n").find((l) => l.startsWith(`edgeconnect_orphaned_infrastructure{kind="${kind}"}`));
        return line === undefined ? undefined : Number(line.split(" ").at(-1));
      };
      await eventually(
        async () => {
          const counts = await Promise.all(["VpcV1", "ClusterV3", "NodePoolV3", "ProviderConfig", "Namespace"].map((kind) => orphaned(kind).catch(() => undefined)));
          // Which namespaces of ours there are, should the count be off: a leak from an earlier test shows here.
          type Ns = KubeObject & { status?: { phase?: string; conditions?: { type?: string; status?: string; message?: string }[] } };
          const ours = (await platform.infra.list<Ns>("/api/v1/namespaces", { query: { labelSelector: "app.kubernetes.io/managed-by=provider-controller" } })).items.map(
            (ns) => `${ns.metadata?.name ?? ""} (${ns.status?.phase ?? ""}${(ns.status?.conditions ?? []).filter((c) => c.status === "True").map((c) => `; ${c.type ?? ""}: ${c.message ?? ""}`).join("")})`,
          );
          return [counts.every((count) => count === 1), `orphans VpcV1, ClusterV3, NodePoolV3, ProviderConfig, Namespace: ${counts.join(", ")}; our namespaces: ${ours.join(", ")}`];
        },
        { timeoutMs: 60_000, description: "the orphans counted" },
      );
      type Event = KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } };
      const orphanEvents = async (ns: string): Promise<Event[]> =>
        (await platform.infra.list<Event>(`/api/v1/namespaces/${ns}/events`)).items.filter((e) => e.reason === "OrphanedInfrastructure" && e.type === "Warning");
      await eventually(
        async () => {
          const kinds = new Set((await orphanEvents(namespace)).map((e) => e.involvedObject?.kind));
          const onNamespace = (await orphanEvents("default")).some((e) => e.involvedObject?.kind === "Namespace" && e.involvedObject.name === namespace);
          return [["VpcV1", "ClusterV3", "NodePoolV3", "ProviderConfig"].every((k) => kinds.has(k)) && onNamespace, `Events on ${[...kinds].join(", ")}; on the namespace: ${onNamespace}`];
        },
        { timeoutMs: 30_000, description: "a Warning Event on each orphan" },
      );
      const vpcEvents = (await orphanEvents(namespace)).filter((e) => e.involvedObject?.kind === "VpcV1");
      expect(vpcEvents).toHaveLength(1);
      expect(vpcEvents[0]?.message).toContain("KubernetesCluster default/my-cluster");
      // Reported, not touched: several audits later everything is still there, each orphan reported once.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await infraNamespace(ws)).toBeDefined();
      expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1 });
      expect((await orphanEvents(namespace)).filter((e) => e.involvedObject?.kind === "VpcV1").map((e) => (e as { count?: number }).count ?? 1)).toEqual([1]);

      await platform.stopController();
      controllerArgs = [...controllerArgs, "--orphan-teardown"];
      platform.resumeController();
      await eventually(async () => [(await infraNamespace(ws)) === undefined, JSON.stringify(live(account))], { timeoutMs: 180_000, description: "the orphaned infrastructure deleted, its namespace last" });
      expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
      await eventually(async () => [(await orphaned("VpcV1")) === 0 && (await orphaned("Namespace")) === 0, "orphans still counted"], { timeoutMs: 30_000, description: "no orphans counted" });
    } finally {
      await platform.stopController();
      controllerArgs = [];
      platform.resumeController();
    }
  });
});

async function ignoreConflict(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
}
