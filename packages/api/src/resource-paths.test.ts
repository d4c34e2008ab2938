import { describe, expect, it } from "@jest/globals";
import {
  collectionPath,
  KUBERNETES_CLUSTER_RESOURCE,
  objectPath,
  PLATFORM_API_VERSION,
  PLATFORM_GROUP,
  PLATFORM_VERSION,
  PROVIDER_MACHINE_FLAVOR_RESOURCE,
} from "./index.js";

describe("collectionPath", () => {
  it("names a namespace's collection of a namespaced kind", () => {
    expect(collectionPath(KUBERNETES_CLUSTER_RESOURCE, "default")).toBe("/apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters");
  });

  it("names the collection across all namespaces without a namespace", () => {
    expect(collectionPath(KUBERNETES_CLUSTER_RESOURCE)).toBe("/apis/platform.edgeconnect.eu/v1alpha1/kubernetesclusters");
  });

  it("names a cluster-scoped kind's collection, and refuses a namespace for it", () => {
    expect(collectionPath(PROVIDER_MACHINE_FLAVOR_RESOURCE)).toBe("/apis/platform.edgeconnect.eu/v1alpha1/providermachineflavors");
    expect(() => collectionPath(PROVIDER_MACHINE_FLAVOR_RESOURCE, "default")).toThrow(/ProviderMachineFlavor is cluster-scoped/);
  });

  it("refuses an empty namespace rather than naming another collection", () => {
    expect(() => collectionPath(KUBERNETES_CLUSTER_RESOURCE, "")).toThrow(/empty namespace/);
  });
});

describe("objectPath", () => {
  it("names an object of a namespaced kind", () => {
    expect(objectPath(KUBERNETES_CLUSTER_RESOURCE, "team-a", "prod")).toBe(
      "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/team-a/kubernetesclusters/prod",
    );
  });

  it("names an object of a cluster-scoped kind", () => {
    expect(objectPath(PROVIDER_MACHINE_FLAVOR_RESOURCE, undefined, "otc-s3-xlarge-4")).toBe(
      "/apis/platform.edgeconnect.eu/v1alpha1/providermachineflavors/otc-s3-xlarge-4",
    );
  });

  it("needs the namespace of a namespaced kind and no namespace for a cluster-scoped one", () => {
    expect(() => objectPath(KUBERNETES_CLUSTER_RESOURCE, undefined, "prod")).toThrow(/KubernetesCluster is namespaced/);
    expect(() => objectPath(PROVIDER_MACHINE_FLAVOR_RESOURCE, "default", "x")).toThrow(/cluster-scoped/);
  });

  it("refuses an empty name and escapes what would change the path", () => {
    expect(() => objectPath(KUBERNETES_CLUSTER_RESOURCE, "default", "")).toThrow(/empty name/);
    expect(objectPath(KUBERNETES_CLUSTER_RESOURCE, "default", "a/../b")).toBe(
      "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters/a%2F..%2Fb",
    );
  });
});

describe("constants", () => {
  it("agree with each other", () => {
    expect(PLATFORM_API_VERSION).toBe(`${PLATFORM_GROUP}/${PLATFORM_VERSION}`);
    expect(KUBERNETES_CLUSTER_RESOURCE.apiVersion).toBe(PLATFORM_API_VERSION);
  });
});
