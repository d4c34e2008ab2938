/**
 * The config controller on a platform cluster of its own (a real
 * kube-apiserver with openMCP's, Cluster API's, the operator's and our CRDs)
 * with the provider's `run` in this process: a ProviderConfig becomes a
 * ClusterProfile and Cluster API Operator objects, with status from the
 * operator's conditions; an invalid config changes nothing; another
 * provider's config is left alone; a shared provider carries every declaring
 * config's label and refuses disagreement; deletion waits for the profile's
 * Clusters; the operation annotation is honoured.
 *
 * No operator runs here: where a test needs an operator object's status, it
 * writes it through the /status subresource, playing the operator.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import {
  BOOTSTRAP_PROVIDER,
  CLUSTER_PROFILE,
  collectionPath,
  CONTROL_PLANE_PROVIDER,
  INFRASTRUCTURE_PROVIDER,
  objectPath,
  OPENMCP_CLUSTER,
  PROVIDER_CONFIG,
  type ApiResource,
  type ProviderConfigV1alpha1Spec,
} from "@edgeconnect/capi-provider-api";
import { deleteIfPresent, getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, holds, waitForObject, waitUntilGone } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { OPERATION_ANNOTATION } from "../openmcp/constants.js";
import { providerKeys } from "../provider/provider-identity.js";
import { ENVIRONMENT, PROVIDER_NAME, runProvider, startPlatform, type Platform, type RunningProvider } from "../testing/platform.fixture.js";
import type { OperatorProvider } from "./operator-providers.js";
import type { ClusterProfile, OpenMcpCluster, ProviderConfig } from "./provider-config-reconciler.js";

/** The keys the provider under test (PROVIDER_NAME) marks its own objects with. */
const KEYS = providerKeys({ providerName: PROVIDER_NAME });

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

interface CoreEvent extends KubeObject {
  reason: string;
  type: string;
  message: string;
}

interface Conditioned {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason: string; readonly message: string }[] } | undefined;
}

function conditionOf(obj: Conditioned, type: string): { status: string; reason: string; message: string } | undefined {
  return obj.status?.conditions?.find((c) => c.type === type);
}

const MERGE_PATCH = "application/merge-patch+json";
const MANAGED_BY = { "app.kubernetes.io/managed-by": "cluster-provider-capi" };
const declaredBy = (config: string): string => `config.capi.clusters.openmcp.cloud/${config}`;

const CLASS_TEMPLATE: ProviderConfigV1alpha1Spec["template"] = {
  clusterClass: { name: "in-memory", controlPlane: { replicas: 1 }, workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 1 }] } },
};

/** A spec of ours with the given providers and one Kubernetes version. */
function spec(providers: ProviderConfigV1alpha1Spec["providers"] = {}): ProviderConfigV1alpha1Spec {
  return { providerRef: { name: PROVIDER_NAME }, providers, kubernetesVersions: [{ version: "1.34.1" }], template: CLASS_TEMPLATE };
}

describeInfra("config controller on a platform cluster of its own", () => {
  const run = randomBytes(3).toString("hex");
  const namespace = `cfg-${run}`;
  let platform: Platform;
  let provider: RunningProvider;
  let kube: RestClient;
  /** What a test made that would hold up the deletion of its configs, removed after each test. */
  const configs: string[] = [];
  const clusters: string[] = [];

  beforeAll(async () => {
    platform = await startPlatform();
    kube = platform.client;
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    provider = runProvider(platform);
  }, 300_000);

  afterAll(async () => {
    await provider?.stop();
    await platform?.stop();
  }, 60_000);

  // Tests share provider names (docker) on one platform: a config left behind would change another test's objects.
  afterEach(async () => {
    for (const name of clusters.splice(0)) {
      const path = clusterPath(name);
      await deleteIfPresent(kube, path);
      await stripFinalizers(path);
    }
    const names = configs.splice(0);
    for (const name of names) {
      // An ignored config is never finalized.
      await kube.request("PATCH", configPath(name), { body: { metadata: { annotations: { [OPERATION_ANNOTATION]: null } } }, contentType: MERGE_PATCH }).catch(() => undefined);
      await deleteIfPresent(kube, configPath(name));
    }
    for (const name of names) await gone(configPath(name), `ProviderConfig ${name} deleted`);
  }, 120_000);

  const configPath = (name: string): string => objectPath(PROVIDER_CONFIG, undefined, name);
  const profileName = (config: string): string => `${ENVIRONMENT}.${PROVIDER_NAME}.${config}`;
  const profilePath = (config: string): string => objectPath(CLUSTER_PROFILE, undefined, profileName(config));
  const clusterPath = (name: string): string => objectPath(OPENMCP_CLUSTER, namespace, name);

  async function createConfig(name: string, configSpec: ProviderConfigV1alpha1Spec): Promise<void> {
    configs.push(name);
    await kube.create(collectionPath(PROVIDER_CONFIG), { apiVersion: PROVIDER_CONFIG.apiVersion, kind: PROVIDER_CONFIG.kind, metadata: { name }, spec: configSpec });
  }

  async function patch(path: string, body: object): Promise<void> {
    await kube.request("PATCH", path, { body, contentType: MERGE_PATCH });
  }

  const until = <T extends KubeObject>(path: string, description: string, check: (obj: T) => boolean): Promise<T> => waitForObject(kube, path, description, check);
  const gone = (path: string, description: string): Promise<void> => waitUntilGone(kube, path, { description });


  async function stripFinalizers(path: string): Promise<void> {
    await kube.request("PATCH", path, { body: { metadata: { finalizers: null } }, contentType: MERGE_PATCH }).catch(() => undefined);
  }

  /** Plays the Cluster API Operator: the provider is installed at `version` and ready. */
  async function reportInstalled(resource: ApiResource, providerNamespace: string, name: string, version: string): Promise<void> {
    const lastTransitionTime = new Date().toISOString();
    const status = {
      installedVersion: version,
      conditions: [
        { type: "ProviderInstalled", status: "True", reason: "Installed", message: "", lastTransitionTime },
        { type: "Ready", status: "True", reason: "Ready", message: "", lastTransitionTime },
      ],
    };
    await patch(`${objectPath(resource, providerNamespace, name)}/status`, { status });
  }

  /**
   * Configs of other names are reconciled in turn, so once one created after
   * `name` is Ready, the controller has seen `name`; the pause covers a
   * reconcile of `name` still running beside it.
   */
  async function settledAfter(name: string): Promise<void> {
    const sentinel = `${name}-sentinel`;
    await createConfig(sentinel, spec());
    await until<ProviderConfig>(configPath(sentinel), `sentinel config ${sentinel} Ready`, (c) => c.status?.phase === "Ready");
    await sleep(2_000);
  }

  it("publishes a valid config as a ClusterProfile and operator objects, Ready once the operator reports every provider ready", async () => {
    const name = `valid-${run}`;
    const selector = { matchLabels: { "provider.cluster.x-k8s.io/name": "docker" } };
    await createConfig(name, {
      providerRef: { name: PROVIDER_NAME },
      providers: {
        infrastructure: [{ name: "docker", version: "v1.14.2", fetchConfig: { selector } }],
        bootstrap: [{ name: "kubeadm", version: "v1.11.1" }],
        controlPlane: [{ name: "kubeadm", version: "v1.11.1" }],
      },
      kubernetesVersions: [{ version: "1.34.1" }, { version: "1.33.5", deprecated: true }],
      template: CLASS_TEMPLATE,
    });

    const installing = await until<ProviderConfig>(configPath(name), "the config waiting for the operator", (c) => conditionOf(c, "ProvidersReady")?.reason === "Installing");
    expect(installing.metadata.finalizers).toContain(KEYS.finalizers.providerConfig);
    expect(installing.status?.phase).toBe("Progressing");
    expect(installing.status?.profile).toBe(profileName(name));
    expect(conditionOf(installing, "TemplateValid")?.status).toBe("True");
    expect(conditionOf(installing, "ProvidersReady")?.status).toBe("False");
    expect(conditionOf(installing, "ClusterProfileReady")?.status).toBe("True");

    const profile = await kube.get<ClusterProfile>(profilePath(name));
    expect(profile.spec).toEqual({
      providerRef: { name: PROVIDER_NAME },
      providerConfigRef: { name },
      supportedVersions: [{ version: "1.34.1" }, { version: "1.33.5", deprecated: true }],
    });

    const infrastructure = { resource: INFRASTRUCTURE_PROVIDER, namespace: "docker-infrastructure-system", name: "docker", spec: { version: "v1.14.2", fetchConfig: { selector } } };
    const bootstrap = { resource: BOOTSTRAP_PROVIDER, namespace: "kubeadm-bootstrap-system", name: "kubeadm", spec: { version: "v1.11.1" } };
    const controlPlane = { resource: CONTROL_PLANE_PROVIDER, namespace: "kubeadm-control-plane-system", name: "kubeadm", spec: { version: "v1.11.1" } };
    for (const p of [infrastructure, bootstrap, controlPlane]) {
      await expect(kube.get(`/api/v1/namespaces/${p.namespace}`)).resolves.toBeDefined();
      const object = await kube.get<OperatorProvider>(objectPath(p.resource, p.namespace, p.name));
      expect(object.spec).toEqual(p.spec);
      expect(object.metadata.labels).toEqual({ ...MANAGED_BY, [declaredBy(name)]: "" });
    }

    await reportInstalled(infrastructure.resource, infrastructure.namespace, infrastructure.name, "v1.14.2");
    await reportInstalled(bootstrap.resource, bootstrap.namespace, bootstrap.name, "v1.11.1");
    const oneLeft = await until<ProviderConfig>(configPath(name), "two of three providers ready", (c) => (c.status?.providers ?? []).filter((p) => p.ready === true).length === 2);
    expect(conditionOf(oneLeft, "ProvidersReady")).toMatchObject({ status: "False", reason: "Installing" });
    expect(conditionOf(oneLeft, "ProvidersReady")?.message).toMatch(/^ControlPlaneProvider kubeadm: /);
    expect(oneLeft.status?.phase).toBe("Progressing");

    await reportInstalled(controlPlane.resource, controlPlane.namespace, controlPlane.name, "v1.11.1");
    const ready = await until<ProviderConfig>(configPath(name), "the config Ready", (c) => c.status?.phase === "Ready");
    expect(conditionOf(ready, "ProvidersReady")).toMatchObject({ status: "True", reason: "Ready" });
    expect(ready.status?.providers).toEqual([
      { type: "InfrastructureProvider", name: "docker", namespace: "docker-infrastructure-system", installedVersion: "v1.14.2", ready: true },
      { type: "BootstrapProvider", name: "kubeadm", namespace: "kubeadm-bootstrap-system", installedVersion: "v1.11.1", ready: true },
      { type: "ControlPlaneProvider", name: "kubeadm", namespace: "kubeadm-control-plane-system", installedVersion: "v1.11.1", ready: true },
    ]);
    expect(ready.status?.observedGeneration).toBe(ready.metadata.generation);
  });

  it("refuses an invalid template with a condition and an Event, creates nothing, and publishes the profile once it is fixed", async () => {
    const name = `invalid-${run}`;
    const infra = `bad-${run}`;
    const infraPath = objectPath(INFRASTRUCTURE_PROVIDER, `${infra}-infrastructure-system`, infra);
    const resource = { apiVersion: "infrastructure.test.edgeconnect.eu/v1alpha1", kind: "TestInfraCluster", metadata: { name: "${CLUSTER_NAME}" } };
    await createConfig(name, {
      ...spec({ infrastructure: [{ name: infra, version: "v1.0.0" }] }),
      template: {
        objects: {
          infrastructureRef: { apiGroup: "infrastructure.test.edgeconnect.eu", kind: "TestInfraCluster", name: "missing" },
          resources: [{ ...resource, spec: { zone: "${UNKNOWN}" } }],
        },
      },
    });

    const invalid = await until<ProviderConfig>(configPath(name), "TemplateValid False", (c) => conditionOf(c, "TemplateValid")?.status === "False");
    const templateValid = conditionOf(invalid, "TemplateValid");
    expect(templateValid?.reason).toBe("InvalidConfiguration");
    expect(templateValid?.message).toContain('objects.infrastructureRef names TestInfraCluster "missing", which is not in objects.resources');
    expect(templateValid?.message).toContain("objects.resources[0].spec.zone uses the unknown variable ${UNKNOWN}");
    expect(invalid.status?.phase).toBe("Progressing");
    expect(await getIfPresent(kube, profilePath(name))).toBeUndefined();
    expect(await getIfPresent(kube, infraPath)).toBeUndefined();

    const event = await eventually(
      async () => {
        const list = await kube.list<CoreEvent>("/api/v1/namespaces/default/events", { query: { fieldSelector: `involvedObject.name=${name}` } });
        const found = list.items.find((e) => e.reason === "InvalidConfiguration");
        return holds(found !== undefined, `events: ${JSON.stringify(list.items.map((e) => e.reason))}`, found);
      },
      { timeoutMs: 30_000, description: "an InvalidConfiguration Event on the config" },
    );
    expect(event?.type).toBe("Warning");
    expect(event?.message).toContain("${UNKNOWN}");

    await patch(configPath(name), {
      spec: { template: { objects: { infrastructureRef: { name: "${CLUSTER_NAME}" }, resources: [{ ...resource, spec: { zone: "eu-de-01" } }] } } },
    });
    const fixed = await until<ProviderConfig>(configPath(name), "TemplateValid True after the fix", (c) => conditionOf(c, "TemplateValid")?.status === "True");
    expect(fixed.status?.observedGeneration).toBe(fixed.metadata.generation);
    expect(conditionOf(fixed, "ClusterProfileReady")?.status).toBe("True");
    const profile = await kube.get<ClusterProfile>(profilePath(name));
    expect(profile.spec?.providerConfigRef.name).toBe(name);
    await expect(kube.get(infraPath)).resolves.toBeDefined();
  });

  it("hands deployment, patches and additionalManifests to the operator, and is not Ready while the declared version is not the installed one", async () => {
    const name = `upgrade-${run}`;
    const infra = `upg-${run}`;
    const infraNamespace = `${infra}-infrastructure-system`;
    const infraPath = objectPath(INFRASTRUCTURE_PROVIDER, infraNamespace, infra);
    const deployment = { containers: [{ name: "manager", imageUrl: "registry.internal/capd/manager:v1.15.0" }], imagePullSecrets: [{ name: "registry-internal" }] };
    const patches = [{ patch: "metadata:\n  labels:\n    team: platform\n", target: { kind: "Deployment" } }];
    const additionalManifests = { name: "extras" };
    await createConfig(name, spec({ infrastructure: [{ name: infra, version: "v1.15.0", deployment, patches, additionalManifests }] }));

    const object = await until<OperatorProvider>(infraPath, "the operator object", () => true);
    expect(object.spec).toEqual({ version: "v1.15.0", deployment, patches, additionalManifests });

    // Playing the operator: the old release still runs Ready, the upgrade to the declared one failed.
    const lastTransitionTime = new Date().toISOString();
    await patch(`${infraPath}/status`, {
      status: {
        installedVersion: "v1.14.2",
        conditions: [
          { type: "ProviderInstalled", status: "True", reason: "Installed", message: "", lastTransitionTime },
          { type: "ProviderUpgraded", status: "False", reason: "ComponentsUpgradeError", message: "config map not found", lastTransitionTime },
          { type: "Ready", status: "True", reason: "DeploymentAvailable", message: "", lastTransitionTime },
        ],
      },
    });
    const upgrading = await until<ProviderConfig>(configPath(name), "the failed upgrade reported", (c) => (c.status?.providers ?? []).some((p) => p.installedVersion === "v1.14.2"));
    expect(upgrading.status?.providers).toEqual([{ type: "InfrastructureProvider", name: infra, namespace: infraNamespace, installedVersion: "v1.14.2", ready: false }]);
    expect(conditionOf(upgrading, "ProvidersReady")).toMatchObject({
      status: "False",
      reason: "Installing",
      message: `InfrastructureProvider ${infra}: installed version v1.14.2, declared v1.15.0; ProviderUpgraded=False (ComponentsUpgradeError: config map not found)`,
    });
    expect(upgrading.status?.phase).toBe("Progressing");

    await reportInstalled(INFRASTRUCTURE_PROVIDER, infraNamespace, infra, "v1.15.0");
    await until<ProviderConfig>(configPath(name), "the config Ready once the declared version is installed", (c) => c.status?.phase === "Ready");
  });

  it("refuses a config whose profile name would not fit openMCP's profile label, saying how long the name may be, and publishes nothing", async () => {
    // "test.capi." leaves 53 characters; the CRD allows config names of 63.
    const name = `long-${run}-`.padEnd(60, "x");
    const infra = `long-${run}`;
    await createConfig(name, spec({ infrastructure: [{ name: infra, version: "v1.0.0" }] }));

    const refused = await until<ProviderConfig>(configPath(name), "ClusterProfileReady False", (c) => conditionOf(c, "ClusterProfileReady")?.status === "False");
    expect(conditionOf(refused, "ClusterProfileReady")).toMatchObject({
      reason: "InvalidProfileName",
      message: `the ClusterProfile name "${profileName(name)}" has 70 characters, but openMCP writes it into the label clusters.openmcp.cloud/profile of AccessRequests, whose values hold at most 63: rename the ProviderConfig to at most 53 characters`,
    });
    expect(conditionOf(refused, "TemplateValid")?.status).toBe("False");
    expect(refused.status?.phase).toBe("Progressing");
    expect(refused.status?.profile).toBeUndefined();
    expect(await getIfPresent(kube, profilePath(name))).toBeUndefined();
    expect(await getIfPresent(kube, objectPath(INFRASTRUCTURE_PROVIDER, `${infra}-infrastructure-system`, infra))).toBeUndefined();
  });

  it("leaves a config of another provider alone", async () => {
    const name = `other-${run}`;
    const infra = `other-${run}`;
    await createConfig(name, { ...spec({ infrastructure: [{ name: infra, version: "v1.0.0" }] }), providerRef: { name: "other" } });
    await settledAfter(name);

    const other = await kube.get<ProviderConfig>(configPath(name));
    expect(other.metadata.finalizers ?? []).toEqual([]);
    expect(other.status).toBeUndefined();
    expect(await getIfPresent(kube, profilePath(name))).toBeUndefined();
    expect(await getIfPresent(kube, objectPath(CLUSTER_PROFILE, undefined, `${ENVIRONMENT}.other.${name}`))).toBeUndefined();
    expect(await getIfPresent(kube, objectPath(INFRASTRUCTURE_PROVIDER, `${infra}-infrastructure-system`, infra))).toBeUndefined();
  });

  it("shares a provider declared identically, reports a disagreement to the later-named config, and deletes it when the last config drops it", async () => {
    const first = `share-a-${run}`;
    const second = `share-b-${run}`;
    const dockerPath = objectPath(INFRASTRUCTURE_PROVIDER, "docker-infrastructure-system", "docker");
    const docker = (version: string): ProviderConfigV1alpha1Spec["providers"] => ({ infrastructure: [{ name: "docker", version }] });
    const setDocker = (config: string, version: string): Promise<void> => patch(configPath(config), { spec: { providers: docker(version) } });
    const providersReady = (config: string, description: string, check: (c: { status: string; reason: string; message: string }) => boolean): Promise<ProviderConfig> =>
      until<ProviderConfig>(configPath(config), description, (c) => {
        const condition = conditionOf(c, "ProvidersReady");
        return c.status?.observedGeneration === c.metadata.generation && condition !== undefined && check(condition);
      });
    const labelled = (labels: Record<string, string> | undefined): string[] => Object.keys(labels ?? {}).filter((key) => key.startsWith("config.")).sort();

    await createConfig(first, spec(docker("v1.14.2")));
    await createConfig(second, spec(docker("v1.14.2")));
    const shared = await until<OperatorProvider>(dockerPath, "docker declared by both configs", (p) => labelled(p.metadata.labels).length === 2);
    expect(labelled(shared.metadata.labels)).toEqual([declaredBy(first), declaredBy(second)]);
    expect(shared.spec).toEqual({ version: "v1.14.2" });
    for (const config of [first, second]) await providersReady(config, `${config} installing docker`, (c) => c.reason === "Installing");

    await setDocker(second, "v1.15.0");
    const loser = await providersReady(second, `${second} in conflict`, (c) => c.reason === "ProviderConflict");
    expect(conditionOf(loser, "ProvidersReady")?.status).toBe("False");
    expect(conditionOf(loser, "ProvidersReady")?.message).toContain(`InfrastructureProvider docker is declared differently by ProviderConfig ${first}`);
    const kept = await until<OperatorProvider>(dockerPath, `docker no longer claimed by ${second}`, (p) => labelled(p.metadata.labels).length === 1);
    expect(labelled(kept.metadata.labels)).toEqual([declaredBy(first)]);
    expect(kept.spec).toEqual({ version: "v1.14.2" });
    await providersReady(first, `${first} unaffected`, (c) => c.reason === "Installing");

    // The first-named config wins when it is the one that changes.
    await setDocker(first, "v1.15.0");
    await providersReady(second, `${second} agreeing again`, (c) => c.reason === "Installing");
    await setDocker(first, "v1.16.0");
    const overruled = await providersReady(second, `${second} overruled by ${first}`, (c) => c.reason === "ProviderConflict");
    expect(conditionOf(overruled, "ProvidersReady")?.message).toContain(`ProviderConfig ${first}`);
    await until<OperatorProvider>(dockerPath, `docker at ${first}'s version`, (p) => p.spec?.version === "v1.16.0" && labelled(p.metadata.labels).length === 1);

    await setDocker(first, "v1.15.0");
    await until<OperatorProvider>(dockerPath, "docker shared again", (p) => labelled(p.metadata.labels).length === 2 && p.spec?.version === "v1.15.0");

    await patch(configPath(first), { spec: { providers: { infrastructure: null } } });
    await providersReady(first, `${first} declaring nothing`, (c) => c.status === "True");
    const remaining = await until<OperatorProvider>(dockerPath, `docker released by ${first}`, (p) => labelled(p.metadata.labels).length === 1);
    expect(labelled(remaining.metadata.labels)).toEqual([declaredBy(second)]);
    expect(remaining.spec).toEqual({ version: "v1.15.0" });

    await patch(configPath(second), { spec: { providers: { infrastructure: null } } });
    await gone(dockerPath, "docker deleted once no config declares it");
  });

  it("waits for the profile's Clusters before deleting, then removes the profile and the providers only it declared", async () => {
    const name = `del-${run}`;
    const keeper = `keep-${run}`;
    const own = `del-${run}`;
    const sharedName = `shared-${run}`;
    const ownPath = objectPath(INFRASTRUCTURE_PROVIDER, `${own}-infrastructure-system`, own);
    const sharedPath = objectPath(BOOTSTRAP_PROVIDER, `${sharedName}-bootstrap-system`, sharedName);
    const bootstrap = [{ name: sharedName, version: "v1.0.0" }];
    await createConfig(name, spec({ infrastructure: [{ name: own, version: "v1.0.0" }], bootstrap }));
    await createConfig(keeper, spec({ bootstrap }));
    await until<OperatorProvider>(sharedPath, "the bootstrap provider declared by both", (p) => declaredBy(name) in (p.metadata.labels ?? {}) && declaredBy(keeper) in (p.metadata.labels ?? {}));
    await until<ClusterProfile>(profilePath(name), "the profile", () => true);

    const user = `user-${run}`;
    clusters.push(user);
    await kube.create(collectionPath(OPENMCP_CLUSTER, namespace), {
      apiVersion: OPENMCP_CLUSTER.apiVersion,
      kind: OPENMCP_CLUSTER.kind,
      metadata: { name: user, namespace },
      spec: { profile: profileName(name), tenancy: "Exclusive", purposes: ["test"] },
    });
    // Its status shows the provider's watch has seen it.
    await until<OpenMcpCluster>(clusterPath(user), "the Cluster seen by the provider", (c) => c.status?.phase !== undefined);

    await kube.delete(configPath(name));
    const waiting = await until<ProviderConfig>(configPath(name), "the config waiting for its Cluster", (c) => conditionOf(c, "ClusterProfileReady")?.reason === "WaitingForClusters");
    expect(waiting.status?.phase).toBe("Terminating");
    expect(conditionOf(waiting, "ClusterProfileReady")?.status).toBe("False");
    expect(conditionOf(waiting, "ClusterProfileReady")?.message).toContain(`${namespace}/${user}`);
    await sleep(2_000);
    await expect(kube.get(profilePath(name))).resolves.toBeDefined();
    await expect(kube.get(ownPath)).resolves.toBeDefined();
    await expect(kube.get(configPath(name))).resolves.toBeDefined();

    // How a Cluster goes is the cluster controller's subject; here only that it is gone matters.
    await kube.delete(clusterPath(user));
    await stripFinalizers(clusterPath(user));
    await gone(clusterPath(user), "the Cluster deleted");

    await gone(configPath(name), "the config deleted");
    expect(await getIfPresent(kube, profilePath(name))).toBeUndefined();
    expect(await getIfPresent(kube, ownPath)).toBeUndefined();
    const shared = await kube.get<OperatorProvider>(sharedPath);
    expect(Object.keys(shared.metadata.labels ?? {}).filter((key) => key.startsWith("config.")).sort()).toEqual([declaredBy(keeper)]);
    await expect(kube.get(profilePath(keeper))).resolves.toBeDefined();
  });

  it("skips an ignored config and reconciles one asked to, removing the request", async () => {
    const name = `op-${run}`;
    await createConfig(name, spec());
    await until<ProviderConfig>(configPath(name), "the config Ready", (c) => c.status?.phase === "Ready" && c.status.observedGeneration === 1);

    await patch(configPath(name), { metadata: { annotations: { [OPERATION_ANNOTATION]: "ignore" } } });
    await patch(configPath(name), { spec: { kubernetesVersions: [{ version: "1.34.1" }, { version: "1.33.5" }] } });
    await settledAfter(name);
    const ignored = await kube.get<ProviderConfig>(configPath(name));
    expect(ignored.metadata.generation).toBe(2);
    expect(ignored.status?.observedGeneration).toBe(1);
    expect((await kube.get<ClusterProfile>(profilePath(name))).spec?.supportedVersions).toEqual([{ version: "1.34.1" }]);

    await patch(configPath(name), { metadata: { annotations: { [OPERATION_ANNOTATION]: "reconcile" } } });
    const reconciled = await until<ProviderConfig>(
      configPath(name),
      "the config reconciled and the annotation removed",
      (c) => c.status?.observedGeneration === 2 && c.metadata.annotations?.[OPERATION_ANNOTATION] === undefined,
    );
    expect(reconciled.status?.phase).toBe("Ready");
    expect((await kube.get<ClusterProfile>(profilePath(name))).spec?.supportedVersions).toEqual([{ version: "1.34.1" }, { version: "1.33.5" }]);
  });
});
