import { describe, expect, it } from "@jest/globals";
import { fingerprint } from "@edgeconnect/kcp-ts/logical-cluster";
import { clusterObjectNames, isDnsLabel, isDnsSubdomain } from "./object-names.js";

const CCE_CLUSTER_NAME = /^[a-z][a-z0-9-]{2,126}[a-z0-9]$/;
const CCE_NODE_POOL_NAME = /^[a-z](?:[a-z0-9-]{0,48}[a-z0-9])?$/;

/** Every name one KubernetesCluster gets, for checks that hold for all. */
function allNames(namespace: string, name: string, cluster?: string): { infrastructure: string[]; otc: string[] } {
  const names = clusterObjectNames(namespace, name, cluster);
  return {
    infrastructure: [
      names.base,
      names.vpc,
      names.subnet,
      names.eip,
      names.keypair,
      names.cluster,
      names.nodePool("s3.xlarge.4", "eu-de-01"),
      names.nodePool("c4.15xlarge.2", "random"),
      names.providerConfig(namespace, "otc"),
      names.credentialsSecret(namespace, "otc"),
      names.clusterApiCluster,
    ],
    otc: [names.otc.cluster, names.otc.vpc, names.otc.subnet, names.otc.eip, names.otc.keypair],
  };
}

const INPUTS: [string, string, string][] = [
  ["short", "default", "my-cluster"],
  ["longest namespace and name", "n".repeat(63), "m".repeat(253)],
  ["dotted name", "team-a", "prod.eu.example.com"],
  ["digits first", "1ns", "2name"],
  ["single characters", "a", "b"],
];

describe("clusterObjectNames", () => {
  it("derives readable names from namespace and name, with a hash of both", () => {
    const names = clusterObjectNames("default", "my-cluster");
    expect(names.base).toMatch(/^default-my-cluster-[0-9a-f]{8}$/);
    expect(names.vpc).toBe(`${names.base}-vpc`);
    expect(names.subnet).toBe(`${names.base}-subnet`);
    expect(names.eip).toBe(`${names.base}-eip`);
    expect(names.keypair).toBe(`${names.base}-keypair`);
    expect(names.cluster).toBe(`${names.base}-cluster`);
    expect(names.nodePool("s3.xlarge.4", "random")).toMatch(new RegExp(`^${names.base}-np-[0-9a-f]{8}$`));
    expect(names.kubeconfigSecret).toBe("my-cluster-kubeconfig");
    expect(names.clusterApiCluster).toMatch(/^default-my-cluster-[0-9a-f]{8}$/);
    expect(names.clusterApiCluster).not.toBe(names.base);
    expect(names.providerConfig("default", "otc")).toMatch(new RegExp(`^${names.base}-pc-[0-9a-f]{8}$`));
    expect(names.otc.cluster).toMatch(/^default-my-cluster-[0-9a-f]{8}$/);
    expect(names.otc.nodePool("s3.xlarge.4", "eu-de-01")).toMatch(/^s3-xlarge-4-eu-de-01-[0-9a-f]{8}$/);
  });

  it("is deterministic", () => {
    expect(allNames("default", "my-cluster", "root:a")).toEqual(allNames("default", "my-cluster", "root:a"));
  });

  it.each(INPUTS)("gives valid names for %s", (_case, namespace, name) => {
    const names = clusterObjectNames(namespace, name, "root:orgs:acme");
    const { infrastructure, otc } = allNames(namespace, name, "root:orgs:acme");
    for (const n of infrastructure) expect(isDnsLabel(n)).toBe(true);
    for (const n of otc) expect(n).toMatch(/^[a-z][a-z0-9-]*[a-z0-9]$/);
    for (const n of otc) expect(n.length).toBeLessThanOrEqual(63);
    expect(names.otc.cluster).toMatch(CCE_CLUSTER_NAME);
    for (const [flavor, zone] of [
      ["s3.xlarge.4", "eu-de-01"],
      ["9x.weird_flavor.name.that.is.very.long.indeed", "random"],
    ] as const) {
      expect(names.otc.nodePool(flavor, zone)).toMatch(CCE_NODE_POOL_NAME);
    }
    expect(isDnsSubdomain(names.kubeconfigSecret)).toBe(true);
    expect(names.clusterApiCluster.length).toBeLessThanOrEqual(40);
  });

  it.each([
    ["a-b", "c", "a", "b-c"],
    ["a", "b.c", "a", "b-c"],
    ["n".repeat(63), `${"m".repeat(200)}x`, "n".repeat(63), `${"m".repeat(200)}y`],
  ])("never gives %j/%j and %j/%j equal names", (ns1, name1, ns2, name2) => {
    const first = allNames(ns1, name1);
    const second = allNames(ns2, name2);
    for (const [i, n] of first.infrastructure.entries()) expect(n).not.toBe(second.infrastructure[i]);
    for (const [i, n] of first.otc.entries()) expect(n).not.toBe(second.otc[i]);
  });

  it("makes a new node pool for another flavor or zone", () => {
    const names = clusterObjectNames("default", "c");
    const pairs = [
      ["s3.xlarge.4", "eu-de-01"],
      ["s3.xlarge.4", "eu-de-02"],
      ["s3.2xlarge.4", "eu-de-01"],
      ["s3.xlarge.4", "random"],
    ] as const;
    expect(new Set(pairs.map(([flavor, zone]) => names.nodePool(flavor, zone))).size).toBe(pairs.length);
    expect(new Set(pairs.map(([flavor, zone]) => names.otc.nodePool(flavor, zone))).size).toBe(pairs.length);
  });

  it("keeps OTC names of different logical clusters apart, and infrastructure names the same", () => {
    const a = clusterObjectNames("default", "c", "root:a");
    const b = clusterObjectNames("default", "c", "root:b");
    expect(a.otc.cluster).not.toBe(b.otc.cluster);
    expect(a.otc.keypair).not.toBe(b.otc.keypair);
    expect(a.vpc).toBe(b.vpc);
  });

  it("gives one ProviderConfig per cluster and tenant ProviderConfig, its Secret named alike", () => {
    const a = clusterObjectNames("default", "a");
    const b = clusterObjectNames("default", "b");
    expect(a.providerConfig("default", "otc")).not.toBe(b.providerConfig("default", "otc"));
    expect(a.providerConfig("default", "otc")).not.toBe(a.providerConfig("default", "otc2"));
    expect(a.providerConfig("x-y", "z")).not.toBe(a.providerConfig("x", "y-z"));
    expect(a.credentialsSecret("default", "otc")).toBe(a.providerConfig("default", "otc"));
  });

  it("names two tenants' ProviderConfigs of the same names apart, since Crossplane counts their usages by name across namespaces", () => {
    const a = clusterObjectNames("default", "my-cluster", "root:a");
    const b = clusterObjectNames("default", "my-cluster", "root:b");
    expect(a.providerConfig("default", "my-provider")).not.toBe(b.providerConfig("default", "my-provider"));
    expect(a.credentialsSecret("default", "my-provider")).not.toBe(b.credentialsSecret("default", "my-provider"));
  });

  it("puts the tenant's fingerprint into the ProviderConfig's name, so no hash collision can give two tenants one name", () => {
    for (const [namespace, name] of INPUTS.map(([, ns, n]) => [ns, n] as const)) {
      const names = clusterObjectNames(namespace, name, "root:orgs:acme");
      expect(names.providerConfig("default", "otc")).toMatch(new RegExp(`-pc-${fingerprint("root:orgs:acme")}-[0-9a-f]{8}$`));
      expect(isDnsLabel(names.providerConfig("default", "otc"))).toBe(true);
    }
  });

  it("shortens a kubeconfig Secret name that would pass 253 characters, keeping it unique", () => {
    const long = "k".repeat(250);
    const secret = clusterObjectNames("default", long).kubeconfigSecret;
    expect(secret).toMatch(/^k+-[0-9a-f]{8}-kubeconfig$/);
    expect(secret.length).toBeLessThanOrEqual(253);
    expect(clusterObjectNames("default", `${"k".repeat(249)}j`).kubeconfigSecret).not.toBe(secret);
    expect(clusterObjectNames("default", "k".repeat(242)).kubeconfigSecret).toBe(`${"k".repeat(242)}-kubeconfig`);
  });

  it.each([
    ["an upper-case namespace", "Default", "c"],
    ["a namespace longer than 63", "n".repeat(64), "c"],
    ["an empty name", "default", ""],
    ["a name with a slash", "default", "a/b"],
    ["a name longer than 253", "default", "m".repeat(254)],
  ])("refuses %s", (_case, namespace, name) => {
    expect(() => clusterObjectNames(namespace, name)).toThrow(TypeError);
  });
});
