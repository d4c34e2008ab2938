/**
 * The cluster controller on a platform cluster of its own (a real
 * kube-apiserver with openMCP's, Cluster API's, the operator's and our CRDs)
 * with the provider's `run` in this process: an openMCP Cluster of one of our
 * profiles becomes a Cluster API Cluster (from a ClusterClass or from the
 * template's objects), Ready with its endpoint once Cluster API reports it
 * available; bad input gets a condition and nothing else; another provider's
 * Clusters and a foreign Cluster API Cluster are left alone; deletion waits
 * for the other finalizers, then for Cluster API. Versions follow the one
 * policy of `templateSetVersion`; the API server's admission refusals, kinds
 * not served yet and names in spec.clusterConfigs each get a condition;
 * template objects are pruned and cleaned up as recorded at apply.
 *
 * No Cluster API manager runs here: where a test needs a Cluster API
 * Cluster's status, endpoint or finalizer, it writes it, playing Cluster API.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  CAPI_CLUSTER,
  CLUSTER_PROFILE,
  collectionPath,
  INFRASTRUCTURE_PROVIDER,
  objectPath,
  OPENMCP_CLUSTER,
  PROVIDER_CONFIG,
  type ProviderConfigV1alpha1Spec,
} from "@edgeconnect/capi-provider-api";
import { getIfPresent, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { applyCrds, connectFromEnv, eventually, holds, waitForObject, waitUntilGone } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";
import { K8S_VERSION_LABEL, OPERATION, OPERATION_ANNOTATION, PROVIDER_INFO_ANNOTATION, PROVIDER_LABEL } from "../openmcp/constants.js";
import { providerKeys } from "../provider/provider-identity.js";
import { ENVIRONMENT, PROVIDER_NAME, runProvider, startPlatform, type Platform, type RunningProvider } from "../testing/platform.fixture.js";
import type { CapiCluster } from "./cluster-reconciler.js";

/** The keys the provider under test (PROVIDER_NAME) marks its own objects with. */
const KEYS = providerKeys({ providerName: PROVIDER_NAME });

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

interface Conditioned {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason: string; readonly message: string }[] } | undefined;
}

function conditionOf(obj: Conditioned, type: string): { status: string; reason: string; message: string } | undefined {
  return obj.status?.conditions?.find((c) => c.type === type);
}

const MERGE_PATCH = "application/merge-patch+json";
/** Cluster API's own finalizer on a Cluster, which it removes once everything the Cluster owns is gone. */
const CAPI_FINALIZER = "cluster.cluster.x-k8s.io";
const FOREIGN_FINALIZER = "request.clusters.openmcp.cloud/x";

/**
 * An infrastructure kind for objects templates: Cluster API's own providers'
 * CRDs are not installed here. The contract label is how Cluster API finds
 * the version of a v1beta2 reference's kind.
 */
const TEST_GROUP = "infrastructure.test.edgeconnect.eu";
const infraCrd = (kind: string): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${kind.toLowerCase()}s.${TEST_GROUP}`, labels: { "cluster.x-k8s.io/v1beta2": "v1alpha1" } },
  spec: {
    group: TEST_GROUP,
    names: { kind, listKind: `${kind}List`, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase() },
    scope: "Namespaced",
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
});
const TEST_INFRA_CRD = infraCrd("TestInfraCluster");
/** Installed only once a test has seen Clusters wait for it. */
const LATE_INFRA_CRD = infraCrd("LateInfraCluster");

/** Offered in this order: the default must be the newest that is not deprecated, neither the first nor the newest. */
const VERSIONS: ProviderConfigV1alpha1Spec["kubernetesVersions"] = [{ version: "1.33.5" }, { version: "1.35.0", deprecated: true }, { version: "1.34.1" }];

describeInfra("cluster controller on a platform cluster of its own", () => {
  const run = randomBytes(3).toString("hex");
  const namespace = `clusters-${run}`;
  const classConfig = `class-${run}`;
  const objectsConfig = `objects-${run}`;
  let platform: Platform;
  let provider: RunningProvider;
  let kube: RestClient;

  beforeAll(async () => {
    platform = await startPlatform();
    kube = platform.client;
    await applyCrds(kube, [TEST_INFRA_CRD]);
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    provider = runProvider(platform);
    await createConfig(classConfig, {
      clusterClass: {
        name: "in-memory",
        variables: [
          { name: "region", value: "eu-de" },
          { name: "owner", value: "${CLUSTER_NAME}" },
        ],
        controlPlane: { replicas: 1 },
        workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 1 }] },
      },
    });
    await createConfig(objectsConfig, {
      objects: {
        infrastructureRef: { apiGroup: TEST_GROUP, kind: "TestInfraCluster", name: "${CLUSTER_NAME}" },
        resources: [{ apiVersion: `${TEST_GROUP}/v1alpha1`, kind: "TestInfraCluster", metadata: { name: "${CLUSTER_NAME}" }, spec: { clusterName: "${CLUSTER_NAME}", zone: "eu-de-01" } }],
      },
    });
    for (const name of [classConfig, objectsConfig]) {
      await until<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, name), `ProviderConfig ${name} Ready`, (c) => c.status?.phase === "Ready");
    }
  }, 300_000);

  afterAll(async () => {
    await provider?.stop();
    await platform?.stop();
  }, 60_000);

  const profileOf = (config: string): string => `${ENVIRONMENT}.${PROVIDER_NAME}.${config}`;
  const clusterPath = (name: string): string => objectPath(OPENMCP_CLUSTER, namespace, name);
  const capiPath = (name: string): string => objectPath(CAPI_CLUSTER, namespace, name);
  const infraPath = (name: string): string => `/apis/${TEST_GROUP}/v1alpha1/namespaces/${namespace}/testinfraclusters/${name}`;

  async function createConfig(name: string, template: ProviderConfigV1alpha1Spec["template"], extra: Partial<ProviderConfigV1alpha1Spec> = {}): Promise<void> {
    const spec: ProviderConfigV1alpha1Spec = { providerRef: { name: PROVIDER_NAME }, kubernetesVersions: VERSIONS, template, ...extra };
    await kube.create(collectionPath(PROVIDER_CONFIG), { apiVersion: PROVIDER_CONFIG.apiVersion, kind: PROVIDER_CONFIG.kind, metadata: { name }, spec });
  }

  async function createCluster(name: string, profile: string, extra: { version?: string; finalizers?: string[]; clusterConfigs?: string[] } = {}): Promise<void> {
    await kube.create(collectionPath(OPENMCP_CLUSTER, namespace), {
      apiVersion: OPENMCP_CLUSTER.apiVersion,
      kind: OPENMCP_CLUSTER.kind,
      metadata: { name, namespace, ...(extra.finalizers === undefined ? {} : { finalizers: extra.finalizers }) },
      spec: {
        profile,
        tenancy: "Exclusive",
        purposes: ["test"],
        ...(extra.version === undefined ? {} : { kubernetes: { version: extra.version } }),
        ...(extra.clusterConfigs === undefined ? {} : { clusterConfigs: extra.clusterConfigs.map((n) => ({ name: n })) }),
      },
    });
  }

  async function createProfile(name: string, providerName: string, configName: string): Promise<void> {
    await kube.create(collectionPath(CLUSTER_PROFILE), {
      apiVersion: CLUSTER_PROFILE.apiVersion,
      kind: CLUSTER_PROFILE.kind,
      metadata: { name },
      spec: { providerRef: { name: providerName }, providerConfigRef: { name: configName }, supportedVersions: [{ version: "1.34.1" }] },
    });
  }

  async function patch(path: string, body: object): Promise<void> {
    await kube.request("PATCH", path, { body, contentType: MERGE_PATCH });
  }

  /** Removes one finalizer, guarded by the resourceVersion read so that a finalizer added meanwhile is not lost. */
  async function removeFinalizer(path: string, finalizer: string): Promise<void> {
    await eventually(
      async () => {
        const obj = await kube.get(path);
        const finalizers = obj.metadata?.finalizers ?? [];
        await kube.request("PATCH", path, {
          body: [
            { op: "test", path: "/metadata/resourceVersion", value: obj.metadata?.resourceVersion },
            { op: "replace", path: "/metadata/finalizers", value: finalizers.filter((f) => f !== finalizer) },
          ],
          contentType: "application/json-patch+json",
        });
        return holds(true, "");
      },
      { timeoutMs: 30_000, description: `finalizer ${finalizer} removed from ${path}` },
    );
  }

  const until = <T extends KubeObject>(path: string, description: string, check: (obj: T) => boolean): Promise<T> => waitForObject(kube, path, description, check);
  const gone = (path: string, description: string): Promise<void> => waitUntilGone(kube, path, { description });


  const configured = (name: string, reason: string): Promise<OpenMcpCluster> =>
    until<OpenMcpCluster>(clusterPath(name), `Cluster ${name} ClusterConfigured ${reason}`, (c) => conditionOf(c, "ClusterConfigured")?.reason === reason);

  /** Playing Cluster API: the Cluster API Cluster available at its current generation. */
  async function reportAvailable(name: string): Promise<void> {
    const generation = (await kube.get<CapiCluster>(capiPath(name))).metadata.generation;
    await patch(`${capiPath(name)}/status`, {
      status: {
        observedGeneration: generation,
        conditions: [{ type: "Available", status: "True", reason: "Available", message: "", observedGeneration: generation, lastTransitionTime: new Date().toISOString() }],
      },
    });
  }

  /** Asks for a reconcile of the Cluster and waits until it is done: the controller clears the annotation after it applied. */
  async function reconciled(name: string): Promise<OpenMcpCluster> {
    await patch(clusterPath(name), { metadata: { annotations: { [OPERATION_ANNOTATION]: OPERATION.Reconcile } } });
    return until<OpenMcpCluster>(clusterPath(name), `Cluster ${name} reconciled`, (c) => c.metadata.annotations?.[OPERATION_ANNOTATION] === undefined);
  }

  /** Waits until the config controller has published the config's versions: the shared caches have the config's change. */
  async function profileOffers(config: string, versions: string[]): Promise<void> {
    await until<KubeObject & { spec?: { supportedVersions?: { version: string }[] } }>(objectPath(CLUSTER_PROFILE, undefined, profileOf(config)), `profile of ${config} offering ${versions.join(", ")}`, (p) =>
      JSON.stringify((p.spec?.supportedVersions ?? []).map((v) => v.version)) === JSON.stringify(versions),
    );
  }

  it("makes a Cluster API Cluster from the ClusterClass template and is Ready with its endpoint once Cluster API reports it available", async () => {
    const name = `class-${run}`;
    await createCluster(name, profileOf(classConfig));

    const progressing = await until<OpenMcpCluster>(clusterPath(name), "the Cluster Progressing", (c) => c.status?.phase === "Progressing" && conditionOf(c, "ClusterConfigured")?.status === "True");
    expect(progressing.metadata.finalizers).toContain(KEYS.finalizers.cluster);
    expect(conditionOf(progressing, "ClusterReady")?.status).toBe("False");
    expect(progressing.metadata.labels).toMatchObject({ [PROVIDER_LABEL]: PROVIDER_NAME, [K8S_VERSION_LABEL]: "1.34.1" });

    const capi = await kube.get<CapiCluster>(capiPath(name));
    expect(capi.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "cluster-provider-capi",
      "capi.clusters.openmcp.cloud/provider-name": PROVIDER_NAME,
      "capi.clusters.openmcp.cloud/cluster-name": name,
      "capi.clusters.openmcp.cloud/cluster-namespace": namespace,
    });
    expect(capi.spec?.topology).toEqual({
      classRef: { name: "in-memory" },
      version: "v1.34.1",
      variables: [
        { name: "region", value: "eu-de" },
        { name: "owner", value: name },
      ],
      controlPlane: { replicas: 1 },
      workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 1 }] },
    });

    // Playing Cluster API: the control plane's endpoint, its kubeconfig for the management cluster, then the Cluster available at its new generation.
    await patch(capiPath(name), { spec: { controlPlaneEndpoint: { host: "192.0.2.10", port: 6443 } } });
    const token = `capi-admin-token-${run}`;
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "current-context: admin",
      "contexts: [{name: admin, context: {cluster: c, user: admin}}]",
      "clusters: [{name: c, cluster: {server: 'https://10.96.7.7:6443'}}]",
      `users: [{name: admin, user: {token: ${token}}}]`,
    ].join("\n");
    await kube.create(`/api/v1/namespaces/${namespace}/secrets`, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${name}-kubeconfig`, namespace },
      data: { value: Buffer.from(kubeconfig).toString("base64") },
    });
    await patch(`${capiPath(name)}/status`, { status: { phase: "Provisioned" } });
    await reportAvailable(name);

    const ready = await until<OpenMcpCluster>(clusterPath(name), "the Cluster Ready", (c) => c.status?.phase === "Ready" && (c.status.endpoints ?? []).length === 2);
    expect(conditionOf(ready, "ClusterReady")?.status).toBe("True");
    expect(conditionOf(ready, "ClusterConfigsApplied")).toMatchObject({ status: "True", reason: "NoneRequested" });
    expect(ready.status?.endpoints).toEqual([
      { name: "apiserver-external", url: "https://192.0.2.10:6443" },
      { name: "apiserver-internal", url: "https://10.96.7.7:6443" },
    ]);
    expect(ready.status?.providerStatus).toEqual({
      apiVersion: "capi.clusters.openmcp.cloud/v1alpha1",
      kind: "ClusterStatus",
      clusterApiCluster: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", namespace, name },
      clusterClass: "in-memory",
      phase: "Provisioned",
    });
    expect(ready.metadata.annotations?.[PROVIDER_INFO_ANNOTATION]).toBe("ClusterClass in-memory");
    expect(JSON.stringify(ready)).not.toContain(token);
    expect(ready.status?.observedGeneration).toBe(ready.metadata.generation);
  });

  it("applies what it can of a Cluster naming spec.clusterConfigs and says that those are not applied, until they are removed", async () => {
    const name = `configs-${run}`;
    await createCluster(name, profileOf(classConfig), { clusterConfigs: ["audit", "oidc"] });

    const told = await until<OpenMcpCluster>(clusterPath(name), "ClusterConfigsApplied False", (c) => conditionOf(c, "ClusterConfigsApplied")?.status === "False");
    expect(conditionOf(told, "ClusterConfigsApplied")).toMatchObject({ reason: "ClusterConfigsNotSupported" });
    expect(conditionOf(told, "ClusterConfigsApplied")?.message).toContain("audit, oidc");
    expect(told.status?.phase).toBe("Progressing");
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.topology?.version).toBe("v1.34.1");

    await patch(clusterPath(name), { spec: { clusterConfigs: null } });
    await until<OpenMcpCluster>(clusterPath(name), "ClusterConfigsApplied True", (c) => conditionOf(c, "ClusterConfigsApplied")?.status === "True");
  });

  it("creates an objects template's resources with the Cluster's name, refers the Cluster API Cluster to them, and removes them after it", async () => {
    const name = `objects-${run}`;
    await createCluster(name, profileOf(objectsConfig));
    await configured(name, "Applied");

    const infra = await kube.get<KubeObject & { spec?: Record<string, unknown> }>(infraPath(name));
    expect(infra.spec).toEqual({ clusterName: name, zone: "eu-de-01" });
    expect(infra.metadata?.labels).toMatchObject({ "app.kubernetes.io/managed-by": "cluster-provider-capi", "capi.clusters.openmcp.cloud/provider-name": PROVIDER_NAME, "capi.clusters.openmcp.cloud/cluster-name": name });
    const capi = await kube.get<CapiCluster>(capiPath(name));
    expect(capi.spec?.infrastructureRef).toEqual({ apiGroup: TEST_GROUP, kind: "TestInfraCluster", name });
    expect(capi.spec?.topology).toBeUndefined();

    // Playing Cluster API, which holds the Cluster while it tears down what it owns.
    await patch(capiPath(name), { metadata: { finalizers: [CAPI_FINALIZER] } });
    await kube.delete(clusterPath(name));
    await until<CapiCluster>(capiPath(name), "the Cluster API Cluster being deleted", (c) => c.metadata.deletionTimestamp !== undefined);
    const deleting = await until<OpenMcpCluster>(clusterPath(name), "the Cluster waiting for Cluster API", (c) => conditionOf(c, "ClusterReady")?.reason === "Deleting");
    expect(deleting.status?.phase).toBe("Terminating");
    await sleep(2_000);
    await expect(kube.get(infraPath(name))).resolves.toBeDefined();

    await removeFinalizer(capiPath(name), CAPI_FINALIZER);
    await gone(infraPath(name), "the template's resource deleted");
    await gone(clusterPath(name), "the Cluster deleted");
  });

  it("reports bad input with ClusterConfigured=False and creates nothing, and leaves another provider's Cluster alone", async () => {
    const foreignProfile = `${ENVIRONMENT}.other.foreign-${run}`;
    await createProfile(foreignProfile, "other", `foreign-${run}`);
    const foreign = `foreign-${run}`;
    await createCluster(foreign, foreignProfile);

    const noProfile = `noprofile-${run}`;
    const missingProfile = `${ENVIRONMENT}.${PROVIDER_NAME}.nope-${run}`;
    await createCluster(noProfile, missingProfile);
    const handMade = `${ENVIRONMENT}.${PROVIDER_NAME}.handmade-${run}`;
    await createProfile(handMade, PROVIDER_NAME, `missing-${run}`);
    const noConfig = `noconfig-${run}`;
    await createCluster(noConfig, handMade);
    const badVersion = `badversion-${run}`;
    await createCluster(badVersion, profileOf(classConfig), { version: "1.30.0" });

    const cases = [
      { name: noProfile, reason: "ProfileNotFound", mentions: [missingProfile] },
      { name: noConfig, reason: "ProviderConfigNotFound", mentions: [`missing-${run}`, handMade] },
      { name: badVersion, reason: "UnsupportedVersion", mentions: [`profile ${profileOf(classConfig)} offers no Kubernetes 1.30.0; set kubernetes.version to one of v1.35.0 (deprecated), v1.34.1, v1.33.5`] },
    ];
    for (const { name, reason, mentions } of cases) {
      const cluster = await configured(name, reason);
      const condition = conditionOf(cluster, "ClusterConfigured");
      expect(condition?.status).toBe("False");
      for (const text of mentions) expect(condition?.message).toContain(text);
      expect(cluster.status?.phase).toBe("Progressing");
      expect(await getIfPresent(kube, capiPath(name))).toBeUndefined();
    }

    // Created first, so the controller has had it as long as the others it has already answered.
    await sleep(2_000);
    const untouched = await kube.get<OpenMcpCluster>(clusterPath(foreign));
    expect(untouched.metadata.finalizers ?? []).toEqual([]);
    expect(untouched.status).toBeUndefined();
    expect(await getIfPresent(kube, capiPath(foreign))).toBeUndefined();

    // Choosing an offered version is the change the message asks for.
    await patch(clusterPath(badVersion), { spec: { kubernetes: { version: "1.33.5" } } });
    await configured(badVersion, "Applied");
    expect((await kube.get<CapiCluster>(capiPath(badVersion))).spec?.topology?.version).toBe("v1.33.5");
  });

  it("refuses to take over a Cluster API Cluster of the same name made by someone else", async () => {
    const name = `taken-${run}`;
    const theirs = await kube.create<CapiCluster>(collectionPath(CAPI_CLUSTER, namespace), {
      apiVersion: CAPI_CLUSTER.apiVersion,
      kind: CAPI_CLUSTER.kind,
      metadata: { name, namespace, labels: { team: "someone-else" } },
      spec: { topology: { classRef: { name: "theirs" }, version: "v1.33.5" } },
    });
    await createCluster(name, profileOf(classConfig));

    const conflict = await configured(name, "NameConflict");
    expect(conditionOf(conflict, "ClusterConfigured")?.status).toBe("False");
    expect(conditionOf(conflict, "ClusterConfigured")?.message).toContain(`a Cluster API Cluster ${name} not made for this Cluster exists in namespace ${namespace}`);
    await sleep(2_000);
    const after = await kube.get<CapiCluster>(capiPath(name));
    expect(after.metadata.resourceVersion).toBe(theirs.metadata.resourceVersion);

    await kube.delete(clusterPath(name));
    await gone(clusterPath(name), "the Cluster deleted");
    const left = await kube.get<CapiCluster>(capiPath(name));
    expect(left.metadata.resourceVersion).toBe(theirs.metadata.resourceVersion);
    expect(left.metadata.deletionTimestamp).toBeUndefined();
  });

  it("deletes the Cluster API Cluster once the other finalizers are gone, then lets the Cluster go", async () => {
    const name = `delete-${run}`;
    await createCluster(name, profileOf(classConfig), { finalizers: [FOREIGN_FINALIZER] });
    await configured(name, "Applied");
    // Playing Cluster API, which holds the Cluster while it tears down what it owns.
    await patch(capiPath(name), { metadata: { finalizers: [CAPI_FINALIZER] } });

    await kube.delete(clusterPath(name));
    const blocked = await until<OpenMcpCluster>(clusterPath(name), "the Cluster waiting for the other finalizer", (c) => conditionOf(c, "ClusterReady")?.reason === "WaitingForFinalizers");
    expect(blocked.status?.phase).toBe("Terminating");
    expect(conditionOf(blocked, "ClusterReady")?.message).toContain(FOREIGN_FINALIZER);
    await sleep(3_000);
    const held = await kube.get<OpenMcpCluster>(clusterPath(name));
    expect(held.metadata.finalizers).toEqual(expect.arrayContaining([KEYS.finalizers.cluster, FOREIGN_FINALIZER]));
    expect((await kube.get<CapiCluster>(capiPath(name))).metadata.deletionTimestamp).toBeUndefined();

    await removeFinalizer(clusterPath(name), FOREIGN_FINALIZER);
    await until<CapiCluster>(capiPath(name), "the Cluster API Cluster being deleted", (c) => c.metadata.deletionTimestamp !== undefined);
    await until<OpenMcpCluster>(clusterPath(name), "the Cluster waiting for Cluster API", (c) => conditionOf(c, "ClusterReady")?.reason === "Deleting");

    await removeFinalizer(capiPath(name), CAPI_FINALIZER);
    await gone(capiPath(name), "the Cluster API Cluster deleted");
    await gone(clusterPath(name), "the Cluster deleted");
  });

  it("keeps a running Cluster's version while offers come and go, resolves a minor to its newest patch, upgrades when asked and refuses a downgrade", async () => {
    const config = `versions-${run}`;
    await createConfig(config, { clusterClass: { name: "in-memory" } }, { kubernetesVersions: [{ version: "1.33.4" }, { version: "1.33.5" }, { version: "1.34.1" }] });
    await until<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, config), `ProviderConfig ${config} Ready`, (c) => c.status?.phase === "Ready");
    const name = `versions-${run}`;
    await createCluster(name, profileOf(config), { version: "1.33" });
    await configured(name, "Applied");
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.topology?.version).toBe("v1.33.5");
    await reportAvailable(name);
    await until<OpenMcpCluster>(clusterPath(name), "the Cluster Ready", (c) => c.status?.phase === "Ready");

    const offer = async (versions: string[]): Promise<void> => {
      await patch(objectPath(PROVIDER_CONFIG, undefined, config), { spec: { kubernetesVersions: versions.map((version) => ({ version })) } });
      await profileOffers(config, versions);
    };
    // A newer patch of the running minor is offered: nothing is upgraded by that alone.
    await offer(["1.33.4", "1.33.5", "1.33.9", "1.34.1"]);
    let after = await reconciled(name);
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.topology?.version).toBe("v1.33.5");
    expect(after.metadata.labels?.[K8S_VERSION_LABEL]).toBe("1.33.5");
    // The running version is no longer offered: nothing is downgraded, and the Cluster stays Ready.
    await offer(["1.34.1"]);
    after = await reconciled(name);
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.topology?.version).toBe("v1.33.5");
    expect(conditionOf(after, "ClusterConfigured")?.reason).toBe("Applied");
    expect(after.status?.phase).toBe("Ready");

    await patch(clusterPath(name), { spec: { kubernetes: { version: "1.34" } } });
    await until<CapiCluster>(capiPath(name), "the Cluster API Cluster upgraded", (c) => c.spec?.topology?.version === "v1.34.1");
    await until<OpenMcpCluster>(clusterPath(name), "the version label upgraded", (c) => c.metadata.labels?.[K8S_VERSION_LABEL] === "1.34.1");
    await reportAvailable(name);
    await until<OpenMcpCluster>(clusterPath(name), "the Cluster Ready again", (c) => c.status?.phase === "Ready");

    await offer(["1.33.5", "1.34.1"]);
    await patch(clusterPath(name), { spec: { kubernetes: { version: "1.33" } } });
    const refused = await configured(name, "UnsupportedChange");
    expect(conditionOf(refused, "ClusterConfigured")?.message).toBe("kubernetes.version cannot change from v1.34.1 to 1.33 in place; set it back to v1.34.1");
    expect(conditionOf(refused, "ClusterReady")?.status).toBe("True");
    expect(refused.status?.observedGeneration).toBe(refused.metadata.generation);
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.topology?.version).toBe("v1.34.1");
  });

  it("reports the API server's refusal of the Cluster API Cluster as InvalidTemplate with its message, scrubbed, in a status of the current generation", async () => {
    const policy = `capi-region-${run}`;
    const secret = `Bearer admission-secret-${run}-0123456789`;
    await kube.create("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: policy },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: ["cluster.x-k8s.io"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["clusters"] }] },
        validations: [
          {
            expression: "!has(object.spec.topology) || !has(object.spec.topology.variables) || object.spec.topology.variables.all(v, v.name != 'region' || v.value != 'forbidden')",
            message: `region forbidden is not offered here (${secret})`,
            reason: "Invalid",
          },
        ],
      },
    });
    await kube.create("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } } } },
    });
    const config = `refused-${run}`;
    await createConfig(config, { clusterClass: { name: "in-memory", variables: [{ name: "region", value: "forbidden" }] } });
    await until<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, config), `ProviderConfig ${config} Ready`, (c) => c.status?.phase === "Ready");
    // The API server enforces a new policy once it has loaded it.
    await eventually(
      async () => {
        const probe = { apiVersion: CAPI_CLUSTER.apiVersion, kind: CAPI_CLUSTER.kind, metadata: { name: `probe-${run}`, namespace }, spec: { topology: { classRef: { name: "x" }, version: "v1.34.1", variables: [{ name: "region", value: "forbidden" }] } } };
        const answer = await kube.request("POST", collectionPath(CAPI_CLUSTER, namespace), { body: probe, query: { dryRun: "All" } }).then(
          () => "created",
          (err: unknown) => (err instanceof HttpStatusError ? `${err.status} ${err.statusObject?.message ?? ""}` : String(err)),
        );
        return holds(answer.startsWith("422") && answer.includes(policy), `dry run answered ${answer}`);
      },
      { timeoutMs: 30_000, description: "the admission policy enforced" },
    );

    const name = `refused-${run}`;
    await createCluster(name, profileOf(config));
    const refused = await configured(name, "InvalidTemplate");
    const condition = conditionOf(refused, "ClusterConfigured");
    expect(condition?.status).toBe("False");
    expect(condition?.message).toContain("region forbidden is not offered here");
    expect(condition?.message).toContain(policy);
    expect(condition?.message).not.toContain(`admission-secret-${run}`);
    expect(refused.status?.observedGeneration).toBe(refused.metadata.generation);
    expect(refused.status?.phase).toBe("Progressing");
    expect(await getIfPresent(kube, capiPath(name))).toBeUndefined();
  });

  it("waits with ProvidersNotReady while template kinds are not served, and applies once the config's providers are ready", async () => {
    const config = `late-${run}`;
    const provider = `late-${run}`;
    await createConfig(
      config,
      {
        objects: {
          infrastructureRef: { apiGroup: TEST_GROUP, kind: "LateInfraCluster", name: "${CLUSTER_NAME}" },
          resources: [{ apiVersion: `${TEST_GROUP}/v1alpha1`, kind: "LateInfraCluster", metadata: { name: "${CLUSTER_NAME}" }, spec: { zone: "eu-de-02" } }],
        },
      },
      { providers: { infrastructure: [{ name: provider, version: "v0.1.0" }] } },
    );
    const installing = await until<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, config), `ProviderConfig ${config} installing`, (c) => (c.status?.providers ?? []).length === 1);
    const declared = installing.status?.providers?.[0];

    const name = `late-${run}`;
    await createCluster(name, profileOf(config));
    const waiting = await configured(name, "ProvidersNotReady");
    expect(conditionOf(waiting, "ClusterConfigured")?.status).toBe("False");
    expect(conditionOf(waiting, "ClusterConfigured")?.message).toContain(`LateInfraCluster (${TEST_GROUP}/v1alpha1)`);
    expect(conditionOf(waiting, "ClusterConfigured")?.message).toContain(config);
    expect(await getIfPresent(kube, capiPath(name))).toBeUndefined();

    // Playing the Cluster API Operator: the provider's CRDs arrive, then it reports the provider installed and ready.
    await applyCrds(kube, [LATE_INFRA_CRD]);
    const lastTransitionTime = new Date().toISOString();
    await patch(`${objectPath(INFRASTRUCTURE_PROVIDER, declared?.namespace, provider)}/status`, {
      status: {
        installedVersion: "v0.1.0",
        conditions: [
          { type: "ProviderInstalled", status: "True", reason: "Installed", message: "", lastTransitionTime },
          { type: "Ready", status: "True", reason: "Ready", message: "", lastTransitionTime },
        ],
      },
    });
    await configured(name, "Applied");
    expect((await kube.get<CapiCluster>(capiPath(name))).spec?.infrastructureRef).toEqual({ apiGroup: TEST_GROUP, kind: "LateInfraCluster", name });
  });

  it("prunes what a live Cluster's template no longer makes, and at deletion removes what was applied though today's config no longer renders", async () => {
    const config = `prune-${run}`;
    const infra = { apiVersion: `${TEST_GROUP}/v1alpha1`, kind: "TestInfraCluster", metadata: { name: "${CLUSTER_NAME}" }, spec: { zone: "eu-de-01" } };
    const extra = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${CLUSTER_NAME}-extra" }, data: { purpose: "pruned later" } };
    const objects = (resources: Record<string, unknown>[], infrastructureName = "${CLUSTER_NAME}"): ProviderConfigV1alpha1Spec["template"] => ({
      objects: { infrastructureRef: { apiGroup: TEST_GROUP, kind: "TestInfraCluster", name: infrastructureName }, resources },
    });
    await createConfig(config, objects([infra, extra]));
    await until<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, config), `ProviderConfig ${config} Ready`, (c) => c.status?.phase === "Ready");
    const name = `prune-${run}`;
    const extraPath = `/api/v1/namespaces/${namespace}/configmaps/${name}-extra`;
    await createCluster(name, profileOf(config));
    await configured(name, "Applied");
    await expect(kube.get(extraPath)).resolves.toBeDefined();
    await expect(kube.get(infraPath(name))).resolves.toBeDefined();

    await patch(objectPath(PROVIDER_CONFIG, undefined, config), { spec: { template: objects([infra]) } });
    await gone(extraPath, "the ConfigMap the template dropped pruned");
    await expect(kube.get(infraPath(name))).resolves.toBeDefined();

    // Today's config renders nothing for this Cluster; what it was made of is still known.
    await patch(objectPath(PROVIDER_CONFIG, undefined, config), { spec: { template: objects([infra], "${NOT_DEFINED}") } });
    await configured(name, "InvalidTemplate");
    await kube.delete(clusterPath(name));
    await gone(infraPath(name), "the applied TestInfraCluster deleted");
    await gone(clusterPath(name), "the Cluster deleted");
  });

  it("shares the platform with a second ClusterProvider of this image: each marks, watches and releases only its own objects", async () => {
    const other = "capi-b";
    const otherKeys = providerKeys({ providerName: other });
    const second = runProvider(platform, { providerName: other, logName: "cluster-provider-capi-b" });
    try {
      const otherConfig = `other-${run}`;
      await kube.create(collectionPath(PROVIDER_CONFIG), {
        apiVersion: PROVIDER_CONFIG.apiVersion,
        kind: PROVIDER_CONFIG.kind,
        metadata: { name: otherConfig },
        spec: { providerRef: { name: other }, kubernetesVersions: VERSIONS, template: { clusterClass: { name: "in-memory" } } },
      });
      const otherProfile = `${ENVIRONMENT}.${other}.${otherConfig}`;
      const profile = await until<KubeObject>(objectPath(CLUSTER_PROFILE, undefined, otherProfile), `profile ${otherProfile}`, () => true);
      expect(profile.metadata?.labels).toEqual(otherKeys.labels);
      const config = await kube.get<ProviderConfig>(objectPath(PROVIDER_CONFIG, undefined, otherConfig));
      expect(config.metadata.finalizers).toEqual([otherKeys.finalizers.providerConfig]);

      const mine = `mine-${run}`;
      const theirs = `theirs-${run}`;
      await createCluster(mine, profileOf(classConfig));
      await createCluster(theirs, otherProfile);
      for (const [name, keys] of [[mine, KEYS], [theirs, otherKeys]] as const) {
        const cluster = await configured(name, "Applied");
        expect(cluster.metadata.finalizers).toEqual([keys.finalizers.cluster]);
        const capi = await kube.get<CapiCluster>(capiPath(name));
        expect(capi.metadata.labels).toMatchObject(keys.labels);
        // Each owns its objects' fields as its own manager, so neither apply takes fields from the other.
        const managedFields = (capi.metadata as { managedFields?: { manager?: string }[] }).managedFields ?? [];
        expect(new Set(managedFields.map((entry) => entry.manager))).toEqual(new Set([keys.fieldManager]));
      }

      // The other provider lets its Cluster go; ours is left exactly as it was.
      const before = await kube.get<CapiCluster>(capiPath(mine));
      await kube.delete(clusterPath(theirs));
      await gone(clusterPath(theirs), "their Cluster deleted");
      const after = await kube.get<CapiCluster>(capiPath(mine));
      expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect((await kube.get<OpenMcpCluster>(clusterPath(mine))).metadata.finalizers).toEqual([KEYS.finalizers.cluster]);
    } finally {
      await second.stop();
    }
  });
});
