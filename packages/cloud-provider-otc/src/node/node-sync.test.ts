import { describe, expect, it } from "@jest/globals";
import type { InstanceMetadata } from "../instances/instances.js";
import { ProvidedNodeIpError } from "../instances/node-addresses.js";
import { ANNOTATION_PROVIDED_NODE_IP, TAINT_UNINITIALIZED, type Node } from "../kube/objects.js";
import { cloudLabels, desiredAddresses, sameAddresses, syncedNode } from "./node-sync.js";

const METADATA: InstanceMetadata = {
  providerId: "otc://0a6f1c52-9d7e-4c1b-8a43-5e2f7d9b0c11",
  instanceType: "s3.large.2",
  addresses: [
    { type: "InternalIP", address: "192.168.0.11" },
    { type: "ExternalIP", address: "80.158.1.1" },
    { type: "Hostname", address: "worker-1" },
  ],
  zone: "eu-de-02",
  region: "eu-de",
};

const LABELS = {
  "node.kubernetes.io/instance-type": "s3.large.2",
  "beta.kubernetes.io/instance-type": "s3.large.2",
  "topology.kubernetes.io/zone": "eu-de-02",
  "failure-domain.beta.kubernetes.io/zone": "eu-de-02",
  "topology.kubernetes.io/region": "eu-de",
  "failure-domain.beta.kubernetes.io/region": "eu-de",
};

function registered(): Node {
  return {
    metadata: { name: "worker-1", resourceVersion: "7", labels: { "kubernetes.io/hostname": "worker-1" } },
    spec: {
      taints: [
        { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
        { key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" },
      ],
    },
    status: { addresses: [{ type: "Hostname", address: "worker-1.kubelet" }, { type: "InternalIP", address: "10.9.9.9" }] },
  };
}

describe("cloudLabels", () => {
  it("sets each label with its beta twin", () => {
    expect(cloudLabels(METADATA)).toEqual(LABELS);
  });

  it("leaves out what the cloud does not know", () => {
    expect(cloudLabels({ ...METADATA, instanceType: "", zone: "" })).toEqual({
      "topology.kubernetes.io/region": "eu-de",
      "failure-domain.beta.kubernetes.io/region": "eu-de",
    });
  });
});

describe("syncedNode", () => {
  it("sets providerID and labels and removes only the uninitialized taint, keeping the rest", () => {
    expect(syncedNode(registered(), METADATA)).toEqual({
      metadata: { name: "worker-1", resourceVersion: "7", labels: { "kubernetes.io/hostname": "worker-1", ...LABELS } },
      spec: { providerID: METADATA.providerId, taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
      status: registered().status,
    });
  });

  it("never replaces a providerID the node has", () => {
    const node = { ...registered(), spec: { providerID: "otc:///0a6f1c52-9d7e-4c1b-8a43-5e2f7d9b0c11" } };
    expect(syncedNode(node, METADATA)?.spec?.providerID).toBe("otc:///0a6f1c52-9d7e-4c1b-8a43-5e2f7d9b0c11");
  });

  it("answers undefined for a node that is already in sync", () => {
    const synced = syncedNode(registered(), METADATA);
    expect(synced).toBeDefined();
    expect(syncedNode(synced as Node, METADATA)).toBeUndefined();
  });

  it("updates a label that drifted on an initialised node", () => {
    const synced = syncedNode(registered(), METADATA) as Node;
    const resized = syncedNode(synced, { ...METADATA, instanceType: "s3.xlarge.2" });
    expect(resized?.metadata?.labels?.["node.kubernetes.io/instance-type"]).toBe("s3.xlarge.2");
    expect(resized?.metadata?.labels?.["beta.kubernetes.io/instance-type"]).toBe("s3.xlarge.2");
  });

  it("removes the taint even when the cloud knows nothing to label", () => {
    const bare = { ...METADATA, providerId: "", instanceType: "", zone: "", region: "" };
    expect(syncedNode(registered(), bare)?.spec?.taints).toEqual([{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
  });

  it("does not modify its input", () => {
    const node = registered();
    syncedNode(node, METADATA);
    expect(node).toEqual(registered());
  });
});

describe("desiredAddresses", () => {
  it("takes the cloud's addresses", () => {
    expect(desiredAddresses(registered(), METADATA)).toEqual(METADATA.addresses);
  });

  it("keeps the kubelet's Hostname when the cloud has none", () => {
    const cloud = { ...METADATA, addresses: [{ type: "InternalIP" as const, address: "192.168.0.11" }] };
    expect(desiredAddresses(registered(), cloud)).toEqual([
      { type: "InternalIP", address: "192.168.0.11" },
      { type: "Hostname", address: "worker-1.kubelet" },
    ]);
  });

  it("leaves the addresses alone when the cloud returned none", () => {
    expect(desiredAddresses(registered(), { ...METADATA, addresses: [] })).toBeUndefined();
  });

  it("honours the provided node IP", () => {
    const cloud = { ...METADATA, addresses: [{ type: "InternalIP" as const, address: "192.168.0.11" }, { type: "InternalIP" as const, address: "10.0.0.5" }] };
    const node = { ...registered(), metadata: { name: "worker-1", annotations: { [ANNOTATION_PROVIDED_NODE_IP]: "10.0.0.5" } } };
    expect(desiredAddresses(node, cloud)).toEqual([
      { type: "InternalIP", address: "10.0.0.5" },
      { type: "Hostname", address: "worker-1.kubelet" },
    ]);
    const wrong = { ...node, metadata: { name: "worker-1", annotations: { [ANNOTATION_PROVIDED_NODE_IP]: "10.0.0.6" } } };
    expect(() => desiredAddresses(wrong, cloud)).toThrow(ProvidedNodeIpError);
  });
});

describe("sameAddresses", () => {
  it("compares type, address and order", () => {
    const a = METADATA.addresses;
    expect(sameAddresses(a, [...a])).toBe(true);
    expect(sameAddresses(a, [...a].reverse())).toBe(false);
    expect(sameAddresses(a, a.slice(1))).toBe(false);
    expect(sameAddresses(undefined, [])).toBe(true);
    expect(sameAddresses(a, a.map((x) => ({ ...x, type: "InternalDNS" as const })))).toBe(false);
  });
});
