import { describe, expect, it } from "@jest/globals";
import { parse, stringify } from "yaml";
import { kubeconfigForTenant, kubeconfigFromClusterCert } from "./kubeconfig.js";

const KEY = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tdW5pcXVlLWtleQ==";
const CERT = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t";
const CA = "Q0EtREFUQQ==";

const INTERNAL = { name: "internalCluster", cluster: { server: "https://192.168.0.10:5443", "certificate-authority-data": CA } };
const EXTERNAL = { name: "externalCluster", cluster: { server: "https://80.158.1.2:5443", "insecure-skip-tls-verify": true } };
const VERIFIED = { name: "externalClusterTLSVerify", cluster: { server: "https://80.158.1.2:5443", "certificate-authority-data": CA } };
const USER = { name: "user", user: { "client-certificate-data": CERT, "client-key-data": KEY } };

function clusterCert(clusters: unknown[], users: unknown[] = [USER]): unknown {
  return {
    kind: "Config",
    apiVersion: "v1",
    preferences: {},
    clusters,
    users,
    contexts: [{ name: "internal", context: { cluster: "internalCluster", user: "user" } }],
    "current-context": "internal",
  };
}

describe("kubeconfigFromClusterCert", () => {
  it.each<[string, unknown[], string, Record<string, unknown>]>([
    ["the TLS-verifying external cluster first", [INTERNAL, EXTERNAL, VERIFIED], "https://80.158.1.2:5443", { server: "https://80.158.1.2:5443", "certificate-authority-data": CA }],
    ["the external cluster without verification next, verified with the CA of another cluster of the answer", [INTERNAL, EXTERNAL], "https://80.158.1.2:5443", { server: "https://80.158.1.2:5443", "certificate-authority-data": CA }],
    ["a chosen cluster's own CA, dropping its skip of TLS verification", [{ name: "externalCluster", cluster: { ...EXTERNAL.cluster, "certificate-authority-data": CA } }], "https://80.158.1.2:5443", { server: "https://80.158.1.2:5443", "certificate-authority-data": CA }],
    ["the internal cluster last", [INTERNAL], "https://192.168.0.10:5443", { server: "https://192.168.0.10:5443", "certificate-authority-data": CA }],
  ])("picks %s", (_case, clusters, server, cluster) => {
    const result = kubeconfigFromClusterCert(clusterCert(clusters), "my-cluster");
    if (!result.ok) throw new Error(result.message);
    expect(result.server).toBe(server);
    expect(result.kubeconfig).not.toContain("insecure-skip-tls-verify");
    expect(parse(result.kubeconfig)).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [{ name: "my-cluster", cluster }],
      users: [{ name: "my-cluster", user: { "client-certificate-data": CERT, "client-key-data": KEY } }],
      contexts: [{ name: "my-cluster", context: { cluster: "my-cluster", user: "my-cluster" } }],
      "current-context": "my-cluster",
    });
  });

  it.each<[string, unknown, RegExp]>([
    ["no object", "not json", /names none of the clusters/],
    ["no clusters", clusterCert([]), /names none of the clusters externalClusterTLSVerify, externalCluster, internalCluster/],
    ["only unknown clusters", clusterCert([{ name: "other", cluster: { server: "https://x" } }]), /names none of the clusters/],
    ["a cluster without server", clusterCert([{ name: "internalCluster", cluster: {} }]), /has no https server URL/],
    ["a plain-http server", clusterCert([{ name: "internalCluster", cluster: { server: "http://192.168.0.10:5443" } }]), /has no https server URL/],
    ["only a cluster that skips TLS verification", clusterCert([EXTERNAL]), /^the cluster certificate's cluster "externalCluster" skips TLS verification and none of its other clusters has certificate-authority-data to verify it with$/],
    ["a cluster without CA, none elsewhere either", clusterCert([{ name: "internalCluster", cluster: { server: "https://192.168.0.10:5443" } }]), /"internalCluster" has no certificate-authority-data and none of its other clusters has/],
    ["a cluster that skips TLS verification and an empty CA elsewhere", clusterCert([{ name: "internalCluster", cluster: { ...INTERNAL.cluster, "certificate-authority-data": "" } }, EXTERNAL]), /"externalCluster" skips TLS verification/],
    ["no user", clusterCert([INTERNAL], []), /has no user "user"/],
    ["a user without key", clusterCert([INTERNAL], [{ name: "user", user: { "client-certificate-data": CERT } }]), /user lacks client-key-data/],
    ["a user without certificate", clusterCert([INTERNAL], [{ name: "user", user: { "client-key-data": KEY } }]), /user lacks client-certificate-data/],
    ["a user with an empty key", clusterCert([INTERNAL], [{ name: "user", user: { "client-certificate-data": CERT, "client-key-data": "" } }]), /user lacks client-key-data/],
  ])("fails for %s, without key material in the message", (_case, cert, message) => {
    const result = kubeconfigFromClusterCert(cert, "my-cluster");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(message);
    expect(result.message).not.toContain(KEY);
    expect(result.message).not.toContain(CERT);
  });
});

describe("kubeconfigForTenant", () => {
  /** What Cluster API's kubeadm control plane writes into `<cluster>-kubeconfig` (key `value`). */
  const capi = (overrides: Record<string, unknown> = {}): string =>
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "other", cluster: { server: "https://10.0.0.1:6443" } },
        { name: "default-my-cluster-1a2b3c4d", cluster: { server: "https://127.0.0.1:20123", "certificate-authority-data": CA } },
      ],
      users: [{ name: "default-my-cluster-1a2b3c4d-admin", user: { "client-certificate-data": CERT, "client-key-data": KEY } }],
      contexts: [{ name: "default-my-cluster-1a2b3c4d-admin@default-my-cluster-1a2b3c4d", context: { cluster: "default-my-cluster-1a2b3c4d", user: "default-my-cluster-1a2b3c4d-admin" } }],
      "current-context": "default-my-cluster-1a2b3c4d-admin@default-my-cluster-1a2b3c4d",
      ...overrides,
    });

  it("keeps the current context's cluster and user, named after the tenant's cluster", () => {
    const result = kubeconfigForTenant(capi(), "my-cluster");
    if (!result.ok) throw new Error(result.message);
    expect(result.server).toBe("https://127.0.0.1:20123");
    expect(parse(result.kubeconfig)).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [{ name: "my-cluster", cluster: { server: "https://127.0.0.1:20123", "certificate-authority-data": CA } }],
      users: [{ name: "my-cluster", user: { "client-certificate-data": CERT, "client-key-data": KEY } }],
      contexts: [{ name: "my-cluster", context: { cluster: "my-cluster", user: "my-cluster" } }],
      "current-context": "my-cluster",
    });
    expect(result.kubeconfig).not.toContain("1a2b3c4d");
  });

  it("keeps a token user as it is", () => {
    const result = kubeconfigForTenant(capi({ users: [{ name: "default-my-cluster-1a2b3c4d-admin", user: { token: "t0ken" } }] }), "my-cluster");
    expect(result.ok && (parse(result.kubeconfig) as { users: unknown }).users).toEqual([{ name: "my-cluster", user: { token: "t0ken" } }]);
  });

  it("keeps the cluster's CA but never its skip of TLS verification", () => {
    const insecure = { name: "default-my-cluster-1a2b3c4d", cluster: { server: "https://127.0.0.1:20123", "certificate-authority-data": CA, "insecure-skip-tls-verify": true } };
    const result = kubeconfigForTenant(capi({ clusters: [insecure] }), "my-cluster");
    if (!result.ok) throw new Error(result.message);
    expect((parse(result.kubeconfig) as { clusters: unknown }).clusters).toEqual([{ name: "my-cluster", cluster: { server: "https://127.0.0.1:20123", "certificate-authority-data": CA } }]);
  });

  it.each<[string, string, RegExp]>([
    ["no YAML", "clusters: [", /no YAML/],
    ["no current context", capi({ "current-context": "missing" }), /no current context/],
    ["a plain-http server", capi({ clusters: [{ name: "default-my-cluster-1a2b3c4d", cluster: { server: "http://127.0.0.1:20123" } }] }), /no https server URL/],
    ["no user", capi({ users: [] }), /no user credentials/],
    [
      "a cluster that skips TLS verification without a CA",
      capi({ clusters: [{ name: "default-my-cluster-1a2b3c4d", cluster: { server: "https://127.0.0.1:20123", "insecure-skip-tls-verify": true } }] }),
      /^the kubeconfig's cluster skips TLS verification and has no certificate-authority-data to verify it with$/,
    ],
  ])("fails for %s, without key material in the message", (_case, text, message) => {
    const result = kubeconfigForTenant(text, "my-cluster");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(message);
    expect(result.message).not.toContain(KEY);
  });
});
