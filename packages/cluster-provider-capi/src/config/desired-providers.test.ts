import { describe, expect, it } from "@jest/globals";
import type { ProviderConfigV1alpha1Providers } from "@edgeconnect/capi-provider-api";
import {
  declaredByLabel,
  declaredProviders,
  declaringConfigs,
  defaultProviderNamespace,
  operatorProviderObject,
  providerConflicts,
  providerKey,
  type ConfigDeclarations,
  type DeclaredProvider,
  type OperatorProviderKind,
} from "./desired-providers.js";

const API_VERSION = "operator.cluster.x-k8s.io/v1alpha2";
const PREFIX = "config.capi.clusters.openmcp.cloud/";

function config(name: string, providers: ProviderConfigV1alpha1Providers | undefined): ConfigDeclarations {
  return {
    metadata: { name },
    spec: {
      providerRef: { name: "capi" },
      ...(providers === undefined ? {} : { providers }),
      kubernetesVersions: [{ version: "1.34.1" }],
      template: { clusterClass: { name: "quick-start" } },
    },
  };
}

const AWS = { name: "aws", version: "v2.9.2" };

describe("defaultProviderNamespace", () => {
  it.each<[OperatorProviderKind, string, string]>([
    ["InfrastructureProvider", "aws", "aws-infrastructure-system"],
    ["BootstrapProvider", "kubeadm", "kubeadm-bootstrap-system"],
    ["ControlPlaneProvider", "kubeadm", "kubeadm-control-plane-system"],
  ])("%s %s → %s", (kind, name, namespace) => {
    expect(defaultProviderNamespace(kind, name)).toBe(namespace);
  });
});

describe("declaredProviders", () => {
  it("lists infrastructure, bootstrap and control plane providers in that order, with default namespaces", () => {
    const providers = {
      controlPlane: [{ name: "kubeadm", version: "v1.14.2" }],
      bootstrap: [{ name: "kubeadm", version: "v1.14.2" }],
      infrastructure: [AWS, { name: "docker", namespace: "capd", version: "v1.14.2" }],
    };
    const expected: DeclaredProvider[] = [
      { kind: "InfrastructureProvider", name: "aws", namespace: "aws-infrastructure-system", declaration: AWS },
      { kind: "InfrastructureProvider", name: "docker", namespace: "capd", declaration: { name: "docker", namespace: "capd", version: "v1.14.2" } },
      { kind: "BootstrapProvider", name: "kubeadm", namespace: "kubeadm-bootstrap-system", declaration: { name: "kubeadm", version: "v1.14.2" } },
      { kind: "ControlPlaneProvider", name: "kubeadm", namespace: "kubeadm-control-plane-system", declaration: { name: "kubeadm", version: "v1.14.2" } },
    ];
    expect(declaredProviders(config("eks", providers))).toEqual(expected);
  });

  it.each<[string, ProviderConfigV1alpha1Providers | undefined]>([
    ["no providers field", undefined],
    ["empty providers", {}],
    ["empty lists", { infrastructure: [], bootstrap: [], controlPlane: [] }],
  ])("is empty for %s", (_case, providers) => {
    expect(declaredProviders(config("c", providers))).toEqual([]);
  });

  it("hands the declaration itself on", () => {
    const declaration = { ...AWS, manager: { verbosity: 2 } };
    expect(declaredProviders(config("c", { infrastructure: [declaration] }))[0]?.declaration).toBe(declaration);
  });
});

describe("providerKey", () => {
  it("tells kinds of one name apart", () => {
    expect(providerKey({ kind: "BootstrapProvider", name: "kubeadm" })).toBe("BootstrapProvider/kubeadm");
    expect(providerKey({ kind: "ControlPlaneProvider", name: "kubeadm" })).toBe("ControlPlaneProvider/kubeadm");
  });
});

describe("operatorProviderObject", () => {
  it("has the managed-by and the config's declared-by labels and only the version when nothing else is declared", () => {
    const [provider] = declaredProviders(config("eks", { infrastructure: [AWS] }));
    expect(operatorProviderObject(provider as DeclaredProvider, "eks", API_VERSION)).toEqual({
      apiVersion: API_VERSION,
      kind: "InfrastructureProvider",
      metadata: {
        name: "aws",
        namespace: "aws-infrastructure-system",
        labels: { "app.kubernetes.io/managed-by": "cluster-provider-capi", [`${PREFIX}eks`]: "" },
      },
      spec: { version: "v2.9.2" },
    });
  });

  it("carries fetchConfig, configSecret and the manager's fields, and never the declaration's name or namespace", () => {
    const declaration = {
      name: "kubeadm",
      namespace: "capi-kubeadm",
      version: "v1.14.2",
      fetchConfig: { selector: { matchLabels: { "provider.cluster.x-k8s.io/name": "kubeadm" } } },
      configSecret: { name: "kubeadm-vars", namespace: "capi-secrets" },
      manager: { featureGates: { MachinePool: true }, additionalArgs: { "--v": "4" }, verbosity: 3 },
    };
    const [provider] = declaredProviders(config("kubeadm-profile", { controlPlane: [declaration] }));
    expect(operatorProviderObject(provider as DeclaredProvider, "kubeadm-profile", API_VERSION)).toEqual({
      apiVersion: API_VERSION,
      kind: "ControlPlaneProvider",
      metadata: {
        name: "kubeadm",
        namespace: "capi-kubeadm",
        labels: { "app.kubernetes.io/managed-by": "cluster-provider-capi", [`${PREFIX}kubeadm-profile`]: "" },
      },
      spec: {
        version: "v1.14.2",
        fetchConfig: { selector: { matchLabels: { "provider.cluster.x-k8s.io/name": "kubeadm" } } },
        configSecret: { name: "kubeadm-vars", namespace: "capi-secrets" },
        manager: { featureGates: { MachinePool: true }, additionalArgs: { "--v": "4" }, verbosity: 3 },
      },
    });
  });

  it("carries the deployment (mirrored images), patches and additional manifests as declared", () => {
    const deployment = {
      replicas: 2,
      nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
      tolerations: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
      containers: [{ name: "manager", imageUrl: "registry.internal/capa/manager:v2.9.2", args: { "--sync-period": "5m" }, env: [{ name: "HTTPS_PROXY", value: "http://proxy:3128" }] }],
      imagePullSecrets: [{ name: "registry-internal" }],
    };
    const patches = [{ patch: "- op: add\n  path: /metadata/labels/team\n  value: platform\n", target: { group: "apps", version: "v1", kind: "Deployment", name: "capa-controller-manager" } }];
    const additionalManifests = { name: "capa-extras", namespace: "capa-system" };
    const [provider] = declaredProviders(config("eks", { infrastructure: [{ ...AWS, deployment, patches, additionalManifests }] }));
    const object = operatorProviderObject(provider as DeclaredProvider, "eks", API_VERSION) as { spec: Record<string, unknown> };
    expect(object.spec).toEqual({ version: "v2.9.2", deployment, patches, additionalManifests });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["featureGates only", { featureGates: { ClusterTopology: true } }, { featureGates: { ClusterTopology: true } }],
    ["additionalArgs only", { additionalArgs: { "--sync-period": "5m" } }, { additionalArgs: { "--sync-period": "5m" } }],
    ["verbosity 0", { verbosity: 0 }, { verbosity: 0 }],
    ["an empty manager", {}, {}],
  ])("writes a manager with %s and no absent fields", (_case, manager, expected) => {
    const [provider] = declaredProviders(config("c", { bootstrap: [{ name: "kubeadm", version: "v1.14.2", manager }] }));
    const object = operatorProviderObject(provider as DeclaredProvider, "c", API_VERSION) as { spec: Record<string, unknown> };
    expect(object.spec).toEqual({ version: "v1.14.2", manager: expected });
    expect(Object.keys(object.spec.manager as object)).toEqual(Object.keys(expected));
  });

  it("labels the object with the config that applies it, not one the declaration came from", () => {
    const [provider] = declaredProviders(config("first", { infrastructure: [AWS] }));
    const object = operatorProviderObject(provider as DeclaredProvider, "second", API_VERSION) as { metadata: { labels: Record<string, string> } };
    expect(Object.keys(object.metadata.labels)).toEqual(["app.kubernetes.io/managed-by", `${PREFIX}second`]);
  });
});

describe("declaredByLabel and declaringConfigs", () => {
  it("reads back the configs whose labels are on an object", () => {
    expect(declaredByLabel("eks")).toBe(`${PREFIX}eks`);
    expect(
      declaringConfigs({
        "app.kubernetes.io/managed-by": "cluster-provider-capi",
        [declaredByLabel("eks")]: "",
        [declaredByLabel("eks-large")]: "",
        "config.capi.clusters.openmcp.cloud.other/x": "",
        "capi.clusters.openmcp.cloud/cluster-name": "c",
      }),
    ).toEqual(["eks", "eks-large"]);
  });

  it.each<[string, Record<string, string> | undefined]>([
    ["no labels", undefined],
    ["empty labels", {}],
    ["only the managed-by label", { "app.kubernetes.io/managed-by": "cluster-provider-capi" }],
  ])("is empty for %s", (_case, labels) => {
    expect(declaringConfigs(labels)).toEqual([]);
  });
});

describe("providerConflicts", () => {
  it("finds none when another config declares the provider identically", () => {
    expect(providerConflicts(config("b", { infrastructure: [AWS] }), [config("a", { infrastructure: [{ ...AWS }] })])).toEqual([]);
  });

  it("finds none when the key order of the declarations differs", () => {
    const mine = config("b", {
      infrastructure: [{ name: "aws", version: "v2.9.2", manager: { featureGates: { MachinePool: true, EKS: false }, verbosity: 2 }, configSecret: { name: "s", namespace: "n" } }],
    });
    const theirs = config("a", {
      infrastructure: [{ configSecret: { namespace: "n", name: "s" }, manager: { verbosity: 2, featureGates: { EKS: false, MachinePool: true } }, version: "v2.9.2", name: "aws" }],
    });
    expect(providerConflicts(mine, [theirs])).toEqual([]);
  });

  it("finds none when one config names the default namespace and the other leaves it out", () => {
    const mine = config("b", { infrastructure: [AWS] });
    const theirs = config("a", { infrastructure: [{ ...AWS, namespace: "aws-infrastructure-system" }] });
    expect(providerConflicts(mine, [theirs])).toEqual([]);
    expect(providerConflicts(theirs, [mine])).toEqual([]);
  });

  it.each<[string, Record<string, unknown>]>([
    ["version", { version: "v2.10.0" }],
    ["namespace", { namespace: "capa-system" }],
    ["featureGates", { manager: { featureGates: { MachinePool: true } } }],
    ["verbosity", { manager: { verbosity: 4 } }],
    ["fetchConfig", { fetchConfig: { url: "https://mirror.example/aws" } }],
    ["configSecret", { configSecret: { name: "aws-credentials" } }],
  ])("a different %s conflicts for the config that sorts later; the earlier wins", (_case, difference) => {
    const early = config("eks-a", { infrastructure: [AWS] });
    const late = config("eks-b", { infrastructure: [{ ...AWS, ...difference }] });
    const [lateAws] = declaredProviders(late);
    expect(providerConflicts(late, [early])).toEqual([{ provider: lateAws, winner: "eks-a" }]);
    expect(providerConflicts(early, [late])).toEqual([]);
  });

  it("compares by name, not by the order of the others", () => {
    const mine = config("m", { infrastructure: [AWS] });
    const others = [config("z", { infrastructure: [{ ...AWS, version: "v1.0.0" }] }), config("c", { infrastructure: [{ ...AWS, version: "v3.0.0" }] }), config("b", { infrastructure: [{ ...AWS, version: "v2.0.0" }] })];
    expect(providerConflicts(mine, others).map((c) => c.winner)).toEqual(["b"]);
    expect(providerConflicts(mine, [...others].reverse()).map((c) => c.winner)).toEqual(["b"]);
  });

  it("lets a feature gate's value matter, not only its presence", () => {
    const early = config("a", { infrastructure: [{ ...AWS, manager: { featureGates: { MachinePool: true } } }] });
    const late = config("b", { infrastructure: [{ ...AWS, manager: { featureGates: { MachinePool: false } } }] });
    expect(providerConflicts(late, [early]).map((c) => c.winner)).toEqual(["a"]);
  });

  it("does not compare providers of another kind that share the name", () => {
    const mine = config("b", { bootstrap: [{ name: "kubeadm", version: "v1.14.2" }] });
    const theirs = config("a", { controlPlane: [{ name: "kubeadm", version: "v1.13.0" }] });
    expect(providerConflicts(mine, [theirs])).toEqual([]);
  });

  it("reports each conflicting provider once and leaves the agreeing ones out", () => {
    const mine = config("b", {
      infrastructure: [AWS, { name: "docker", version: "v1.14.2" }],
      bootstrap: [{ name: "kubeadm", version: "v1.14.2" }],
    });
    const theirs = config("a", {
      infrastructure: [{ ...AWS, version: "v2.8.0" }, { name: "docker", version: "v1.14.2" }],
      bootstrap: [{ name: "kubeadm", version: "v1.13.0" }],
    });
    expect(providerConflicts(mine, [theirs]).map((c) => [providerKey(c.provider), c.winner])).toEqual([
      ["InfrastructureProvider/aws", "a"],
      ["BootstrapProvider/kubeadm", "a"],
    ]);
  });

  it("ignores configs that do not declare the provider and itself among the others", () => {
    const mine = config("b", { infrastructure: [AWS] });
    expect(providerConflicts(mine, [config("a", { infrastructure: [{ name: "gcp", version: "v1.0.0" }] }), config("a2", undefined), config("b", { infrastructure: [{ ...AWS, version: "v0.1.0" }] })])).toEqual([]);
  });

  it("finds none without other configs or without providers", () => {
    expect(providerConflicts(config("b", { infrastructure: [AWS] }), [])).toEqual([]);
    expect(providerConflicts(config("b", undefined), [config("a", { infrastructure: [AWS] })])).toEqual([]);
  });
});

describe("providerConflicts with three configs", () => {
  it("names the config that owns the object, the earliest declaring it, not the first that differs", () => {
    const a = config("a", { infrastructure: [{ ...AWS, version: "v2.0.0" }] });
    const b = config("b", { infrastructure: [{ ...AWS, version: "v1.0.0" }] });
    const c = config("c", { infrastructure: [{ ...AWS, version: "v2.0.0" }] });
    expect(providerConflicts(c, [a, b])).toEqual([]);
    expect(providerConflicts(b, [a, c]).map((conflict) => conflict.winner)).toEqual(["a"]);
  });

  it("takes an empty namespace for the default one, as the CRD documents", () => {
    expect(declaredProviders(config("a", { infrastructure: [{ ...AWS, namespace: "" }] }))[0]?.namespace).toBe("aws-infrastructure-system");
  });
});
