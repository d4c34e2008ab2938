/**
 * provider-controller tenant stories (lifecycle): ordering a cluster and using its kubeconfig, scaling, deleting with
 * ordered teardown; two tenants with the same namespace and name; unbinding.
 * Capacity running out is provider-controller-capacity.e2e.test.ts's.
 * The Platform and the helpers are e2e/src/provider-controller-stories.ts's.
 *
 * The stories run at the same time, as tenants do: each has workspaces and
 * OTC accounts of its own, and what one checks of shared things (the
 * controller's log, the infrastructure cluster's namespaces, OTC's request
 * log) it picks by its own workspace or project.
 */
import { expect, it } from "@jest/globals";
import type { ProviderConfig } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CROSSPLANE_PROVIDER_CONFIG } from "@edgeconnect/provisioning";
import { eventually, waitUntilGone } from "@edgeconnect/testenv";
import { API, clusterPath, describeProviderController, providerControllerStories, type Cluster } from "../src/provider-controller-stories.js";

describeProviderController("provider-controller (lifecycle)", () => {
  const stories = providerControllerStories();
  const { tenant, order, condition, ready, gone, live, projectOf, tenantNamespace, infraNamespace, kubeconfigClient } = stories;

  it.concurrent("orders a cluster that ends Ready with a kubeconfig that works, scales it, and deletes it in order with nothing left", async () => {
    const { ws, account } = await tenant("lifecycle");
    const created = await order(ws, account);
    const kc = await ready(ws);
    expect(kc.status?.phase).toBe("Ready");
    expect(kc.status?.flavor).toMatchObject({ name: "c4.xlarge.2", source: "Matched" });
    expect(kc.status?.flavor?.rejected?.map((r) => r.flavor)).toContain("s3.large.2");
    expect(kc.status?.kubeconfigSecretName).toBe("my-cluster-kubeconfig");
    expect(kc.status?.apiEndpoint).toBe(stories.platform.workload.url);
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

    expect(stories.platform.controllerLog).not.toContain(clientKey);
    expect(stories.platform.controllerLog).not.toContain(stories.platform.tenantCredentials(account).password);
    const clusterV3s = await stories.platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${tenantNamespace(ws)}/clusterv3s`);
    expect(JSON.stringify(clusterV3s)).not.toContain(clientKey);

    const before = stories.platform.otc.faults.requests.length;
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    // Every OTC path names the project: the other stories' calls are not this one's.
    const project = projectOf(account);
    const deletes = stories.platform.otc.faults.requests
      .slice(before)
      .filter((r) => r.method === "DELETE" && r.status < 300 && r.path.includes(project))
      .map((r) => (/nodepools/.test(r.path) ? "nodepool" : /clusters/.test(r.path) ? "cluster" : /subnets/.test(r.path) ? "subnet" : /vpcs/.test(r.path) ? "vpc" : "other"));
    const first = (what: (typeof deletes)[number]): number => deletes.indexOf(what);
    expect(first("nodepool")).toBeGreaterThanOrEqual(0);
    expect(first("nodepool")).toBeLessThan(first("cluster"));
    expect(first("cluster")).toBeLessThan(first("subnet"));
    expect(first("subnet")).toBeLessThan(first("vpc"));
    await expect(ws.client.get(`/api/v1/namespaces/default/secrets/my-cluster-kubeconfig`)).rejects.toMatchObject({ status: 404 });
    // kube-controller-manager's namespace controller empties and removes it (no sooner than 5 s after the delete).
    await waitUntilGone(stories.platform.infra, `/api/v1/namespaces/${tenantNamespace(ws)}`, { timeoutMs: 60_000, description: "the tenant's namespace on the infrastructure cluster gone" });
  });

  it.concurrent("keeps two tenants with the seed's names apart: one deletes its cluster and orders again while the other keeps its own", async () => {
    const a = await tenant("twin-a");
    const b = await tenant("twin-b");
    // The seed's example names (default/my-cluster, ProviderConfig my-provider) in both, and one
    // tenant in each credentials format of the seed: password lines and AK/SK JSON.
    const seedNames = { providerConfigName: "my-provider" };
    await Promise.all([order(a.ws, a.account, seedNames), order(b.ws, b.account, { ...seedNames, credentials: stories.platform.accessKeyCredentials(b.account) })]);
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
    const namespaces = (await stories.platform.infra.list("/api/v1/namespaces", { query: { labelSelector: "app.kubernetes.io/managed-by=provider-controller" } })).items;
    const held = new Map<string, string>();
    for (const twin of [a, b]) {
      const ns = namespaces.filter((item) => item.metadata?.annotations?.[LOGICAL_CLUSTER] === twin.ws.cluster);
      expect(ns).toHaveLength(1);
      const name = ns[0]?.metadata?.name ?? "";
      const inside = [
        ...(await stories.platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${name}/clusterv3s`)).items,
        ...(await stories.platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${name}/nodepoolv3s`)).items,
        ...(await stories.platform.infra.list(`/apis/${CROSSPLANE_PROVIDER_CONFIG.apiVersion}/namespaces/${name}/${CROSSPLANE_PROVIDER_CONFIG.plural}`)).items,
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
    await waitUntilGone(stories.platform.infra, `/api/v1/namespaces/${tenantNamespace(a.ws)}`, { timeoutMs: 60_000, description: "tenant A's namespace on the infrastructure cluster gone" });
    await order(a.ws, a.account, seedNames);
    await ready(a.ws);
    for (const twin of [a, b]) await twin.ws.client.delete(clusterPath("default", "my-cluster"));
    await Promise.all([a, b].map((twin) => gone(twin.ws, clusterPath("default", "my-cluster"))));
  });

  it.concurrent("tears a tenant's clusters down when the workspace unbinds the export", async () => {
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
});
