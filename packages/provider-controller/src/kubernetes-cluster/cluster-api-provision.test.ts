import { describe, expect, it } from "@jest/globals";
import type { KubernetesCluster } from "@edgeconnect/api";
import { CLUSTER_API_STEPS, clusterObjectNames, KUBERNETES_VERSION_ANNOTATION, LOGICAL_CLUSTER_ANNOTATION, tenantNamespace } from "@edgeconnect/provisioning";
import type { TemplateSet, TemplateSets } from "../infrastructure/template-sets.js";
import { planClusterApi, provisionClusterApi } from "./cluster-api-provision.js";
import type { Pass, ProvisionContext } from "./provision.js";
import { StatusReport } from "./status-report.js";
import { cluster, REQUEST, statusHarness } from "./status-report.fixture.js";

const spec = (overrides: Partial<NonNullable<KubernetesCluster["spec"]>> = {}): NonNullable<KubernetesCluster["spec"]> => ({
  machineCapabilitiesRef: { name: "ignored" },
  nodeCount: 4,
  nodeDiskSize: "100Gi",
  providerRef: { type: "ClusterAPI", templateSet: "in-memory" },
  kubernetes: { version: "v1.37" },
  ...overrides,
});

const inMemory = {
  apiVersion: "capi.clusters.openmcp.cloud/v1alpha1",
  kind: "ProviderConfig",
  metadata: { name: "in-memory" },
  spec: {
    providerRef: { name: "capi" },
    kubernetesVersions: [{ version: "1.36.4" }, { version: "1.37.0" }, { version: "1.37.1", deprecated: true }],
    template: { clusterClass: { name: "in-memory", namespace: "capi-templates", workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 1 }] } } },
  },
} satisfies TemplateSet;

function templateSets(...sets: TemplateSet[]): TemplateSets {
  return { get: (name) => sets.find((set) => set.metadata.name === name), names: () => sets.map((set) => set.metadata.name ?? "").sort() };
}

const names = clusterObjectNames(REQUEST.namespace, REQUEST.name, REQUEST.cluster);
const plan = (kc: KubernetesCluster, sets: TemplateSets, current?: string) => planClusterApi({ templateSets: sets }, REQUEST, kc, names, current);

describe("planClusterApi", () => {
  it("renders the template set into the tenant namespace under the cluster's derived name, with its node count and the newest version asked for", () => {
    const result = plan(cluster(undefined, spec()), templateSets(inMemory));
    if (!result.ok) throw new Error(result.message);
    expect(result.version).toBe("v1.37.0");
    const { metadata, spec: clusterSpec } = result.objects.cluster;
    expect(metadata).toMatchObject({ name: names.clusterApiCluster, namespace: tenantNamespace(REQUEST.cluster).name });
    expect(metadata.annotations).toMatchObject({ [LOGICAL_CLUSTER_ANNOTATION]: REQUEST.cluster, [KUBERNETES_VERSION_ANNOTATION]: "v1.37.0" });
    expect(clusterSpec.topology?.workers?.machineDeployments).toEqual([{ class: "default-worker", name: "md-0", replicas: 4 }]);
  });

  it("keeps the version the cluster runs", () => {
    const result = plan(cluster(undefined, spec()), templateSets(inMemory), "v1.37.1");
    expect(result.ok && result.version).toBe("v1.37.1");
  });

  it.each<[string, KubernetesCluster, TemplateSets, string, RegExp]>([
    ["a template set that does not exist", cluster(undefined, spec({ providerRef: { type: "ClusterAPI", templateSet: "in-memroy" } })), templateSets(inMemory, { ...inMemory, metadata: { name: "aws" } }), "TemplateSetNotFound", /template set "in-memroy" does not exist; set providerRef.templateSet to one of "aws", "in-memory"$/],
    ["a platform without template sets", cluster(undefined, spec()), templateSets(), "TemplateSetNotFound", /this platform offers none yet/],
    ["a version the set does not offer", cluster(undefined, spec({ kubernetes: { version: "v1.31" } })), templateSets(inMemory), "UnsupportedVersion", /one of v1\.37\.1 \(deprecated\), v1\.37\.0, v1\.36\.4$/],
    ["a template that does not render", cluster(undefined, spec()), templateSets({ ...inMemory, spec: { ...inMemory.spec, template: {} } }), "InvalidTemplate", /template set "in-memory" cannot be used: the template needs either clusterClass or objects; ask the platform team/],
  ])("refuses %s, saying what to change", (_case, kc, sets, reason, message) => {
    const result = plan(kc, sets);
    expect(result).toMatchObject({ ok: false, reason });
    expect(!result.ok && result.message).toMatch(message);
  });

  it("reports an offered version that is no full version as the template set's fault, not as an error", () => {
    const minorOnly = { ...inMemory, spec: { ...inMemory.spec, kubernetesVersions: [{ version: "1.37" }] } };
    const result = plan(cluster(undefined, spec()), templateSets(minorOnly));
    expect(result).toMatchObject({ ok: false, reason: "InvalidTemplate" });
    expect(!result.ok && result.message).toMatch(/^template set "in-memory" cannot be used: Kubernetes version "1\.37" is not a full version .*; ask the platform team to fix it$/);
  });

  it("refuses a new version that does not name the running one", () => {
    expect(plan(cluster(undefined, spec({ kubernetes: { version: "v1.36" } })), templateSets(inMemory), "v1.37.0")).toMatchObject({ ok: false, reason: "UnsupportedChange" });
  });
});

describe("provisionClusterApi", () => {
  it("without --cluster-api, says the platform does not offer Cluster API and touches nothing", async () => {
    const kc = cluster(undefined, spec());
    const harness = statusHarness(kc);
    const untouchable = new Proxy({}, { get: (_target, property) => { throw new Error(`${String(property)} was used`); } });
    const context = { infra: untouchable } as unknown as ProvisionContext;
    const pass = { request: REQUEST, scope: harness.scope, signal: new AbortController().signal, writes: untouchable } as unknown as Pass;
    const report = new StatusReport(kc, harness.recorder, CLUSTER_API_STEPS);
    await provisionClusterApi(context, pass, kc, report);
    await report.flush(pass);
    expect(harness.written()?.conditions?.find((c) => c.type === "TemplateSetValid")).toMatchObject({ status: "False", reason: "ClusterAPINotOffered" });
    expect(harness.written()?.conditions?.find((c) => c.type === "TemplateSetValid")?.message).toMatch(/does not offer Cluster API/);
    expect(harness.written()?.phase).toBe("Failed");
  });
});
