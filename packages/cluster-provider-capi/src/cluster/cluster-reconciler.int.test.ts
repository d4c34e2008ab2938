/**
 * The cluster controller on a platform cluster of its own (a real
 * kube-apiserver with openMCP's, Cluster API's, the operator's and our CRDs)
 * with the provider's `run` in this process: an openMCP Cluster of one of our
 * profiles becomes a Cluster API Cluster (from a ClusterClass or from the
 * template's objects), Ready with its endpoint once Cluster API reports it
 * available; bad input gets a condition and nothing else; another provider's
 * Clusters and a foreign Cluster API Cluster are left alone; deletion waits
 * for the other finalizers, then for Cluster API.
 *
 * No Cluster API manager runs here: where a test needs a Cluster API
 * Cluster's status, endpoint or finalizer, it writes it, playing Cluster API.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CAPI_CLUSTER, CLUSTER_PROFILE, collectionPath, objectPath, OPENMCP_CLUSTER, PROVIDER_CONFIG, type ProviderConfigV1alpha1Spec } from "@edgeconnect/capi-provider-api";
import { getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { applyCrds, connectFromEnv, eventually, holds, waitForObject, waitUntilGone } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";
import { FINALIZERS } from "../provider/provider-identity.js";
import { ENVIRONMENT, PROVIDER_NAME, runProvider, startPlatform, type Platform, type RunningProvider } from "../testing/platform.fixture.js";
import type { CapiCluster } from "./cluster-reconciler.js";

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
const TEST_INFRA_CRD: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `testinfraclusters.${TEST_GROUP}`, labels: { "cluster.x-k8s.io/v1beta2": "v1alpha1" } },
  spec: {
    group: TEST_GROUP,
    names: { kind: "TestInfraCluster", listKind: "TestInfraClusterList", plural: "testinfraclusters", singular: "testinfracluster" },
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
};

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

  async function createConfig(name: string, template: ProviderConfigV1alpha1Spec["template"]): Promise<void> {
    const spec: ProviderConfigV1alpha1Spec = { providerRef: { name: PROVIDER_NAME }, kubernetesVersions: VERSIONS, template };
    await kube.create(collectionPath(PROVIDER_CONFIG), { apiVersion: PROVIDER_CONFIG.apiVersion, kind: PROVIDER_CONFIG.kind, metadata: { name }, spec });
  }

  async function createCluster(name: string, profile: string, extra: { version?: string; finalizers?: string[] } = {}): Promise<void> {
    await kube.create(collectionPath(OPENMCP_CLUSTER, namespace), {
      apiVersion: OPENMCP_CLUSTER.apiVersion,
      kind: OPENMCP_CLUSTER.kind,
      metadata: { name, namespace, ...(extra.finalizers === undefined ? {} : { finalizers: extra.finalizers }) },
      spec: { profile, tenancy: "Exclusive", purposes: ["test"], ...(extra.version === undefined ? {} : { kubernetes: { version: extra.version } }) },
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

  it("makes a Cluster API Cluster from the ClusterClass template and is Ready with its endpoint once Cluster API reports it available", async () => {
    const name = `class-${run}`;
    await createCluster(name, profileOf(classConfig));

    const progressing = await until<OpenMcpCluster>(clusterPath(name), "the Cluster Progressing", (c) => c.status?.phase === "Progressing" && conditionOf(c, "ClusterConfigured")?.status === "True");
    expect(progressing.metadata.finalizers).toContain(FINALIZERS.cluster);
    expect(conditionOf(progressing, "ClusterReady")?.status).toBe("False");
    expect(progressing.metadata.labels).toMatchObject({ "clusters.openmcp.cloud/provider": PROVIDER_NAME, "clusters.openmcp.cloud/k8sversion": "1.34.1" });

    const capi = await kube.get<CapiCluster>(capiPath(name));
    expect(capi.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "cluster-provider-capi",
      "capi.clusters.edgeconnect.eu/cluster-name": name,
      "capi.clusters.edgeconnect.eu/cluster-namespace": namespace,
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

    // Playing Cluster API: the control plane's endpoint, then the Cluster available at its new generation.
    await patch(capiPath(name), { spec: { controlPlaneEndpoint: { host: "192.0.2.10", port: 6443 } } });
    const generation = (await kube.get<CapiCluster>(capiPath(name))).metadata.generation;
    await patch(`${capiPath(name)}/status`, {
      status: {
        observedGeneration: generation,
        conditions: [{ type: "Available", status: "True", reason: "Available", message: "", observedGeneration: generation, lastTransitionTime: new Date().toISOString() }],
      },
    });

    const ready = await until<OpenMcpCluster>(clusterPath(name), "the Cluster Ready", (c) => c.status?.phase === "Ready");
    expect(conditionOf(ready, "ClusterReady")?.status).toBe("True");
    expect(ready.status?.endpoints).toEqual([{ name: "apiserver-external", url: "https://192.0.2.10:6443" }]);
    expect(ready.status?.observedGeneration).toBe(ready.metadata.generation);
  });

  it("creates an objects template's resources with the Cluster's name, refers the Cluster API Cluster to them, and removes them after it", async () => {
    const name = `objects-${run}`;
    await createCluster(name, profileOf(objectsConfig));
    await configured(name, "Applied");

    const infra = await kube.get<KubeObject & { spec?: Record<string, unknown> }>(infraPath(name));
    expect(infra.spec).toEqual({ clusterName: name, zone: "eu-de-01" });
    expect(infra.metadata?.labels).toMatchObject({ "app.kubernetes.io/managed-by": "cluster-provider-capi", "capi.clusters.edgeconnect.eu/cluster-name": name });
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
      { name: badVersion, reason: "UnsupportedVersion", mentions: ["1.30.0", "choose one of 1.33.5, 1.35.0, 1.34.1"] },
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
    expect(held.metadata.finalizers).toEqual(expect.arrayContaining([FINALIZERS.cluster, FOREIGN_FINALIZER]));
    expect((await kube.get<CapiCluster>(capiPath(name))).metadata.deletionTimestamp).toBeUndefined();

    await removeFinalizer(clusterPath(name), FOREIGN_FINALIZER);
    await until<CapiCluster>(capiPath(name), "the Cluster API Cluster being deleted", (c) => c.metadata.deletionTimestamp !== undefined);
    await until<OpenMcpCluster>(clusterPath(name), "the Cluster waiting for Cluster API", (c) => conditionOf(c, "ClusterReady")?.reason === "Deleting");

    await removeFinalizer(capiPath(name), CAPI_FINALIZER);
    await gone(capiPath(name), "the Cluster API Cluster deleted");
    await gone(clusterPath(name), "the Cluster deleted");
  });
});
