/**
 * provider-controller tenant stories (input): bad input; a tenant namespace another workspace holds; hostile
 * credentials beside a healthy tenant; credential rotation across OTC
 * projects; a ProviderConfig of the old naming.
 * The Platform and the helpers are e2e/src/provider-controller-stories.ts's.
 *
 * The stories run at the same time, as tenants do, each in workspaces and OTC
 * accounts of its own; the last stops the controller, so it runs after them.
 */
import { expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { SECRET_LABEL, type ProviderConfig } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CROSSPLANE_PROVIDER_CONFIG, MANAGED_RESOURCE_KINDS } from "@edgeconnect/provisioning";
import { eventually, waitUntilGone } from "@edgeconnect/testenv";
import { API, clusterPath, describeProviderController, ignoreConflict, providerControllerStories } from "../src/provider-controller-stories.js";

describeProviderController("provider-controller (input)", () => {
  const stories = providerControllerStories();
  const { run, tenant, order, condition, ready, gone, live, tenantNamespace, infraNamespace } = stories;

  it.concurrent("answers bad input with a condition that says what to change, and creates nothing", async () => {
    const { ws, account } = await tenant("bad-input");
    await order(ws, account, { name: "no-secret", namespace: "missing", noSecret: true });
    const missing = await condition(ws, clusterPath("missing", "no-secret"), "CredentialsValid", "False", "SecretNotFound");
    expect(missing.status?.conditions?.find((c) => c.type === "CredentialsValid")?.message).toMatch(/Secret "missing\/otc-credentials"/);

    // A Secret without the label the Secrets claim selects: invisible to the platform, and the condition says which label to add.
    await ignoreConflict(ws.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "unlabelled" } }));
    await ws.client.apply("/api/v1/namespaces/unlabelled/secrets/otc-credentials", { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials" }, stringData: { credentials: stories.platform.passwordCredentials(account) } }, "e2e");
    await order(ws, account, { name: "unlabelled", namespace: "unlabelled", noSecret: true });
    const unlabelled = await condition(ws, clusterPath("unlabelled", "unlabelled"), "CredentialsValid", "False", "SecretNotFound");
    expect(unlabelled.status?.conditions?.find((c) => c.type === "CredentialsValid")?.message).toContain(`label ${SECRET_LABEL.key}=${SECRET_LABEL.value}`);

    await order(ws, account, { name: "malformed", namespace: "malformed", credentials: "auth_url=not a url\nuser_name\n" });
    await condition(ws, clusterPath("malformed", "malformed"), "CredentialsValid", "False", "InvalidCredentials");

    const wrong = stories.platform.passwordCredentials(account, { password: `wrong-password-${run}` });
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

  it.concurrent("refuses a tenant namespace that another workspace holds, and touches nothing in it", async () => {
    const { ws, account } = await tenant("collision");
    const namespace = tenantNamespace(ws);
    // What a fingerprint collision would look like: the namespace exists, made for another logical cluster.
    await stories.platform.infra.create("/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, annotations: { "platform.edgeconnect.eu/logical-cluster": `other-${run}` }, labels: { "app.kubernetes.io/managed-by": "provider-controller" } },
    });
    await order(ws, account);
    const refused = await condition(ws, clusterPath("default", "my-cluster"), "Ready", "False", "TenantNamespaceConflict");
    expect(refused.status?.conditions?.find((c) => c.type === "Ready")?.message).not.toContain(`other-${run}`);
    const secrets = await stories.platform.infra.list(`/api/v1/namespaces/${namespace}/secrets`);
    expect(secrets.items).toHaveLength(0);
    expect(live(account).vpcs).toBe(0);
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    const after = await infraNamespace(ws);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it.concurrent("serves a healthy tenant while another stores 100 KB, 1 MiB, binary and many-line credentials, and never restarts", async () => {
    const pid = stories.platform.controllerPid;
    const hostile = await tenant("hostile");
    const healthy = await tenant("healthy");
    const variants: readonly [string, Buffer][] = [
      ["large", Buffer.from(`${stories.platform.passwordCredentials(hostile.account)}#${"x".repeat(100 * 1024)}\n`)],
      // A Secret holds at most 1 MiB in all; leave room for the rest of the object.
      ["mebibyte", Buffer.alloc(1024 * 1024 - 4096, "a")],
      ["binary", randomBytes(64 * 1024)],
      ["many-lines", Buffer.from(`${stories.platform.passwordCredentials(hostile.account)}${"#\n".repeat(100_000)}`)],
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
    expect(stories.platform.controllerPid).toBe(pid);
    expect(() => process.kill(pid ?? -1, 0)).not.toThrow();
    expect(await infraNamespace(hostile.ws)).toBeUndefined();
    expect(live(hostile.account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    for (const name of ["my-cluster", "taken"]) await healthy.ws.client.delete(clusterPath("default", name));
    for (const [namespace] of variants) await hostile.ws.client.delete(clusterPath(namespace, "my-cluster"));
    for (const name of ["my-cluster", "taken"]) await gone(healthy.ws, clusterPath("default", name));
    await expect(healthy.ws.client.get("/api/v1/namespaces/default/secrets/taken-kubeconfig")).resolves.toBeDefined();
    for (const [namespace] of variants) await gone(hostile.ws, clusterPath(namespace, "my-cluster"));
  });

  it.concurrent("keeps a cluster in the OTC account it was made in: a rotation within the project goes through, another project is refused", async () => {
    const { ws, account } = await tenant("account");
    const other = stories.nextAccount();
    await order(ws, account);
    await ready(ws);
    const before = live(account);
    const rotate = (credentials: string): Promise<unknown> =>
      ws.client.apply(
        "/api/v1/namespaces/default/secrets/otc-credentials",
        { apiVersion: "v1", kind: "Secret", metadata: { name: "otc-credentials", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } }, stringData: { credentials } },
        "edgeconnect-demo",
      );

    await rotate(stories.platform.accessKeyCredentials(account));
    await eventually(
      async () => {
        const pc = await ws.client.get<ProviderConfig & KubeObject>(`${API}/namespaces/default/providerconfigs/otc`);
        return [pc.status?.authMode === "AccessKey", `authMode ${pc.status?.authMode ?? "unset"}`];
      },
      { timeoutMs: 60_000, description: "the rotated access key checked" },
    );
    const infraSecret = async (): Promise<string> => {
      const secrets = await stories.platform.infra.list<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${tenantNamespace(ws)}/secrets`);
      return secrets.items.map((secret) => Buffer.from(secret.data?.credentials ?? "", "base64").toString()).join("");
    };
    await eventually(async () => [(await infraSecret()).includes("access_key"), "Crossplane's credentials still the password"], { timeoutMs: 60_000, description: "Crossplane's credentials rotated" });
    await ready(ws);
    expect(live(account)).toEqual(before);

    await rotate(stories.platform.passwordCredentials(other));
    const refused = await condition(ws, clusterPath("default", "my-cluster"), "Ready", "False", "UnsupportedChange");
    const message = refused.status?.conditions?.find((c) => c.type === "Ready")?.message ?? "";
    expect(message).toContain(`instead of ${stories.platform.tenantCredentials(account).projectName}`);
    expect(message).toMatch(/restore credentials of that project/);
    expect(refused.status?.conditions?.find((c) => c.type === "CredentialsValid")).toMatchObject({ status: "False", reason: "UnsupportedChange" });
    // Crossplane still holds the access key of the cluster's own project, and nothing was made in the other one.
    expect(await infraSecret()).toContain("access_key");
    expect(live(other)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    expect(live(account)).toEqual(before);

    await rotate(stories.platform.passwordCredentials(account));
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
    const managed = async (): Promise<Managed[]> => (await Promise.all(kinds.map((path) => stories.platform.infra.list<Managed>(path)))).flatMap((list) => list.items);
    const pcPath = (name = ""): string => `/apis/${CROSSPLANE_PROVIDER_CONFIG.apiVersion}/namespaces/${namespace}/${CROSSPLANE_PROVIDER_CONFIG.plural}${name === "" ? "" : `/${name}`}`;
    const configs = async (): Promise<string[]> => (await stories.platform.infra.list(pcPath())).items.map((pc) => pc.metadata?.name ?? "");
    const [current] = await configs();
    if (current === undefined) throw new Error("no Crossplane ProviderConfig");
    // The state a controller of the old naming left: its ProviderConfig and Secret, every managed resource on it, and no other.
    const legacy = `${current.replace(/-pc-[0-9a-f]+$/, "")}-pc-legacy0`;
    const pc = await stories.platform.infra.get<KubeObject & { spec?: object }>(pcPath(current));
    const secret = await stories.platform.infra.get<KubeObject & { data?: object }>(`/api/v1/namespaces/${namespace}/secrets/${current}`);
    const marks = { labels: pc.metadata?.labels, annotations: pc.metadata?.annotations };
    await stories.platform.infra.create(`/api/v1/namespaces/${namespace}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name: legacy, ...marks }, data: secret.data });
    await stories.platform.infra.create(pcPath(), { apiVersion: pc.apiVersion, kind: pc.kind, metadata: { name: legacy, ...marks }, spec: { credentials: { source: "Secret", secretRef: { namespace, name: legacy, key: "credentials" } } } });
    await stories.platform.stopController();
    const cloudWrites = (): number => stories.platform.otc.faults.requests.filter((r) => r.method !== "GET" && !/auth\/tokens|clustercert/.test(r.path)).length;
    const writesBefore = cloudWrites();
    for (const mr of await managed()) {
      await stories.platform.infra.request("PATCH", `${kinds.find((path) => path.endsWith(`/${mr.kind?.toLowerCase()}s`)) ?? ""}/${mr.metadata?.name ?? ""}`, {
        body: { spec: { providerConfigRef: { name: legacy } } },
        contentType: "application/merge-patch+json",
      });
    }
    await stories.platform.infra.delete(pcPath(current));
    await stories.platform.infra.delete(`/api/v1/namespaces/${namespace}/secrets/${current}`);
    await waitUntilGone(stories.platform.infra, pcPath(current), { timeoutMs: 60_000, description: "the current ProviderConfig released by Crossplane" });

    stories.platform.resumeController();
    await eventually(
      async () => {
        const names = await configs();
        const refs = new Set((await managed()).map((mr) => mr.spec?.providerConfigRef?.name));
        return [names.length === 1 && names[0] === current && refs.size === 1 && refs.has(current), `configs ${names.join(",")}; managed resources on ${[...refs].join(",")}`];
      },
      { timeoutMs: 90_000, description: "managed resources moved to the current ProviderConfig and the old one gone" },
    );
    await expect(stories.platform.infra.get(`/api/v1/namespaces/${namespace}/secrets/${legacy}`)).rejects.toMatchObject({ status: 404 });
    await ready(ws);
    expect(cloudWrites()).toBe(writesBefore);
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });
});
