/**
 * The openMCP flow of the Cluster API cluster provider, end to end on real
 * components: a platform kube-apiserver with openMCP's CRDs; Cluster API's
 * core, kubeadm bootstrap and control plane, and in-memory development
 * providers; the Cluster API Operator; and the provider's built CLI as
 * openMCP's ClusterProvider runs it (`init`, then `run`).
 *
 * init → the operator and CoreProvider Ready → the documented in-memory
 * ProviderConfig → its ClusterProfile and providers (installed by the
 * operator from ConfigMaps, air-gapped) → an openMCP Cluster → Ready on a
 * real Cluster API Cluster → an AccessRequest → Granted, and its kubeconfig
 * can do what was granted and nothing else → deleting everything cleans up.
 *
 * Stand-ins (see OpenMcpPlatform): Deployments are marked Available while
 * the process playing them is healthy; openMCP's generic AccessRequest
 * controller is played by the test; the AccessRequest is granted against a
 * real kube-apiserver, since the in-memory workload API server has no
 * TokenRequest, authentication or authorization.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ACCESS_REQUEST,
  CAPI_CLUSTER,
  CLUSTER_PROFILE,
  collectionPath,
  CORE_PROVIDER,
  INFRASTRUCTURE_PROVIDER,
  objectPath,
  OPENMCP_CLUSTER,
  PROVIDER_CONFIG,
  type ClusterProfileV1alpha1,
} from "@edgeconnect/capi-provider-api";
import { OpenMcpPlatform, type Conditioned } from "@edgeconnect/demo";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, holds, httpStatus, Reaper, SUITE_STARTUP_DURATION, waitUntilGone } from "@edgeconnect/testenv";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("cluster-provider-capi e2e skipped: it starts kube-apiservers of its own, which needs the local one's binaries");

const NAMESPACE = "team-a";
const CLUSTER = "dev-1";

describeInfra("cluster-provider-capi on real Cluster API", () => {
  const dir = mkdtempSync(join(tmpdir(), "cluster-provider-capi-e2e-"));
  let reaper: Reaper;
  let platform: OpenMcpPlatform;
  let initConfig: string;
  let client: RestClient;
  const clusterPath = objectPath(OPENMCP_CLUSTER, NAMESPACE, CLUSTER);

  beforeAll(async () => {
    reaper = Reaper.start();
    // A cold build of the Cluster API binaries takes several minutes; they are cached afterwards.
    platform = await OpenMcpPlatform.start({ dir, environment: "e2e", reaper, log: (message) => console.error(message) });
    client = platform.client;
    initConfig = await platform.prepareAirGappedSources();
    await platform.installInMemoryClusterClass({ startupDuration: SUITE_STARTUP_DURATION });
  }, 900_000);

  afterAll(async () => {
    await platform?.stop();
    await reaper?.close();
  }, 120_000);

  it("init installs the Cluster API Operator and the core provider, and a second init changes nothing", async () => {
    const first = await platform.init(initConfig);
    expect({ code: first.code, log: first.code === 0 ? "" : first.log }).toEqual({ code: 0, log: "" });
    const core = await client.get<Conditioned>(objectPath(CORE_PROVIDER, "capi-system", "cluster-api"));
    expect(core.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(await httpStatus(client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/providerconfigs.capi.clusters.openmcp.cloud")).toBe(200);
    const second = await platform.init(initConfig);
    expect(second.code).toBe(0);
    const again = await client.get<Conditioned>(objectPath(CORE_PROVIDER, "capi-system", "cluster-api"));
    expect(again.metadata?.generation).toBe(core.metadata?.generation);
  }, 600_000);

  it("init fails, saying what is missing, when its source is absent", async () => {
    const result = await platform.init(join(dir, "no-such-init.yaml"));
    expect(result.code).toBe(2);
    expect(result.log).toMatch(/no-such-init\.yaml/);
  });

  it("the documented in-memory ProviderConfig becomes a ClusterProfile and installed providers", async () => {
    platform.startRun();
    await platform.applyInMemoryProviderConfig();
    const config = await platform.waitForPhase(platform.providerConfigPath("in-memory"), "Ready", 300_000);
    expect(config.status?.profile).toBe(platform.inMemoryProfile);
    expect(config.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["TemplateValid", "True"],
      ["ProvidersReady", "True"],
      ["ClusterProfileReady", "True"],
    ]);
    const profile = await client.get<ClusterProfileV1alpha1 & KubeObject>(objectPath(CLUSTER_PROFILE, undefined, platform.inMemoryProfile));
    expect(profile.spec).toEqual({ providerRef: { name: "capi" }, providerConfigRef: { name: "in-memory" }, supportedVersions: [{ version: "1.37.0" }] });
    const docker = await client.get<Conditioned>(objectPath(INFRASTRUCTURE_PROVIDER, "capd-system", "docker"));
    expect(docker.status?.conditions?.find((c) => c.type === "ProviderInstalled")?.status).toBe("True");
  }, 400_000);

  it("an openMCP Cluster of the profile becomes Ready on a real Cluster API Cluster", async () => {
    const started = Date.now();
    await platform.createCluster(NAMESPACE, CLUSTER, platform.inMemoryProfile);
    const cluster = await platform.waitForPhase(clusterPath, "Ready", 400_000);
    console.error(`openMCP Cluster Ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(cluster.metadata?.labels).toMatchObject({ "clusters.openmcp.cloud/provider": "capi", "clusters.openmcp.cloud/k8sversion": "1.37.0" });
    expect(cluster.status?.endpoints).toEqual([
      { name: "apiserver-external", url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/) as unknown as string },
      // From the kubeconfig Cluster API wrote for the management cluster.
      { name: "apiserver-internal", url: expect.stringMatching(/^https:\/\//) as unknown as string },
    ]);
    expect(cluster.status?.providerStatus).toMatchObject({ kind: "ClusterStatus", clusterApiCluster: { kind: "Cluster", namespace: NAMESPACE, name: CLUSTER } });
    const capi = await client.get<Conditioned>(objectPath(CAPI_CLUSTER, NAMESPACE, CLUSTER));
    expect(capi.status?.conditions?.find((c) => c.type === "Available")?.status).toBe("True");
  }, 500_000);

  it("an AccessRequest is Granted; its kubeconfig may do what was granted and is forbidden the rest", async () => {
    await platform.useRealWorkloadApiServer(NAMESPACE, CLUSTER);
    const path = await platform.requestAccess(NAMESPACE, "developer", { namespace: NAMESPACE, name: CLUSTER, profile: platform.inMemoryProfile }, {
      permissions: [{ namespace: "apps", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "create"] }] }],
      roleRefs: [{ kind: "ClusterRole", name: "view" }],
    });
    const request = await platform.waitForPhase(path, "Granted", 120_000);
    const secretName = (request.status?.secretRef as { name?: string } | undefined)?.name ?? "";
    expect(secretName).toBe("developer.kubeconfig");
    const secret = await client.get<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${NAMESPACE}/secrets/${secretName}`);
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(["ca.crt", "creationTimestamp", "expirationTimestamp", "host", "kubeconfig", "token"]);
    const granted = OpenMcpPlatform.clientFor(Buffer.from(secret.data?.kubeconfig ?? "", "base64").toString("utf8"));
    try {
      await granted.create("/api/v1/namespaces/apps/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hello" }, data: { greeting: "hi" } });
      expect(await httpStatus(granted, "/api/v1/namespaces/apps/configmaps/hello")).toBe(200);
      expect(await httpStatus(granted, "/api/v1/namespaces/kube-system/pods")).toBe(200);
      expect(await httpStatus(granted, "/api/v1/namespaces/kube-system/secrets")).toBe(403);
      await expect(granted.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "not-allowed" } })).rejects.toMatchObject({ status: 403 });
      await expect(granted.create("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "nope" } })).rejects.toMatchObject({ status: 403 });
    } finally {
      granted.close();
    }
  }, 200_000);

  it("bad input gets conditions that say what to change, and nothing is created", async () => {
    await platform.createCluster(NAMESPACE, "typo", `${platform.environment}.capi.in-memroy`);
    const typo = await eventually(
      async () => {
        const obj = await client.get<Conditioned>(objectPath(OPENMCP_CLUSTER, NAMESPACE, "typo"));
        const configured = obj.status?.conditions?.find((c) => c.type === "ClusterConfigured");
        return holds(configured?.status === "False", "no ClusterConfigured=False yet", configured);
      },
      { timeoutMs: 60_000, description: "ClusterConfigured=False" },
    );
    expect(typo).toMatchObject({ reason: "ProfileNotFound" });
    expect(await httpStatus(client, objectPath(CAPI_CLUSTER, NAMESPACE, "typo"))).toBe(404);
    await client.delete(objectPath(OPENMCP_CLUSTER, NAMESPACE, "typo"));
    await waitUntilGone(client, objectPath(OPENMCP_CLUSTER, NAMESPACE, "typo"), { timeoutMs: 60_000 });
  }, 120_000);

  it("Cluster API's webhooks refusing a Cluster API Cluster give ClusterConfigured=False InvalidTemplate with their message", async () => {
    const inMemory = await client.get<KubeObject & { spec: { kubernetesVersions: unknown; template: { clusterClass: { variables?: unknown[] } } } }>(platform.providerConfigPath("in-memory"));
    const clusterClass = inMemory.spec.template.clusterClass;
    const variables = [...(clusterClass.variables ?? []), { name: "notDefinedByTheClass", value: "x" }];
    await client.create(collectionPath(PROVIDER_CONFIG), {
      apiVersion: PROVIDER_CONFIG.apiVersion,
      kind: PROVIDER_CONFIG.kind,
      metadata: { name: "refused" },
      spec: { providerRef: { name: platform.providerName }, kubernetesVersions: inMemory.spec.kubernetesVersions, template: { clusterClass: { ...clusterClass, variables } } },
    });
    await platform.waitForPhase(platform.providerConfigPath("refused"), "Ready", 60_000);
    await platform.createCluster(NAMESPACE, "refused", `${platform.environment}.${platform.providerName}.refused`);
    const refused = await eventually(
      async () => {
        const obj = await client.get<Conditioned>(objectPath(OPENMCP_CLUSTER, NAMESPACE, "refused"));
        const configured = obj.status?.conditions?.find((c) => c.type === "ClusterConfigured");
        return holds(configured?.reason === "InvalidTemplate", "no ClusterConfigured InvalidTemplate yet", configured);
      },
      { timeoutMs: 60_000, description: "ClusterConfigured InvalidTemplate" },
    );
    expect(refused).toMatchObject({ status: "False" });
    expect(refused.message).toContain("notDefinedByTheClass");
    expect(await httpStatus(client, objectPath(CAPI_CLUSTER, NAMESPACE, "refused"))).toBe(404);
    await client.delete(objectPath(OPENMCP_CLUSTER, NAMESPACE, "refused"));
    await waitUntilGone(client, objectPath(OPENMCP_CLUSTER, NAMESPACE, "refused"), { timeoutMs: 60_000 });
    await client.delete(platform.providerConfigPath("refused"));
    await waitUntilGone(client, platform.providerConfigPath("refused"), { timeoutMs: 60_000 });
  }, 200_000);

  it("deleting the AccessRequest, the Cluster and the ProviderConfig cleans up everything", async () => {
    const workload = platform.workload.adminClient();
    // Every namespace has kube-controller-manager's `default` account; the provider's are the others.
    const accessAccounts = async (): Promise<KubeObject[]> =>
      (await workload.list<KubeObject>("/api/v1/namespaces/openmcp-access/serviceaccounts")).items.filter((account) => account.metadata?.name !== "default");
    try {
      expect(await accessAccounts()).toHaveLength(1);
      await client.delete(objectPath(ACCESS_REQUEST, NAMESPACE, "developer"));
      await waitUntilGone(client, objectPath(ACCESS_REQUEST, NAMESPACE, "developer"), { timeoutMs: 60_000 });
      expect(await httpStatus(client, `/api/v1/namespaces/${NAMESPACE}/secrets/developer.kubeconfig`)).toBe(404);
      expect(await accessAccounts()).toEqual([]);
    } finally {
      workload.close();
    }
    await client.delete(clusterPath);
    await waitUntilGone(client, objectPath(CAPI_CLUSTER, NAMESPACE, CLUSTER), { timeoutMs: 300_000 });
    await waitUntilGone(client, clusterPath, { timeoutMs: 60_000 });
    expect((await client.list<KubeObject>(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${NAMESPACE}/machines`)).items).toEqual([]);
    await client.delete(platform.providerConfigPath("in-memory"));
    await waitUntilGone(client, platform.providerConfigPath("in-memory"), { timeoutMs: 120_000 });
    expect(await httpStatus(client, objectPath(CLUSTER_PROFILE, undefined, platform.inMemoryProfile))).toBe(404);
    await waitUntilGone(client, objectPath(INFRASTRUCTURE_PROVIDER, "capd-system", "docker"), { timeoutMs: 120_000 });
  }, 600_000);
});
