import { describe, expect, it } from "@jest/globals";
import type { ClusterProfile, OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";
import { clustersByProfile, profilesByConfig, providersBecameReady } from "./cluster-indexes.js";

const config = (providersReady?: string): ProviderConfig =>
  ({
    apiVersion: "capi.clusters.openmcp.cloud/v1alpha1",
    kind: "ProviderConfig",
    metadata: { name: "c" },
    spec: { providerRef: { name: "capi" }, kubernetesVersions: [], template: {} },
    ...(providersReady === undefined
      ? {}
      : { status: { phase: "Progressing", conditions: [{ type: "ProvidersReady", status: providersReady, reason: "r", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } }),
  }) as ProviderConfig;

describe("providersBecameReady", () => {
  it.each<[string | undefined, string | undefined, boolean]>([
    [undefined, "True", true],
    ["False", "True", true],
    ["Unknown", "True", true],
    ["True", "True", false],
    ["True", "False", false],
    ["False", "False", false],
  ])("ProvidersReady %s → %s: %s", (before, after, expected) => {
    expect(providersBecameReady(config(before), config(after))).toBe(expected);
  });
});

describe("indexers", () => {
  it("file a profile under its config and a Cluster under its profile", () => {
    const profile = { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "ClusterProfile", metadata: { name: "p" }, spec: { providerRef: { name: "capi" }, providerConfigRef: { name: "c" } } } as ClusterProfile;
    const cluster = { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "Cluster", metadata: { name: "x", namespace: "n" }, spec: { profile: "p", tenancy: "Exclusive" } } as OpenMcpCluster;
    expect(profilesByConfig(profile)).toEqual(["c"]);
    expect(clustersByProfile(cluster)).toEqual(["p"]);
    expect(clustersByProfile({ ...cluster, spec: undefined })).toEqual([]);
  });
});
