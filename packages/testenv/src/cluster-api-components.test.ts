/**
 * The components built from the pinned modules in the Go module cache
 * (downloaded when missing), checked against what `kustomize build
 * config/default` of the same version gives; no server needed.
 */
import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { gunzipSync } from "node:zlib";
import { parseManifests } from "./apply.js";
import { fetchConfigMap, providerComponents } from "./cluster-api-components.js";

type Binding = KubeObject & { roleRef?: { kind: string; name: string }; subjects?: { kind: string; name: string; namespace?: string }[] };
type Deployment = KubeObject & {
  spec?: {
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string> }; spec?: { serviceAccountName?: string; containers?: { name: string; image?: string }[] } };
  };
};

function find<T extends KubeObject = KubeObject>(objects: KubeObject[], kind: string, name: string): T | undefined {
  return objects.find((obj): obj is T => obj.kind === kind && obj.metadata?.name === name);
}

describe("providerComponents", () => {
  it("builds core as config/default does, without webhooks or cert-manager", async () => {
    const core = await providerComponents("core");
    expect(core.version).toBe("v1.14.2");
    expect(core.namespace).toBe("capi-system");
    expect(core.deployment).toEqual({ namespace: "capi-system", name: "capi-controller-manager" });
    expect(core.metadata).toContain("kind: Metadata");
    const objects = parseManifests(core.components);

    expect(objects[0]).toMatchObject({ kind: "Namespace", metadata: { name: "capi-system" } });
    expect(objects.filter((obj) => obj.kind === "Namespace")).toHaveLength(1);
    // Core's CRDs carry no contract label (its crd/ kustomization adds none), only the provider label of default/.
    expect(find(objects, "CustomResourceDefinition", "clusters.cluster.x-k8s.io")?.metadata?.labels).toEqual({ "cluster.x-k8s.io/provider": "cluster-api" });

    const deployment = find<Deployment>(objects, "Deployment", "capi-controller-manager");
    expect(deployment?.metadata?.namespace).toBe("capi-system");
    expect(deployment?.spec?.selector?.matchLabels).toEqual({ "control-plane": "controller-manager", "cluster.x-k8s.io/provider": "cluster-api" });
    expect(deployment?.spec?.template?.metadata?.labels).toEqual({ "control-plane": "controller-manager", "cluster.x-k8s.io/provider": "cluster-api" });
    expect(deployment?.spec?.template?.spec?.serviceAccountName).toBe("capi-manager");
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.image).toBe("gcr.io/k8s-staging-cluster-api/cluster-api-controller:main");

    // The role aggregation patch binds the manager to the aggregated role.
    const binding = find<Binding>(objects, "ClusterRoleBinding", "capi-manager-rolebinding");
    expect(binding?.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "capi-aggregated-manager-role" });
    expect(binding?.subjects).toEqual([{ kind: "ServiceAccount", name: "capi-manager", namespace: "capi-system" }]);
    expect(find(objects, "ClusterRole", "capi-manager-role")?.metadata?.labels).toMatchObject({ "cluster.x-k8s.io/aggregate-to-manager": "true" });
    expect(find(objects, "RoleBinding", "capi-leader-election-rolebinding")?.metadata?.namespace).toBe("capi-system");
    expect(find(objects, "ServiceAccount", "capi-manager")?.metadata?.namespace).toBe("capi-system");

    const kinds = new Set(objects.map((obj) => obj.kind));
    for (const leftOut of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "Service", "Certificate", "Issuer"]) {
      expect(kinds.has(leftOut)).toBe(false);
    }
    const crd = find<KubeObject & { spec?: { conversion?: unknown } }>(objects, "CustomResourceDefinition", "clusters.cluster.x-k8s.io");
    expect(crd?.spec?.conversion).toBeUndefined();
    expect(crd?.metadata?.annotations?.["cert-manager.io/inject-ca-from"]).toBeUndefined();
  });

  it("adds the contract labels of a provider's crd/ kustomization", async () => {
    const bootstrap = await providerComponents("kubeadm-bootstrap");
    expect(bootstrap.deployment).toEqual({ namespace: "capi-kubeadm-bootstrap-system", name: "capi-kubeadm-bootstrap-controller-manager" });
    const crd = find(parseManifests(bootstrap.components), "CustomResourceDefinition", "kubeadmconfigs.bootstrap.cluster.x-k8s.io");
    expect(crd?.metadata?.labels).toEqual({
      "cluster.x-k8s.io/provider": "bootstrap-kubeadm",
      "cluster.x-k8s.io/v1beta1": "v1beta1",
      "cluster.x-k8s.io/v1beta2": "v1beta2",
    });
  });

  it("gives the dev provider the metadata of its release series", async () => {
    const dev = await providerComponents("dev");
    expect(dev.deployment).toEqual({ namespace: "capd-system", name: "capd-controller-manager" });
    expect(dev.metadata).toMatch(/major: 1\s+minor: 14\s+contract: v1beta2/);
  });

  it("builds the operator's own components, the manifest an install applies", async () => {
    const operator = await providerComponents("operator");
    expect(operator.version).toBe("v0.29.0");
    expect(operator.metadata).toBeUndefined();
    expect(operator.deployment).toEqual({ namespace: "capi-operator-system", name: "capi-operator-controller-manager" });
    const objects = parseManifests(operator.components);
    expect(find(objects, "CustomResourceDefinition", "coreproviders.operator.cluster.x-k8s.io")?.metadata?.labels).toEqual({
      "clusterctl.cluster.x-k8s.io/core": "capi-operator",
    });
    // Only what rbac/kustomization.yaml lists: not the editor and viewer roles beside it.
    expect(objects.filter((obj) => obj.kind === "ClusterRole").map((obj) => obj.metadata?.name)).toEqual(["capi-operator-manager-role"]);
  });
});

describe("fetchConfigMap", () => {
  it("gzips core's components, which exceed a ConfigMap, and marks them compressed", async () => {
    const configMap = (await fetchConfigMap("core", { namespace: "capi-system", labels: { "test.edgeconnect/provider": "core" } })) as KubeObject & {
      data?: Record<string, string>;
      binaryData?: Record<string, string>;
    };
    expect(configMap.metadata).toEqual({
      name: "v1.14.2",
      namespace: "capi-system",
      labels: { "test.edgeconnect/provider": "core", "provider.cluster.x-k8s.io/version": "v1.14.2" },
      annotations: { "provider.cluster.x-k8s.io/compressed": "true" },
    });
    expect(Object.keys(configMap.data ?? {})).toEqual(["metadata"]);
    const components = gunzipSync(Buffer.from(configMap.binaryData?.components ?? "", "base64")).toString("utf8");
    expect(components).toBe((await providerComponents("core")).components);
    expect(Buffer.byteLength(configMap.binaryData?.components ?? "")).toBeLessThan(1024 * 1024);
  });

  it("keeps small components as text", async () => {
    const configMap = (await fetchConfigMap("kubeadm-bootstrap", { namespace: "ns", labels: {}, name: "bootstrap" })) as KubeObject & { data?: Record<string, string> };
    expect(configMap.metadata?.name).toBe("bootstrap");
    expect(configMap.metadata?.annotations).toBeUndefined();
    expect(Object.keys(configMap.data ?? {}).sort()).toEqual(["components", "metadata"]);
  });
});
