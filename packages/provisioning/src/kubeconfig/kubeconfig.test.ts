import { describe, expect, it } from "@jest/globals";
import { parse } from "yaml";
import { kubeconfigFromClusterCert } from "./kubeconfig.js";

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
    ["the external cluster without verification next", [INTERNAL, EXTERNAL], "https://80.158.1.2:5443", { server: "https://80.158.1.2:5443", "insecure-skip-tls-verify": true }],
    ["the internal cluster last", [INTERNAL], "https://192.168.0.10:5443", { server: "https://192.168.0.10:5443", "certificate-authority-data": CA }],
  ])("picks %s", (_case, clusters, server, cluster) => {
    const result = kubeconfigFromClusterCert(clusterCert(clusters), "my-cluster");
    if (!result.ok) throw new Error(result.message);
    expect(result.server).toBe(server);
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
