import { describe, expect, it } from "@jest/globals";
import type { OtcCredentials } from "../credentials/credential-parsing.js";
import {
  CLUSTER_V3,
  EIP_V1,
  KEYPAIR_V2,
  MANAGED_RESOURCE_KINDS,
  NODE_POOL_V3,
  CROSSPLANE_PROVIDER_CONFIG,
  renderCluster,
  renderCredentialsSecret,
  renderCrossplaneProviderConfig,
  renderEip,
  renderKeypair,
  renderNodePool,
  renderSubnet,
  renderVpc,
  SUBNET_V1,
  VPC_V1,
  type ManagedResourceInput,
} from "./managed-resources.js";

const META: ManagedResourceInput = {
  metadata: { name: "mr", namespace: "kcp-0123456789ab", labels: { "platform.edgeconnect.eu/tenant": "0123456789ab" } },
  providerConfigName: "pc",
  name: "otc-name",
};

/** Every key anywhere in `value`, for checks such as "no *Ref keys". */
function keys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keys);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [key, ...keys(child)]);
}

const CLUSTER_INPUT = {
  ...META,
  region: "eu-de",
  vpcId: "vpc-1",
  subnetNetworkId: "network-1",
  eipAddress: "80.158.1.2",
  kubernetesVersion: "1.31",
};

const NODE_POOL_INPUT = {
  ...META,
  clusterId: "cluster-uuid",
  keypairName: "otc-keypair",
  flavor: "s3.xlarge.4",
  nodeCount: 3,
  availabilityZone: "random",
  nodeDiskGiB: 100,
};

const RENDERED = [
  ["VpcV1", renderVpc({ ...META, region: "eu-de" })],
  ["SubnetV1", renderSubnet({ ...META, region: "eu-de", vpcId: "vpc-1" })],
  ["EIPV1", renderEip({ ...META, region: "eu-de" })],
  ["KeypairV2", renderKeypair({ ...META, region: "eu-de", publicKey: "ssh-rsa AAAA" })],
  ["ClusterV3", renderCluster(CLUSTER_INPUT)],
  ["NodePoolV3", renderNodePool(NODE_POOL_INPUT)],
] as const;

describe("group-version-kinds", () => {
  it.each([
    [VPC_V1, "vpc.opentelekomcloud.m.crossplane.io/v1alpha1", "VpcV1", "vpcv1s"],
    [SUBNET_V1, "vpc.opentelekomcloud.m.crossplane.io/v1alpha1", "SubnetV1", "subnetv1s"],
    [EIP_V1, "vpc.opentelekomcloud.m.crossplane.io/v1alpha1", "EIPV1", "eipv1s"],
    [KEYPAIR_V2, "compute.opentelekomcloud.m.crossplane.io/v1alpha1", "KeypairV2", "keypairv2s"],
    [CLUSTER_V3, "cce.opentelekomcloud.m.crossplane.io/v1alpha1", "ClusterV3", "clusterv3s"],
    [NODE_POOL_V3, "cce.opentelekomcloud.m.crossplane.io/v1alpha1", "NodePoolV3", "nodepoolv3s"],
    [CROSSPLANE_PROVIDER_CONFIG, "opentelekomcloud.m.crossplane.io/v1beta1", "ProviderConfig", "providerconfigs"],
  ])("%j", (gvk, apiVersion, kind, plural) => {
    expect(gvk).toMatchObject({ apiVersion, kind, plural, namespaced: true });
  });

  it("lists the managed resources children first", () => {
    expect(MANAGED_RESOURCE_KINDS.map((k) => k.kind)).toEqual(["NodePoolV3", "ClusterV3", "KeypairV2", "EIPV1", "SubnetV1", "VpcV1"]);
  });
});

describe("managed resources", () => {
  it.each(RENDERED)("%s has the common shape and no references", (kind, resource) => {
    expect(resource.kind).toBe(kind);
    expect(resource.metadata).toEqual(META.metadata);
    expect(resource.spec.providerConfigRef).toEqual({ kind: "ProviderConfig", name: "pc" });
    expect(keys(resource).filter((key) => /(?:Ref|Refs|Selector)$/.test(key) && key !== "providerConfigRef")).toEqual([]);
  });

  it("copies labels and annotations instead of sharing them", () => {
    const labels = { a: "1" };
    const vpc = renderVpc({ ...META, metadata: { ...META.metadata, labels, annotations: { b: "2" } }, region: "eu-de" });
    labels.a = "changed";
    expect(vpc.metadata).toMatchObject({ labels: { a: "1" }, annotations: { b: "2" } });
  });

  it("renders the network with defaults or given values", () => {
    expect(renderVpc({ ...META, region: "eu-de" }).spec.forProvider).toEqual({ name: "otc-name", cidr: "192.168.0.0/16", region: "eu-de" });
    expect(renderSubnet({ ...META, region: "eu-nl", vpcId: "vpc-1" }).spec.forProvider).toEqual({
      name: "otc-name",
      cidr: "192.168.0.0/24",
      gatewayIp: "192.168.0.1",
      vpcId: "vpc-1",
      region: "eu-nl",
    });
    expect(renderSubnet({ ...META, region: "eu-de", vpcId: "v", cidr: "10.0.1.0/24", gatewayIp: "10.0.1.1", availabilityZone: "eu-de-01" }).spec.forProvider).toMatchObject({
      cidr: "10.0.1.0/24",
      gatewayIp: "10.0.1.1",
      availabilityZone: "eu-de-01",
    });
  });

  it("renders the EIP and key pair", () => {
    expect(renderEip({ ...META, region: "eu-de", bandwidthMbit: 20 }).spec.forProvider).toEqual({
      publicip: [{ type: "5_bgp", name: "otc-name" }],
      bandwidth: [{ name: "otc-name", shareType: "PER", size: 20, chargeMode: "traffic" }],
      region: "eu-de",
    });
    expect(renderKeypair({ ...META, region: "eu-de", publicKey: "ssh-rsa AAAA" }).spec.forProvider).toEqual({ name: "otc-name", publicKey: "ssh-rsa AAAA", region: "eu-de" });
  });

  it("renders the CCE cluster with literal ids, the subnet's network id and the EIP address", () => {
    expect(renderCluster(CLUSTER_INPUT).spec.forProvider).toEqual({
      name: "otc-name",
      clusterType: "VirtualMachine",
      flavorId: "cce.s1.small",
      clusterVersion: "v1.31",
      containerNetworkType: "vpc-router",
      authenticationMode: "rbac",
      vpcId: "vpc-1",
      subnetId: "network-1",
      eip: "80.158.1.2",
      ignoreCertificateUsersData: true,
      deleteEvs: "try",
      deleteNet: "try",
      deleteObs: "try",
      deleteSfs: "try",
      deleteEfs: "try",
      region: "eu-de",
    });
  });

  it.each([
    ["a control-plane zone", { availableZone: "eu-de-02" }, { masters: [{ availabilityZone: "eu-de-02" }] }],
    ["another cluster flavor", { flavorId: "cce.s2.small" }, { flavorId: "cce.s2.small" }],
    ["a full version", { kubernetesVersion: "v1.30.14-r12" }, { clusterVersion: "v1.30.14-r12" }],
    ["a version without v", { kubernetesVersion: "1.28.0" }, { clusterVersion: "v1.28.0" }],
  ])("renders the CCE cluster with %s", (_case, overrides, expected) => {
    expect(renderCluster({ ...CLUSTER_INPUT, ...overrides }).spec.forProvider).toMatchObject(expected);
  });

  it("refuses a Kubernetes version CCE cannot read", () => {
    expect(() => renderCluster({ ...CLUSTER_INPUT, kubernetesVersion: "latest" })).toThrow(/not of the form vX.Y/);
  });

  it("renders the node pool with the literal cluster id and key pair name", () => {
    const forProvider = renderNodePool(NODE_POOL_INPUT).spec.forProvider;
    expect(forProvider).toEqual({
      name: "otc-name",
      clusterId: "cluster-uuid",
      flavor: "s3.xlarge.4",
      initialNodeCount: 3,
      availabilityZone: "random",
      keyPair: "otc-keypair",
      os: "HCE OS 2.0",
      runtime: "containerd",
      rootVolume: [{ size: 50, volumetype: "SSD" }],
      dataVolumes: [{ size: 100, volumetype: "SSD" }],
    });
  });
});

describe("provider config and credentials", () => {
  const NAMESPACE = "kcp-0123456789ab";
  const PROVIDER_CONFIG = {
    apiVersion: "opentelekomcloud.m.crossplane.io/v1beta1",
    kind: "ProviderConfig",
    metadata: { name: "pc", namespace: NAMESPACE, labels: { a: "1" } },
    spec: { credentials: { source: "Secret", secretRef: { namespace: NAMESPACE, name: "pc-secret", key: "credentials" } } },
  };

  it.each([
    ["metadata", () => renderCrossplaneProviderConfig({ name: "pc", namespace: NAMESPACE, labels: { a: "1" } }, "pc-secret")],
    ["namespace and name", () => renderCrossplaneProviderConfig(NAMESPACE, "pc", "pc-secret", { a: "1" })],
  ])("points a namespaced ProviderConfig at the Secret next to it, given %s", (_case, render) => {
    expect(render()).toEqual(PROVIDER_CONFIG);
  });

  it("keeps annotations given with the metadata", () => {
    expect(renderCrossplaneProviderConfig({ name: "pc", namespace: NAMESPACE, labels: {}, annotations: { b: "2" } }, "s").metadata.annotations).toEqual({ b: "2" });
    expect(renderCrossplaneProviderConfig(NAMESPACE, "pc", "s").metadata).toEqual({ name: "pc", namespace: NAMESPACE, labels: {} });
  });

  const PASSWORD: OtcCredentials = { mode: "password", authUrl: "https://iam/v3", userName: "u", password: "p", domainName: "d", projectName: "eu-de", region: "eu-de" };
  const ACCESS_KEY: OtcCredentials = { mode: "accessKey", authUrl: "https://iam/v3", accessKey: "a", secretKey: "s", region: "eu-de", projectName: "eu-de_x" };

  it.each<[string, () => ReturnType<typeof renderCredentialsSecret>, Record<string, string>]>([
    [
      "password credentials, given metadata",
      () => renderCredentialsSecret({ name: "pc-secret", namespace: NAMESPACE, labels: { a: "1" } }, PASSWORD),
      { auth_url: "https://iam/v3", user_name: "u", password: "p", domain_name: "d", tenant_name: "eu-de", region: "eu-de" },
    ],
    [
      "access-key credentials, given namespace and name",
      () => renderCredentialsSecret(NAMESPACE, "pc-secret", ACCESS_KEY, { a: "1" }),
      { access_key: "a", secret_key: "s", auth_url: "https://iam/v3", region: "eu-de", tenant_name: "eu-de_x" },
    ],
  ])("writes %s as the provider's JSON under key credentials", (_case, render, expected) => {
    const secret = render();
    expect(secret).toMatchObject({ apiVersion: "v1", kind: "Secret", type: "Opaque", metadata: { name: "pc-secret", namespace: NAMESPACE, labels: { a: "1" } } });
    expect(Object.keys(secret.data)).toEqual(["credentials"]);
    expect(JSON.parse(Buffer.from(secret.data["credentials"] ?? "", "base64").toString())).toEqual(expected);
  });
});
