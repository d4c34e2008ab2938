import { describe, expect, it } from "@jest/globals";
import { stringify } from "yaml";
import { kubeconfigEndpoint } from "./workload-cluster.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIBworkload\n-----END CERTIFICATE-----\n";
const OTHER_CA = "-----BEGIN CERTIFICATE-----\nMIIBother\n-----END CERTIFICATE-----\n";
const b64 = (text: string): string => Buffer.from(text).toString("base64");

function kubeconfig(doc: Record<string, unknown>): string {
  return stringify({ apiVersion: "v1", kind: "Config", users: [{ name: "admin", user: { token: "s3cr3t-admin-token" } }], ...doc });
}

const TWO_CLUSTERS = {
  clusters: [
    { name: "first", cluster: { server: "https://first.example:6443", "certificate-authority-data": b64(OTHER_CA) } },
    { name: "workload", cluster: { server: "https://workload.example:6443", "certificate-authority-data": b64(CA) } },
  ],
  contexts: [
    { name: "first-admin", context: { cluster: "first", user: "admin" } },
    { name: "workload-admin@workload", context: { cluster: "workload", user: "admin" } },
  ],
};

describe("kubeconfigEndpoint", () => {
  it("reads the server and CA of the current context's cluster, the CA decoded to PEM", () => {
    expect(kubeconfigEndpoint(kubeconfig({ ...TWO_CLUSTERS, "current-context": "workload-admin@workload" }))).toEqual({ server: "https://workload.example:6443", caCrt: CA });
  });

  it("reads Cluster API's own layout: one cluster, one context", () => {
    const text = [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- cluster:",
      `    certificate-authority-data: ${b64(CA)}`,
      "    server: https://10.0.0.1:6443",
      "  name: workload",
      "contexts:",
      "- context:",
      "    cluster: workload",
      "    user: workload-admin",
      "  name: workload-admin@workload",
      "current-context: workload-admin@workload",
      "users:",
      "- name: workload-admin",
      "  user:",
      `    client-key-data: ${b64("KEY")}`,
    ].join("\n");
    expect(kubeconfigEndpoint(text)).toEqual({ server: "https://10.0.0.1:6443", caCrt: CA });
  });

  it.each<[string, Record<string, unknown>]>([
    ["no current context", { ...TWO_CLUSTERS }],
    ["a current context that is not listed", { ...TWO_CLUSTERS, "current-context": "gone" }],
    ["no contexts at all", { clusters: TWO_CLUSTERS.clusters, "current-context": "workload-admin@workload" }],
    ["a current context without a cluster", { clusters: TWO_CLUSTERS.clusters, contexts: [{ name: "bare", context: { user: "admin" } }], "current-context": "bare" }],
  ])("falls back to the first cluster with %s", (_case, doc) => {
    expect(kubeconfigEndpoint(kubeconfig(doc))).toEqual({ server: "https://first.example:6443", caCrt: OTHER_CA });
  });

  it("leaves the CA out when the cluster pins none", () => {
    const result = kubeconfigEndpoint(kubeconfig({ clusters: [{ name: "w", cluster: { server: "https://w.example" } }] }));
    expect(result).toEqual({ server: "https://w.example" });
    expect(Object.keys(result)).toEqual(["server"]);
  });

  describe("refuses without quoting the document", () => {
    // Distinctive pieces of the kubeconfig; none of them may reach a log line or a condition.
    const SECRETS = ["s3cr3t-admin-token", "workload", "admin", "first", "example", "6443", b64(CA).slice(0, 12)];

    function message(text: string): string {
      try {
        kubeconfigEndpoint(text);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error("accepted");
    }

    it.each<[string, Record<string, unknown>]>([
      ["the cluster has no server", { clusters: [{ name: "workload", cluster: { "certificate-authority-data": b64(CA) } }], contexts: TWO_CLUSTERS.contexts, "current-context": "workload-admin@workload" }],
      ["the cluster has no cluster section", { clusters: [{ name: "workload" }], "current-context": "workload-admin@workload" }],
      ["there are no clusters", { contexts: TWO_CLUSTERS.contexts, "current-context": "workload-admin@workload" }],
      ["the clusters list is empty", { clusters: [], contexts: TWO_CLUSTERS.contexts }],
      ["the current context names a cluster that is not listed", { clusters: [TWO_CLUSTERS.clusters[0]], contexts: TWO_CLUSTERS.contexts, "current-context": "workload-admin@workload" }],
    ])("when %s", (_case, doc) => {
      const text = message(kubeconfig(doc));
      expect(text).toBe("the Cluster API kubeconfig Secret names no API server");
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    });

    it.each<[string, string]>([
      ["an unclosed flow sequence", "clusters: [\nusers:\n- name: admin\n  user:\n    token: s3cr3t-admin-token\n"],
      ["tab indentation", "users:\n\t- token: s3cr3t-admin-token\n"],
      ["a duplicate key", "current-context: workload\ncurrent-context: admin\nusers: [{ user: { token: s3cr3t-admin-token } }]\n"],
    ])("when it is not YAML (%s)", (_case, doc) => {
      const text = message(doc);
      expect(text).toBe("the Cluster API kubeconfig Secret is not YAML");
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    });
  });
});

describe("kubeconfigEndpoint on an empty Secret value", () => {
  it.each(["", "~", "null"])("says the Secret names no API server for %j", (text) => {
    expect(() => kubeconfigEndpoint(text)).toThrow("the Cluster API kubeconfig Secret names no API server");
  });
});
