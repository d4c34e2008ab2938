import { describe, expect, it } from "@jest/globals";
import type { ObservedManagedResource } from "@edgeconnect/provisioning";
import type { Cluster } from "./cluster-view.js";
import { infrastructureTree, type InfrastructureObjects } from "./infrastructure-tree.js";

const NAMESPACE = "kcp-0123456789ab";

const kc: Cluster = {
  apiVersion: "platform.edgeconnect.eu/v1alpha1",
  kind: "KubernetesCluster",
  metadata: { namespace: "default", name: "my-cluster", uid: "u-1" },
  spec: { machineCapabilitiesRef: { name: "workers" }, nodeCount: 2, nodeDiskSize: "100Gi", providerRef: { type: "OTC", configRef: { name: "otc" } }, kubernetes: { version: "v1.31" } },
  status: { phase: "Ready", conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "the cluster is ready", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
};

function resource(kind: string, name: string, id: string | undefined, extra: Partial<ObservedManagedResource> = {}): ObservedManagedResource {
  return {
    kind,
    metadata: { name, namespace: NAMESPACE, generation: 1 },
    status: {
      conditions: [
        { type: "Synced", status: "True", reason: "ReconcileSuccess", observedGeneration: 1 },
        { type: "Ready", status: "True", reason: "Available" },
      ],
      atProvider: { ...(id === undefined ? {} : { id }), status: kind === "VpcV1" ? "OK" : kind === "ClusterV3" ? "Available" : "" },
    },
    ...extra,
  };
}

const infra: InfrastructureObjects = {
  namespaceName: NAMESPACE,
  namespace: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
  managed: [
    resource("NodePoolV3", "default-my-cluster-abc-pool", "np-42"),
    resource("ClusterV3", "default-my-cluster-abc", "cce-7"),
    resource("VpcV1", "default-my-cluster-abc-vpc", "vpc-1"),
  ],
  clusterApi: [],
};

describe("infrastructureTree", () => {
  it("goes cluster → namespace → managed resources in creation order, with Synced, Ready, state and cloud ids (platform: with names)", () => {
    const tree = infrastructureTree(kc, infra, "platform");
    expect(tree).toMatchObject({ label: "KubernetesCluster", name: "default/my-cluster", state: "Ready", ready: { status: "True" } });
    const namespace = tree.children[0];
    expect(namespace).toMatchObject({ label: "tenant namespace", name: NAMESPACE });
    expect(namespace?.children.map((c) => [c.label, c.name, c.cloudId, c.state])).toEqual([
      ["the VPC (VpcV1)", "default-my-cluster-abc-vpc", "vpc-1", "Ready"],
      ["the control plane (ClusterV3)", "default-my-cluster-abc", "cce-7", "Ready"],
      ["the node pool (NodePoolV3)", "default-my-cluster-abc-pool", "np-42", "Ready"],
    ]);
    expect(namespace?.children[0]).toMatchObject({ synced: { status: "True", reason: "ReconcileSuccess" }, ready: { status: "True", reason: "Available" } });
  });

  it("names no infrastructure object for a tenant, in names or messages, but keeps the steps and cloud ids", () => {
    const failing = resource("SubnetV1", "default-my-cluster-abc-subnet", undefined, {
      status: { conditions: [{ type: "Synced", status: "False", reason: "ReconcileError", message: `cannot observe ${NAMESPACE}/default-my-cluster-abc-subnet: boom` }] },
    });
    const tree = infrastructureTree(kc, { ...infra, managed: [...infra.managed, failing] }, "tenant");
    const text = JSON.stringify(tree);
    expect(text).not.toContain(NAMESPACE);
    expect(text).not.toContain("default-my-cluster-abc");
    expect(text).toContain("vpc-1");
    expect(text).toContain("np-42");
    const subnet = tree.children[0]?.children.find((c) => c.label.includes("SubnetV1"));
    expect(subnet).toMatchObject({ state: "Failed", reason: "ReconcileError", message: "cannot observe …/…: boom", synced: { status: "False", message: "cannot observe …/…: boom" } });
    expect(tree.children[0]?.name).toBeUndefined();
  });

  it("shows a teardown with since when, and a namespace gone or the infrastructure unreadable", () => {
    const deleting = { ...kc, metadata: { ...kc.metadata, deletionTimestamp: "2026-01-02T00:00:00Z" } } as Cluster;
    const vpc = resource("VpcV1", "v", "vpc-1", { metadata: { name: "v", deletionTimestamp: "2026-01-02T00:00:05Z" } });
    const tree = infrastructureTree(deleting, { ...infra, managed: [vpc] }, "tenant");
    expect(tree).toMatchObject({ state: "Deleting", deletingSince: "2026-01-02T00:00:00Z" });
    expect(tree.children[0]?.children[0]).toMatchObject({ state: "Deleting", deletingSince: "2026-01-02T00:00:05Z" });
    expect(infrastructureTree(deleting, { ...infra, namespace: undefined, managed: [] }, "tenant").children[0]).toMatchObject({ state: "Absent", message: "deleted" });
    expect(infrastructureTree(kc, { ...infra, error: "the infrastructure cluster did not answer" }, "platform").children[0]).toMatchObject({ state: "Unknown", message: "the infrastructure cluster did not answer" });
  });
});
