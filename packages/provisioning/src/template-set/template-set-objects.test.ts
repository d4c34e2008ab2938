import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "../cluster-api/cluster-template-error.js";
import type { ClusterTemplate } from "../cluster-api/cluster-template.js";
import { LOGICAL_CLUSTER_ANNOTATION, MANAGED_BY_LABEL, NAME_LABEL, ownerLabels } from "../tenancy/tenant-namespace.js";
import { KUBERNETES_VERSION_ANNOTATION, renderTemplateSet } from "./template-set-objects.js";

const owner = { cluster: "root:orgs:acme", namespace: "default", name: "my-cluster", uid: "5b1f" };

/** The in-memory example's template (deploy/cluster-provider-capi/examples/providerconfig-in-memory.yaml). */
const inMemory: ClusterTemplate = {
  clusterClass: {
    name: "in-memory",
    namespace: "capi-templates",
    controlPlane: { replicas: 1 },
    workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 1 }], machinePools: [{ class: "pool", name: "mp-0" }] },
  },
};

const objects: ClusterTemplate = {
  objects: {
    infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "AWSManagedCluster", name: "${CLUSTER_NAME}" },
    resources: [
      {
        apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
        kind: "AWSManagedCluster",
        metadata: { name: "${CLUSTER_NAME}", labels: { tier: "managed" }, annotations: { note: "from the template" } },
        spec: { version: "${KUBERNETES_VERSION}" },
      },
    ],
  },
};

const render = (template: ClusterTemplate, nodeCount = 3) =>
  renderTemplateSet({ name: "default-my-cluster-1a2b3c4d", namespace: "kcp-0123456789ab", owner, template, kubernetesVersion: "v1.37.0", nodeCount });

describe("renderTemplateSet", () => {
  it("makes the Cluster in the tenant namespace with the owner's marks and the version it was made with", () => {
    const { cluster, resources } = render(inMemory);
    expect(cluster.metadata).toEqual({
      name: "default-my-cluster-1a2b3c4d",
      namespace: "kcp-0123456789ab",
      labels: ownerLabels(owner),
      annotations: { [LOGICAL_CLUSTER_ANNOTATION]: "root:orgs:acme", [KUBERNETES_VERSION_ANNOTATION]: "v1.37.0" },
    });
    expect(cluster.spec.topology?.version).toBe("v1.37.0");
    expect(cluster.spec.topology?.classRef).toEqual({ name: "in-memory", namespace: "capi-templates" });
    expect(resources).toEqual([]);
  });

  it("makes the node count the replicas of every worker group, and leaves the control plane as the template says", () => {
    const topology = render(inMemory, 5).cluster.spec.topology;
    expect(topology?.workers?.machineDeployments).toEqual([{ class: "default-worker", name: "md-0", replicas: 5 }]);
    expect(topology?.workers?.machinePools).toEqual([{ class: "pool", name: "mp-0", replicas: 5 }]);
    expect(topology?.controlPlane).toEqual({ replicas: 1 });
  });

  it("leaves objects templates, templates without workers and the input alone", () => {
    expect(render(objects, 4)).toEqual(render(objects, 1));
    expect(render({ clusterClass: { name: "cp-only" } }, 4).cluster.spec.topology?.workers).toBeUndefined();
    render(inMemory, 4);
    expect(inMemory).toMatchObject({ clusterClass: { workers: { machineDeployments: [{ replicas: 1 }] } } });
  });

  it("marks the objects of an objects template as the Cluster, keeping the template's own labels and annotations", () => {
    const [resource, ...rest] = render(objects).resources;
    expect(rest).toEqual([]);
    expect(resource?.metadata).toMatchObject({
      name: "default-my-cluster-1a2b3c4d",
      namespace: "kcp-0123456789ab",
      labels: { tier: "managed", [MANAGED_BY_LABEL]: "provider-controller", [NAME_LABEL]: "my-cluster" },
      annotations: { note: "from the template", [LOGICAL_CLUSTER_ANNOTATION]: "root:orgs:acme" },
    });
    expect(resource?.metadata.annotations[KUBERNETES_VERSION_ANNOTATION]).toBeUndefined();
    expect(resource?.["spec"]).toEqual({ version: "v1.37.0" });
  });

  it("lets the renderer report a template it cannot use", () => {
    expect(() => render({ clusterClass: { name: "" } })).toThrow(ClusterTemplateError);
  });

  it("lets the renderer report workers not of the expected shape", () => {
    const odd = { clusterClass: { name: "x", workers: { machineDeployments: "md-0" } } } as unknown as ClusterTemplate;
    expect(() => render(odd)).toThrow(/machineDeployments must be a list/);
  });
});
