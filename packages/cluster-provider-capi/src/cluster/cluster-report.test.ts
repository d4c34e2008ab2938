import { describe, expect, it } from "@jest/globals";
import { K8S_VERSION_LABEL } from "../openmcp/constants.js";
import type { CapiCluster } from "./cluster-reconciler.js";
import { clusterConfigsCondition, endpointsOf, providerInfoOf, providerStatusOf, runningVersion } from "./cluster-report.js";

const metadata = { name: "c1", namespace: "ns" };
const fromClass: CapiCluster = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", metadata, spec: { topology: { classRef: { name: "in-memory" }, version: "v1.34.1" } }, status: { phase: "Provisioned" } };
const fromObjects: CapiCluster = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", metadata, spec: { infrastructureRef: { apiGroup: "infrastructure.example", kind: "ExampleCluster", name: "c1" } } };

describe("providerStatusOf", () => {
  it("names the Cluster API Cluster, its ClusterClass and Cluster API's phase", () => {
    expect(providerStatusOf(fromClass)).toEqual({
      apiVersion: "capi.clusters.openmcp.cloud/v1alpha1",
      kind: "ClusterStatus",
      clusterApiCluster: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", namespace: "ns", name: "c1" },
      clusterClass: "in-memory",
      phase: "Provisioned",
    });
  });

  it("names the infrastructure kind of a Cluster made from template objects", () => {
    expect(providerStatusOf(fromObjects)).toEqual({
      apiVersion: "capi.clusters.openmcp.cloud/v1alpha1",
      kind: "ClusterStatus",
      clusterApiCluster: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", namespace: "ns", name: "c1" },
      infrastructureKind: "ExampleCluster",
    });
  });
});

describe("providerInfoOf", () => {
  it.each<[string, CapiCluster, string]>([
    ["a ClusterClass", fromClass, "ClusterClass in-memory"],
    ["template objects", fromObjects, "Cluster API on ExampleCluster"],
    ["neither yet", { ...fromObjects, spec: {} }, "Cluster API"],
  ])("says what the Cluster is made of, for %s", (_case, capi, info) => {
    expect(providerInfoOf(capi)).toBe(info);
  });
});

describe("endpointsOf", () => {
  it("gives each well-known endpoint once known", () => {
    expect(endpointsOf(undefined, undefined)).toEqual([]);
    expect(endpointsOf("https://192.0.2.10:6443", undefined)).toEqual([{ name: "apiserver-external", url: "https://192.0.2.10:6443" }]);
    expect(endpointsOf("https://192.0.2.10:6443", "https://10.0.0.5:6443")).toEqual([
      { name: "apiserver-external", url: "https://192.0.2.10:6443" },
      { name: "apiserver-internal", url: "https://10.0.0.5:6443" },
    ]);
  });
});

describe("runningVersion", () => {
  const label = { [K8S_VERSION_LABEL]: "1.33.5" };
  it("is the topology's version, else the version label, and nothing before the Cluster API Cluster exists", () => {
    expect(runningVersion(fromClass, label)).toBe("v1.34.1");
    expect(runningVersion(fromObjects, label)).toBe("1.33.5");
    expect(runningVersion(fromObjects, undefined)).toBeUndefined();
    expect(runningVersion(undefined, label)).toBeUndefined();
  });
});

describe("clusterConfigsCondition", () => {
  it("is True while spec.clusterConfigs names none", () => {
    expect(clusterConfigsCondition(undefined)).toMatchObject({ type: "ClusterConfigsApplied", status: "True" });
    expect(clusterConfigsCondition([])).toMatchObject({ type: "ClusterConfigsApplied", status: "True" });
  });

  it("says that named cluster configs are not applied, and what to do instead", () => {
    const condition = clusterConfigsCondition([{ name: "audit" }, { name: "oidc" }]);
    expect(condition).toMatchObject({ type: "ClusterConfigsApplied", status: "False", reason: "ClusterConfigsNotSupported" });
    expect(condition.message).toContain("audit, oidc");
    expect(condition.message).toContain("ProviderConfig");
  });
});
