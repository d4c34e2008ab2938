import { describe, expect, it } from "@jest/globals";
import { isDnsSubdomain } from "@edgeconnect/provisioning";
import { parse } from "yaml";
import { accessContextName, accessDataDigest, accessSecretData, accessSecretName, accessSecretTimes, accessTokenBasis, tokenKubeconfig } from "./access-kubeconfig.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const CLUSTER = { namespace: "project-a", name: "workload.eu" };

describe("tokenKubeconfig", () => {
  it("has one cluster, user and context, named after the Cluster", () => {
    const config: unknown = parse(tokenKubeconfig({ server: "https://api.example.com:6443", caCrt: CA, token: "tok", cluster: CLUSTER }));
    expect(config).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [{ name: "project-a.workload.eu", cluster: { server: "https://api.example.com:6443", "certificate-authority-data": Buffer.from(CA).toString("base64") } }],
      users: [{ name: "project-a.workload.eu", user: { token: "tok" } }],
      contexts: [{ name: "project-a.workload.eu", context: { cluster: "project-a.workload.eu", user: "project-a.workload.eu" } }],
      "current-context": "project-a.workload.eu",
    });
  });

  it.each([undefined, ""])("leaves out the CA when there is none (%j)", (caCrt) => {
    const config = parse(tokenKubeconfig({ server: "https://api.example.com", caCrt, token: "tok", cluster: CLUSTER })) as { clusters: { cluster: Record<string, unknown> }[] };
    expect(config.clusters[0]?.cluster).toEqual({ server: "https://api.example.com" });
  });

  it.each(["http://api.example.com", "api.example.com:6443", ""])("refuses the server %j without quoting the token", (server) => {
    expect(() => tokenKubeconfig({ server, token: "secret-token", cluster: CLUSTER })).toThrow(/not an https URL/);
    expect(() => tokenKubeconfig({ server, token: "secret-token", cluster: CLUSTER })).not.toThrow(/secret-token/);
  });

  it("refuses an empty token", () => {
    expect(() => tokenKubeconfig({ server: "https://api.example.com", token: "", cluster: CLUSTER })).toThrow(/token must not be empty/);
  });
});

describe("accessTokenBasis", () => {
  const basis = { generation: 1, serviceAccount: { namespace: "openmcp-access", name: "access-a" }, expirationSeconds: 86_400, server: "https://api.example.com", caCrt: CA, cluster: CLUSTER };

  it("is the same for the same inputs", () => {
    expect(accessTokenBasis({ ...basis })).toBe(accessTokenBasis(basis));
    expect(accessTokenBasis(basis)).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each([
    ["a new generation", { generation: 2 }],
    ["another ServiceAccount", { serviceAccount: { namespace: "openmcp-access", name: "access-b" } }],
    ["another lifetime", { expirationSeconds: 3_600 }],
    ["a moved API server", { server: "https://api2.example.com" }],
    ["another CA", { caCrt: undefined }],
    ["another Cluster", { cluster: { namespace: "project-a", name: "other" } }],
  ])("changes with %s", (_, change) => {
    expect(accessTokenBasis({ ...basis, ...change })).not.toBe(accessTokenBasis(basis));
  });
});

describe("accessContextName", () => {
  it("cannot make two Clusters' names equal, as namespaces have no dots", () => {
    expect(accessContextName({ namespace: "a", name: "b.c" })).toBe("a.b.c");
    expect(accessContextName({ namespace: "a-b", name: "c" })).not.toBe(accessContextName({ namespace: "a", name: "b-c" }));
  });
});

describe("accessSecretData", () => {
  const createdAt = new Date("2026-01-01T00:00:00.900Z");
  const expiresAt = new Date("2026-01-02T00:00:00Z");

  it("uses the contract's keys, with timestamps in Unix seconds", () => {
    expect(accessSecretData({ kubeconfig: "kc", host: "https://api.example.com", caCrt: CA, token: "tok", createdAt, expiresAt })).toEqual({
      kubeconfig: "kc",
      host: "https://api.example.com",
      "ca.crt": CA,
      token: "tok",
      creationTimestamp: "1767225600",
      expirationTimestamp: "1767312000",
    });
  });

  it("leaves out ca.crt when there is none", () => {
    expect(accessSecretData({ kubeconfig: "kc", host: "h", token: "t", createdAt, expiresAt })).not.toHaveProperty(["ca.crt"]);
  });

  it("round-trips through accessSecretTimes to the second", () => {
    const data = accessSecretData({ kubeconfig: "kc", host: "h", token: "t", createdAt, expiresAt });
    expect(accessSecretTimes(data)).toEqual({ createdAt: new Date("2026-01-01T00:00:00Z"), expiresAt });
  });
});

describe("accessSecretTimes", () => {
  it.each<[string, Record<string, string | undefined>]>([
    ["no timestamps", {}],
    ["only a creation time", { creationTimestamp: "1767225600" }],
    ["RFC 3339 instead of seconds", { creationTimestamp: "2026-01-01T00:00:00Z", expirationTimestamp: "2026-01-02T00:00:00Z" }],
    ["negative", { creationTimestamp: "-1", expirationTimestamp: "1767312000" }],
    ["fractional", { creationTimestamp: "1767225600.5", expirationTimestamp: "1767312000" }],
    ["empty", { creationTimestamp: "", expirationTimestamp: "" }],
  ])("is undefined for %s", (_case, data) => {
    expect(accessSecretTimes(data)).toBeUndefined();
  });
});

describe("accessSecretName", () => {
  it("is <name>.kubeconfig", () => {
    expect(accessSecretName("admin-access")).toBe("admin-access.kubeconfig");
  });

  it("keeps the plain form up to exactly 253 characters", () => {
    const name = "a".repeat(253 - ".kubeconfig".length);
    expect(accessSecretName(name)).toBe(`${name}.kubeconfig`);
    expect(accessSecretName(name)).toHaveLength(253);
  });

  it.each([
    ["one character too long", "a".repeat(243)],
    ["the longest name", "a".repeat(253)],
    ["dots where it is cut", `${"a".repeat(232)}.${"b".repeat(20)}`],
    ["hyphens where it is cut", `${"a".repeat(230)}---${"b".repeat(20)}`],
  ])("shortens with a hash for %s", (_case, name) => {
    const secret = accessSecretName(name);
    expect(secret.length).toBeLessThanOrEqual(253);
    expect(secret).toMatch(/-[0-9a-f]{8}\.kubeconfig$/);
    expect(isDnsSubdomain(secret)).toBe(true);
  });

  it("gives different names to long names that share their beginning", () => {
    const base = "a".repeat(245);
    expect(accessSecretName(`${base}-x`)).not.toBe(accessSecretName(`${base}-y`));
  });

  it("refuses a name no AccessRequest can have", () => {
    expect(() => accessSecretName("Not_Valid")).toThrow(TypeError);
  });
});

describe("accessDataDigest", () => {
  const data = { kubeconfig: "apiVersion: v1", token: "t0k3n", host: "https://127.0.0.1:6443" };

  it("does not depend on the order of the keys", () => {
    expect(accessDataDigest({ host: data.host, token: data.token, kubeconfig: data.kubeconfig })).toBe(accessDataDigest(data));
  });

  it("changes with any value, added key or removed key", () => {
    const digest = accessDataDigest(data);
    expect(accessDataDigest({ ...data, token: "other" })).not.toBe(digest);
    expect(accessDataDigest({ ...data, extra: "" })).not.toBe(digest);
    expect(accessDataDigest({ kubeconfig: data.kubeconfig, token: data.token })).not.toBe(digest);
    // Keys and values cannot be shifted into each other.
    expect(accessDataDigest({ ab: "c" })).not.toBe(accessDataDigest({ a: "bc" }));
  });

  it("never contains the token", () => {
    expect(accessDataDigest(data)).toMatch(/^[0-9a-f]{32}$/);
  });
});
