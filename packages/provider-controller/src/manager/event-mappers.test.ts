import { describe, expect, it } from "@jest/globals";
import type { KubernetesCluster, ProviderConfig } from "@edgeconnect/api";
import { CLUSTER_ANNOTATION, type KubeObject } from "@edgeconnect/kcp-ts";
import { kubeconfigSecretName } from "@edgeconnect/provisioning";
import { Store } from "@edgeconnect/runtime";
import { tenantResources } from "../tenant/tenant-resources.js";
import { CLUSTER_QUOTA_EXCEEDED } from "../tenant/cluster-quota.js";
import { eventMappers, whenClusterLeaves } from "./event-mappers.js";

const resources = tenantResources({});

function object(cluster: string, namespace: string, name: string, extra: object = {}): KubeObject {
  return { metadata: { name, namespace, annotations: { [CLUSTER_ANNOTATION]: cluster } }, ...extra };
}

function kubernetesCluster(cluster: string, namespace: string, name: string, spec: { config?: string; capabilities?: string; templateSet?: string }, phase?: string): KubeObject {
  const providerRef = spec.templateSet === undefined ? { type: "OTC", ...(spec.config ? { configRef: { name: spec.config } } : {}) } : { type: "ClusterAPI", templateSet: spec.templateSet };
  return object(cluster, namespace, name, {
    spec: { providerRef, machineCapabilitiesRef: { name: spec.capabilities ?? "caps" } },
    ...(phase === undefined ? {} : { status: { phase } }),
  });
}

function providerConfig(cluster: string, namespace: string, name: string, secret: string): KubeObject {
  return object(cluster, namespace, name, { spec: { credentials: { secretRef: { name: secret } } } });
}

/** The mappers over stores indexed as the controller's caches are. */
function mappersOver(clusters: KubeObject[], configs: KubeObject[]) {
  const clusterStore = new Store<KubernetesCluster & KubeObject>(resources.clusters.indexers === undefined ? {} : { indexers: resources.clusters.indexers });
  const configStore = new Store<ProviderConfig & KubeObject>(resources.providerConfigs.indexers === undefined ? {} : { indexers: resources.providerConfigs.indexers });
  clusters.forEach((kc) => clusterStore.upsert(kc));
  configs.forEach((pc) => configStore.upsert(pc));
  return eventMappers({ clusters: (index, value) => clusterStore.byIndex(index, value), providerConfigs: (index, value) => configStore.byIndex(index, value) });
}

const names = (requests: { cluster: string; namespace: string; name: string }[]): string[] => requests.map((r) => `${r.cluster}/${r.namespace}/${r.name}`).sort();

describe("eventMappers", () => {
  // Two tenants that chose the same names: nothing of one may wake the other.
  const tenants = ["tenant-a", "tenant-b"];
  const clusters = tenants.flatMap((t) => [
    kubernetesCluster(t, "default", "one", { config: "pc", capabilities: "small" }, "Ready"),
    kubernetesCluster(t, "default", "two", { config: "other", capabilities: "small" }),
    kubernetesCluster(t, "team", "three", { config: "pc" }),
    kubernetesCluster(t, "default", "capi", { templateSet: "v1-34" }),
  ]);
  const configs = tenants.flatMap((t) => [providerConfig(t, "default", "pc", "creds"), providerConfig(t, "default", "other", "creds"), providerConfig(t, "team", "pc", "creds")]);
  const mappers = mappersOver(clusters, configs);

  it("wakes the clusters of one tenant's namespace that name a ProviderConfig", () => {
    expect(names(mappers.clustersUsingConfig(object("tenant-a", "default", "pc")))).toEqual(["tenant-a/default/one"]);
    expect(names(mappers.clustersUsingConfig(object("tenant-b", "team", "pc")))).toEqual(["tenant-b/team/three"]);
    expect(mappers.clustersUsingConfig(object("tenant-c", "default", "pc"))).toEqual([]);
  });

  it("wakes the clusters that name MachineCapabilities, in that tenant and namespace only", () => {
    expect(names(mappers.clustersUsingCapabilities(object("tenant-b", "default", "small")))).toEqual(["tenant-b/default/one", "tenant-b/default/two"]);
  });

  it("maps a credentials Secret to the ProviderConfigs that read it and their clusters", () => {
    const secret = object("tenant-a", "default", "creds");
    expect(names(mappers.configsReadingSecret(secret))).toEqual(["tenant-a/default/other", "tenant-a/default/pc"]);
    expect(names(mappers.clustersOfSecret(secret))).toEqual(["tenant-a/default/one", "tenant-a/default/two"]);
  });

  it("maps a kubeconfig Secret to its cluster, long names (whose Secret name is hashed) included", () => {
    const long = "c".repeat(250);
    const withLong = mappersOver([kubernetesCluster("tenant-a", "default", long, { config: "pc" })], []);
    expect(names(mappers.clustersOfSecret(object("tenant-b", "default", "two-kubeconfig")))).toEqual(["tenant-b/default/two"]);
    expect(names(withLong.clustersOfSecret(object("tenant-a", "default", kubeconfigSecretName(long))))).toEqual([`tenant-a/default/${long}`]);
    expect(withLong.clustersOfSecret(object("tenant-b", "default", kubeconfigSecretName(long)))).toEqual([]);
  });

  it("wakes the Cluster API clusters of a template set, and the clusters not Ready for a catalogue change", () => {
    expect(names(mappers.clustersUsingTemplateSet({ metadata: { name: "v1-34" } }))).toEqual(["tenant-a/default/capi", "tenant-b/default/capi"]);
    expect(names(mappers.waitingClusters())).toEqual(
      ["tenant-a/default/capi", "tenant-a/default/two", "tenant-a/team/three", "tenant-b/default/capi", "tenant-b/default/two", "tenant-b/team/three"].sort(),
    );
  });

  it("wakes the clusters the quota holds back in the workspace a cluster leaves, and only when it leaves", () => {
    const held = (t: string, name: string): KubeObject =>
      object(t, "default", name, { status: { phase: "Failed", conditions: [{ type: "Ready", status: "False", reason: CLUSTER_QUOTA_EXCEEDED }] } });
    const quota = mappersOver([...clusters, held("tenant-a", "held"), held("tenant-a", "held-too"), held("tenant-b", "held")], []);
    const woken: string[] = [];
    const handlers = whenClusterLeaves({ enqueue: (r) => woken.push(`${r.cluster}/${r.namespace}/${r.name}`) }, quota.clustersOverQuotaBeside);
    const leaving = object("tenant-a", "default", "one");
    const marked = { ...leaving, metadata: { ...leaving.metadata, deletionTimestamp: "2026-12-05T00:00:00Z" } };

    handlers.updated?.(leaving, leaving);
    handlers.updated?.(marked, marked);
    expect(woken).toEqual([]);
    handlers.updated?.(leaving, marked);
    expect(woken.sort()).toEqual(["tenant-a/default/held", "tenant-a/default/held-too"]);
    woken.length = 0;
    handlers.deleted?.(object("tenant-b", "team", "three"));
    expect(woken).toEqual(["tenant-b/default/held"]);
  });
});
