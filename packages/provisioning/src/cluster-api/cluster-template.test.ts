import { describe, expect, it } from "@jest/globals";
import { ClusterTemplateError } from "./cluster-template-error.js";
import { renderClusterApiObjects, validateClusterTemplate, type ClusterApiObjectsInput, type ClusterTemplate, type ObjectsTemplate } from "./cluster-template.js";

const NAME = "c1";
const NAMESPACE = "tenant-a";
const LABELS = { "edgeconnect.eu/managed-by": "cluster-provider-capi", "edgeconnect.eu/cluster": "c1" };

/** The Cluster of cluster-api's `cluster-template-in-memory.yaml`, as a template. */
const IN_MEMORY: ClusterTemplate = {
  clusterClass: {
    name: "in-memory",
    namespace: "${NAMESPACE}",
    controlPlane: { replicas: 3 },
    workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 5 }] },
    clusterNetwork: {
      services: { cidrBlocks: ["10.128.0.0/12"] },
      pods: { cidrBlocks: ["192.168.0.0/16"] },
      serviceDomain: "cluster.local",
    },
  },
};

function input(template: ClusterTemplate, overrides: Partial<ClusterApiObjectsInput> = {}): ClusterApiObjectsInput {
  return { name: NAME, namespace: NAMESPACE, kubernetesVersion: "1.34.1", labels: LABELS, template, ...overrides };
}

/** The problems renderClusterApiObjects throws with. */
function problems(rendering: ClusterApiObjectsInput): readonly string[] {
  try {
    renderClusterApiObjects(rendering);
  } catch (error) {
    if (error instanceof ClusterTemplateError) return error.problems;
    throw error;
  }
  throw new Error("rendered without a ClusterTemplateError");
}

/** CAPD in-memory objects without a ClusterClass, with a self-hosted control plane. */
function devObjects(): ObjectsTemplate {
  return {
    infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DevCluster", name: "${CLUSTER_NAME}" },
    controlPlaneRef: { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "${CLUSTER_NAME}-control-plane" },
    clusterNetwork: { pods: { cidrBlocks: ["${POD_CIDR}"] } },
    resources: [
      {
        apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
        kind: "DevCluster",
        metadata: { name: "${CLUSTER_NAME}", namespace: "somewhere-else", labels: { team: "platform", "edgeconnect.eu/cluster": "from-template" } },
        spec: { backend: { inMemory: {} } },
      },
      {
        apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
        kind: "KubeadmControlPlane",
        metadata: { name: "${CLUSTER_NAME}-control-plane", annotations: { note: "cluster ${CLUSTER_NAME} in ${NAMESPACE}" } },
        spec: {
          replicas: 1,
          version: "${KUBERNETES_VERSION}",
          machineTemplate: { spec: { infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DevMachineTemplate", name: "${CLUSTER_NAME}-control-plane" } } },
          kubeadmConfigSpec: { clusterConfiguration: { apiServer: { certSANs: ["localhost", "127.0.0.1"] } } },
        },
      },
      {
        apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
        kind: "DevMachineTemplate",
        metadata: { name: "${CLUSTER_NAME}-control-plane" },
        spec: { template: { spec: { backend: { inMemory: { vm: { provisioning: { startupDuration: "10s", startupJitter: "0.2" } } } } } } },
      },
    ],
  };
}

describe("renderClusterApiObjects with a ClusterClass", () => {
  it("renders the in-memory ClusterClass's Cluster like cluster-template-in-memory.yaml", () => {
    expect(renderClusterApiObjects(input(IN_MEMORY, { kubernetesVersion: "v1.34.1" }))).toEqual({
      cluster: {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS },
        spec: {
          clusterNetwork: {
            services: { cidrBlocks: ["10.128.0.0/12"] },
            pods: { cidrBlocks: ["192.168.0.0/16"] },
            serviceDomain: "cluster.local",
          },
          topology: {
            classRef: { name: "in-memory", namespace: NAMESPACE },
            version: "v1.34.1",
            controlPlane: { replicas: 3 },
            workers: { machineDeployments: [{ class: "default-worker", name: "md-0", replicas: 5 }] },
          },
        },
      },
      resources: [],
    });
  });

  it("adds the v to the version", () => {
    expect(renderClusterApiObjects(input(IN_MEMORY, { kubernetesVersion: "1.34.1" })).cluster.spec.topology?.version).toBe("v1.34.1");
  });

  it("renders the smallest topology without empty lists or objects", () => {
    const template: ClusterTemplate = { clusterClass: { name: "quick-start", variables: [], controlPlane: {}, workers: { machineDeployments: [], machinePools: [] } } };
    expect(renderClusterApiObjects(input(template)).cluster.spec).toEqual({ topology: { classRef: { name: "quick-start" }, version: "v1.34.1" } });
  });

  it("substitutes in variables and passes machine pools and non-string values through", () => {
    const template: ClusterTemplate = {
      clusterClass: {
        name: "gke-${REGION}",
        variables: [
          { name: "region", value: "${REGION}" },
          { name: "labels", value: { cluster: "${CLUSTER_NAME}", tier: 2, public: false, zones: ["${REGION}-a", null] } },
          { name: "imageRepository", value: "" },
        ],
        workers: { machinePools: [{ class: "default", name: "mp-0" }, { class: "gpu", name: "mp-1", replicas: 0 }] },
      },
    };
    expect(renderClusterApiObjects(input(template, { variables: { REGION: "europe-west3" } })).cluster.spec.topology).toEqual({
      classRef: { name: "gke-europe-west3" },
      version: "v1.34.1",
      variables: [
        { name: "region", value: "europe-west3" },
        { name: "labels", value: { cluster: NAME, tier: 2, public: false, zones: ["europe-west3-a", null] } },
        { name: "imageRepository", value: "" },
      ],
      workers: { machinePools: [{ class: "default", name: "mp-0" }, { class: "gpu", name: "mp-1", replicas: 0 }] },
    });
  });
});

describe("renderClusterApiObjects with workerReplicas", () => {
  const workers: ClusterTemplate = {
    clusterClass: {
      name: "x",
      controlPlane: { replicas: 3 },
      workers: { machineDeployments: [{ class: "w", name: "md-0", replicas: 1 }, { class: "w", name: "md-1" }], machinePools: [{ class: "p", name: "mp-0", replicas: 0 }] },
    },
  };

  it("gives every machine deployment and machine pool those replicas, and leaves the control plane and the template alone", () => {
    const copy = structuredClone(workers);
    expect(renderClusterApiObjects(input(workers, { workerReplicas: 4 })).cluster.spec.topology).toMatchObject({
      controlPlane: { replicas: 3 },
      workers: {
        machineDeployments: [{ class: "w", name: "md-0", replicas: 4 }, { class: "w", name: "md-1", replicas: 4 }],
        machinePools: [{ class: "p", name: "mp-0", replicas: 4 }],
      },
    });
    expect(workers).toEqual(copy);
  });

  it("does not judge the template's replicas it replaces", () => {
    const template: ClusterTemplate = { clusterClass: { name: "x", workers: { machineDeployments: [{ class: "w", name: "md-0", replicas: 1.5 }] } } };
    expect(renderClusterApiObjects(input(template, { workerReplicas: 2 })).cluster.spec.topology?.workers).toEqual({ machineDeployments: [{ class: "w", name: "md-0", replicas: 2 }] });
  });

  it("reports a count that cannot be replicas at each worker it would land on", () => {
    expect(problems(input(workers, { workerReplicas: -1 }))).toEqual([
      "clusterClass.workers.machineDeployments[0].replicas must be a non-negative integer, not -1",
      "clusterClass.workers.machineDeployments[1].replicas must be a non-negative integer, not -1",
      "clusterClass.workers.machinePools[0].replicas must be a non-negative integer, not -1",
    ]);
  });

  it("adds no workers, and leaves objects templates as they are", () => {
    expect(renderClusterApiObjects(input({ clusterClass: { name: "cp-only" } }, { workerReplicas: 2 })).cluster.spec.topology?.workers).toBeUndefined();
    const withPodCidr = { variables: { POD_CIDR: "10.0.0.0/16" } };
    expect(renderClusterApiObjects(input({ objects: devObjects() }, { ...withPodCidr, workerReplicas: 7 }))).toEqual(renderClusterApiObjects(input({ objects: devObjects() }, withPodCidr)));
  });

  it("leaves workers not of the expected shape to be reported as without it", () => {
    const odd = { clusterClass: { name: "x", workers: { machineDeployments: "md-0" } } } as unknown as ClusterTemplate;
    expect(problems(input(odd, { workerReplicas: 2 }))).toEqual(problems(input(odd)));
    expect(problems(input(odd, { workerReplicas: 2 }))).toEqual(["clusterClass.workers.machineDeployments must be a list of {class, name, replicas}"]);
  });
});

describe("renderClusterApiObjects with objects", () => {
  it("renders the Cluster's references and the resources into the namespace, with the labels", () => {
    expect(renderClusterApiObjects(input({ objects: devObjects() }, { variables: { POD_CIDR: "192.168.0.0/16" } }))).toEqual({
      cluster: {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS },
        spec: {
          infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DevCluster", name: "c1" },
          controlPlaneRef: { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "c1-control-plane" },
          clusterNetwork: { pods: { cidrBlocks: ["192.168.0.0/16"] } },
        },
      },
      resources: [
        {
          apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
          kind: "DevCluster",
          metadata: { name: "c1", namespace: NAMESPACE, labels: { team: "platform", ...LABELS } },
          spec: { backend: { inMemory: {} } },
        },
        {
          apiVersion: "controlplane.cluster.x-k8s.io/v1beta2",
          kind: "KubeadmControlPlane",
          metadata: { name: "c1-control-plane", namespace: NAMESPACE, labels: LABELS, annotations: { note: "cluster c1 in tenant-a" } },
          spec: {
            replicas: 1,
            version: "v1.34.1",
            machineTemplate: { spec: { infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DevMachineTemplate", name: "c1-control-plane" } } },
            kubeadmConfigSpec: { clusterConfiguration: { apiServer: { certSANs: ["localhost", "127.0.0.1"] } } },
          },
        },
        {
          apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
          kind: "DevMachineTemplate",
          metadata: { name: "c1-control-plane", namespace: NAMESPACE, labels: LABELS },
          spec: { template: { spec: { backend: { inMemory: { vm: { provisioning: { startupDuration: "10s", startupJitter: "0.2" } } } } } } },
        },
      ],
    });
  });

  it("needs no Kubernetes version when the objects do not use it, and no control plane reference", () => {
    const template: ObjectsTemplate = {
      infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "AWSManagedCluster", name: "${CLUSTER_NAME}" },
      resources: [{ apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2", kind: "AWSManagedCluster", metadata: { name: "${CLUSTER_NAME}" } }],
    };
    const { cluster, resources } = renderClusterApiObjects(input({ objects: template }, { kubernetesVersion: undefined }));
    expect(cluster.spec).toEqual({ infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "AWSManagedCluster", name: NAME } });
    expect(resources).toEqual([
      { apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2", kind: "AWSManagedCluster", metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS } },
    ]);
  });

  it("neither changes the template nor shares objects with it", () => {
    const template = devObjects();
    const copy = structuredClone(template);
    const { cluster, resources } = renderClusterApiObjects(input({ objects: template }, { variables: { POD_CIDR: "10.0.0.0/16" } }));
    expect(template).toEqual(copy);
    expect(cluster.spec.clusterNetwork).not.toBe(template.clusterNetwork);
    expect(resources[0]?.["spec"]).not.toBe(template.resources[0]?.["spec"]);
    expect(cluster.metadata.labels).not.toBe(LABELS);
  });
});

describe("substitution", () => {
  function rendered(value: unknown, variables: Record<string, string> = {}): unknown {
    const template: ObjectsTemplate = {
      infrastructureRef: { apiGroup: "example.com", kind: "Infra", name: "infra" },
      resources: [{ apiVersion: "example.com/v1", kind: "Infra", metadata: { name: "infra" }, spec: { value } }],
    };
    return renderClusterApiObjects(input({ objects: template }, { variables })).resources[0]?.["spec"];
  }

  it.each([
    ["$${FOO}", "${FOO}"],
    ["a $${b} ${CLUSTER_NAME}", "a ${b} c1"],
    ["$${CLUSTER_NAME} is ${CLUSTER_NAME}", "${CLUSTER_NAME} is c1"],
    ["$$${CLUSTER_NAME}", "$${CLUSTER_NAME}"],
    ["$HOME and $5 and $$ and {x}", "$HOME and $5 and $$ and {x}"],
    ["${CLUSTER_NAME}${NAMESPACE}", "c1tenant-a"],
    ["${KUBERNETES_VERSION}", "v1.34.1"],
  ])("%j → %j", (text, expected) => {
    expect(rendered(text)).toEqual({ value: expected });
  });

  it("inserts values as they are: neither expanded again nor parsed", () => {
    const injected = '${CLUSTER_NAME}\nkind: Secret\n---\n{"apiVersion": "v1"} $${X}';
    expect(rendered("x-${EVIL}", { EVIL: injected })).toEqual({ value: `x-${injected}` });
    expect(rendered(["${EVIL}"], { EVIL: "a\n- b" })).toEqual({ value: ["a\n- b"] });
  });

  it("leaves object keys, numbers, booleans and null alone", () => {
    expect(rendered({ "${CLUSTER_NAME}": "${CLUSTER_NAME}", n: 1, b: true, z: null })).toEqual({ value: { "${CLUSTER_NAME}": NAME, n: 1, b: true, z: null } });
  });

  it("takes the built-in variables from the cluster", () => {
    expect(rendered("${NAMESPACE}/${CLUSTER_NAME}", { OTHER: "x" })).toEqual({ value: "tenant-a/c1" });
  });
});

describe("ClusterTemplateError", () => {
  const objects = (overrides: Partial<ObjectsTemplate>): ClusterTemplate => ({ objects: { ...devObjects(), ...overrides } });
  const withPodCidr = { variables: { POD_CIDR: "10.0.0.0/16" } };
  const resources = devObjects().resources;

  it.each<[string, ClusterApiObjectsInput, string]>([
    [
      "an unknown variable, with its path",
      input(objects({}), { variables: {} }),
      "objects.clusterNetwork.pods.cidrBlocks[0] uses the unknown variable ${POD_CIDR}: define POD_CIDR (known: CLUSTER_NAME, NAMESPACE, KUBERNETES_VERSION), or write $${POD_CIDR} for a literal ${POD_CIDR}",
    ],
    [
      "an unknown variable in a label",
      input(objects({ resources: [{ ...resources[0], metadata: { name: "${CLUSTER_NAME}", labels: { "app.kubernetes.io/name": "${APP}" } } }, ...resources.slice(1)] }), withPodCidr),
      'objects.resources[0].metadata.labels["app.kubernetes.io/name"] uses the unknown variable ${APP}',
    ],
    ["an unterminated placeholder", input({ clusterClass: { name: "${CLUSTER_NAME" } }), 'clusterClass.name has the malformed placeholder "${CLUSTER_NAME"'],
    ["a placeholder with a default", input({ clusterClass: { name: "${NAME:=x}" } }), 'clusterClass.name has the malformed placeholder "${NAME:=x}"'],
    ["an empty placeholder", input({ clusterClass: { name: "a${}" } }), 'clusterClass.name has the malformed placeholder "${}"'],
    ["the version without a version", input({ objects: devObjects() }, { ...withPodCidr, kubernetesVersion: undefined }), "objects.resources[1].spec.version uses ${KUBERNETES_VERSION}, and the cluster has no Kubernetes version"],
    ["a ClusterClass without a version", input(IN_MEMORY, { kubernetesVersion: undefined }), "a ClusterClass template needs a Kubernetes version for topology.version, and the cluster has none"],
    ["a bad version", input(IN_MEMORY, { kubernetesVersion: "1.34" }), 'Kubernetes version "1.34" is not a full version'],
    ["a bad version with objects", input(objects({}), { ...withPodCidr, kubernetesVersion: "latest" }), 'Kubernetes version "latest" is not a full version'],
    ["a resource without apiVersion", input(objects({ resources: [{ ...resources[0], apiVersion: undefined }, ...resources.slice(1)] }), withPodCidr), "objects.resources[0].apiVersion is missing"],
    ["a resource with an empty kind", input(objects({ resources: [...resources, { apiVersion: "v1", kind: "", metadata: { name: "x" } }] }), withPodCidr), 'objects.resources[3].kind must be a non-empty string, not ""'],
    ["a resource without metadata", input(objects({ resources: [...resources, { apiVersion: "v1", kind: "ConfigMap" }] }), withPodCidr), "objects.resources[3].metadata is missing: every resource needs metadata.name"],
    [
      "a resource with generateName only",
      input(objects({ resources: [...resources, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "x-" } }] }), withPodCidr),
      "objects.resources[3].metadata.name is missing",
    ],
    ["a name that substitutes to nothing", input(objects({ resources: [...resources, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${EMPTY}" } }] }), { variables: { POD_CIDR: "x", EMPTY: "" } }), 'objects.resources[3].metadata.name must be a non-empty string, not ""'],
    ["a resource that is not an object", input(objects({ resources: [...resources, "kind: ConfigMap" as unknown as Record<string, unknown>] }), withPodCidr), "objects.resources[3] must be a Kubernetes object with apiVersion, kind and metadata.name"],
    ["a label that is no string", input(objects({ resources: [...resources, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: { tier: 2 } } }] }), withPodCidr), "objects.resources[3].metadata.labels.tier must be a string, not 2: quote it"],
    [
      "a reference to no resource",
      input(objects({ infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DevCluster", name: "other" } }), withPodCidr),
      'objects.infrastructureRef names DevCluster "other", which is not in objects.resources: add it there or correct the reference',
    ],
    [
      "a control-plane reference to no resource",
      input(objects({ resources: resources.filter((resource) => resource["kind"] !== "KubeadmControlPlane") }), withPodCidr),
      'objects.controlPlaneRef names KubeadmControlPlane "c1-control-plane", which is not in objects.resources',
    ],
    [
      "a reference in another group",
      input(objects({ infrastructureRef: { apiGroup: "infrastructure.example.com", kind: "DevCluster", name: "${CLUSTER_NAME}" } }), withPodCidr),
      'objects.infrastructureRef.apiGroup is "infrastructure.example.com", but objects.resources[0] has apiVersion "infrastructure.cluster.x-k8s.io/v1beta2": make them agree',
    ],
    [
      "a v1beta1 reference",
      input(objects({ infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2", kind: "DevCluster", name: "c1" } as never }), withPodCidr),
      "objects.infrastructureRef.apiVersion is not a field of a Cluster API v1beta2 reference (fields: apiGroup, kind, name)",
    ],
    ["no infrastructure reference", input(objects({ infrastructureRef: undefined }), withPodCidr), "objects.infrastructureRef is missing"],
    ["no resources", input(objects({ resources: undefined }), withPodCidr), "objects.resources is missing"],
    [
      "a Cluster among the resources",
      input(objects({ resources: [...resources, { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", metadata: { name: "${CLUSTER_NAME}" } }] }), withPodCidr),
      "objects.resources[3] is a Cluster API Cluster, which is rendered from the template itself: remove it and set infrastructureRef, controlPlaneRef and clusterNetwork instead",
    ],
    [
      "a v1beta1 Cluster among the resources",
      input(objects({ resources: [...resources, { apiVersion: "cluster.x-k8s.io/v1beta1", kind: "Cluster", metadata: { name: "x" } }] }), withPodCidr),
      "objects.resources[3] is a Cluster API Cluster",
    ],
    [
      "the same kind and name twice, once through a variable",
      input(objects({ resources: [...resources, { apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2", kind: "DevMachineTemplate", metadata: { name: "c1-control-plane" } }] }), withPodCidr),
      'objects.resources[3] is DevMachineTemplate "c1-control-plane" again, as objects.resources[2] is: give each resource of a kind its own name',
    ],
    ["negative control-plane replicas", input({ clusterClass: { name: "x", controlPlane: { replicas: -1 } } }), "clusterClass.controlPlane.replicas must be a non-negative integer, not -1"],
    ["fractional worker replicas", input({ clusterClass: { name: "x", workers: { machineDeployments: [{ class: "w", name: "md-0", replicas: 1.5 }] } } }), "clusterClass.workers.machineDeployments[0].replicas must be a non-negative integer, not 1.5"],
    ["replicas as a string", input({ clusterClass: { name: "x", workers: { machinePools: [{ class: "w", name: "mp-0", replicas: "3" as never }] } } }), 'clusterClass.workers.machinePools[0].replicas must be a non-negative integer, not "3"'],
    ["replicas beyond int32", input({ clusterClass: { name: "x", controlPlane: { replicas: 2 ** 31 } } }), "clusterClass.controlPlane.replicas must be a non-negative integer, not 2147483648"],
    ["a worker without class", input({ clusterClass: { name: "x", workers: { machineDeployments: [{ name: "md-0" } as never] } } }), "clusterClass.workers.machineDeployments[0].class is missing"],
    [
      "two machine deployments of one name",
      input({ clusterClass: { name: "x", workers: { machineDeployments: [{ class: "a", name: "md-0" }, { class: "b", name: "md-0" }] } } }),
      'clusterClass.workers.machineDeployments[1].name "md-0" is already used by clusterClass.workers.machineDeployments[0]: machine deployment names must be unique',
    ],
    [
      "a topology variable set twice",
      input({ clusterClass: { name: "x", variables: [{ name: "a", value: 1 }, { name: "a", value: 2 }] } }),
      'clusterClass.variables[1].name "a" is already used by clusterClass.variables[0]: topology variables must be unique',
    ],
    ["a topology variable without value", input({ clusterClass: { name: "x", variables: [{ name: "a" } as never] } }), "clusterClass.variables[0].value is missing"],
    ["a ClusterClass without name", input({ clusterClass: {} as never }), "clusterClass.name is missing"],
    ["an empty class namespace", input({ clusterClass: { name: "x", namespace: "" } }), 'clusterClass.namespace must be a non-empty string, not ""'],
    ["a misspelt field", input({ clusterClass: { name: "x", controlplane: { replicas: 1 } } as never }), "clusterClass.controlplane is not a field of a ClusterClass template"],
    ["both kinds of template", input({ clusterClass: { name: "x" }, objects: devObjects() }, withPodCidr), "the template has both clusterClass and objects: keep one"],
    ["neither kind of template", input({} as never), "the template needs either clusterClass or objects"],
    ["a template that is no object", input("clusterClass: x" as never), "the template must be an object with either clusterClass or objects"],
    ["a variable redefining a built-in", input(IN_MEMORY, { variables: { NAMESPACE: "other" } }), "variable NAMESPACE is set from the cluster and cannot be redefined: rename it"],
    ["a variable that cannot be named", input(IN_MEMORY, { variables: { "pod-cidr": "x" } }), 'variable name "pod-cidr" cannot be used in ${...}: use letters, digits and _, not starting with a digit'],
  ])("for %s", (_case, rendering, message) => {
    const found = problems(rendering);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
    expect(() => renderClusterApiObjects(rendering)).toThrow(message);
  });

  it("lists every problem at once", () => {
    const rendering = input({ clusterClass: { name: "${A}", controlPlane: { replicas: -1 }, workers: { machineDeployments: [{ class: "${B}", name: "md-0" }] } } }, { kubernetesVersion: undefined });
    expect(problems(rendering)).toEqual([
      "clusterClass.name uses the unknown variable ${A}: define A (known: CLUSTER_NAME, NAMESPACE), or write $${A} for a literal ${A}",
      "clusterClass.workers.machineDeployments[0].class uses the unknown variable ${B}: define B (known: CLUSTER_NAME, NAMESPACE), or write $${B} for a literal ${B}",
      "clusterClass.controlPlane.replicas must be a non-negative integer, not -1",
    ]);
    expect(() => renderClusterApiObjects(rendering)).toThrow(/^the cluster template has 3 problems: clusterClass\.name uses/);
  });

  it("is an Error named ClusterTemplateError", () => {
    const error = new ClusterTemplateError(["x"]);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ClusterTemplateError");
    expect(error.message).toBe("x");
  });
});

describe("validateClusterTemplate", () => {
  it("finds nothing wrong with good templates", () => {
    expect(validateClusterTemplate(IN_MEMORY)).toEqual([]);
    expect(validateClusterTemplate({ objects: devObjects() }, ["POD_CIDR"])).toEqual([]);
  });

  it("reports variables not among those given", () => {
    expect(validateClusterTemplate({ objects: devObjects() })).toEqual([
      "objects.clusterNetwork.pods.cidrBlocks[0] uses the unknown variable ${POD_CIDR}: define POD_CIDR (known: CLUSTER_NAME, NAMESPACE, KUBERNETES_VERSION), or write $${POD_CIDR} for a literal ${POD_CIDR}",
    ]);
  });

  it("matches references and names as written", () => {
    const template = devObjects();
    template.infrastructureRef = { ...template.infrastructureRef, name: "$${CLUSTER_NAME}" };
    expect(validateClusterTemplate({ objects: template }, ["POD_CIDR"])).toEqual([
      'objects.infrastructureRef names DevCluster "$${CLUSTER_NAME}", which is not in objects.resources: add it there or correct the reference',
    ]);
    template.infrastructureRef = devObjects().infrastructureRef;
    template.resources.push({ ...structuredClone(template.resources[0]) });
    expect(validateClusterTemplate({ objects: template }, ["POD_CIDR"])).toEqual([
      'objects.resources[3] is DevCluster "${CLUSTER_NAME}" again, as objects.resources[0] is: give each resource of a kind its own name',
    ]);
  });

  it("reports malformed templates and variable names", () => {
    expect(validateClusterTemplate(null)).toEqual(["the template must be an object with either clusterClass or objects"]);
    expect(validateClusterTemplate({ clusterClass: { name: "x", workers: [] } }, ["CLUSTER_NAME", "ok_1"])).toEqual([
      "variable CLUSTER_NAME is set from the cluster and cannot be redefined: rename it",
      "clusterClass.workers must be an object with machineDeployments and/or machinePools",
    ]);
  });
});
