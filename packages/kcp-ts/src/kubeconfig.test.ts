import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { KubeConfig } from "@kubernetes/client-node";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeconfigCredentials } from "./kubeconfig-credentials.js";
import { Kubeconfig, type ClientNodeImporter, type KubeconfigSource } from "./kubeconfig.js";

const TOKEN = "kubeconfig-test-token-0123";
const base64 = (text: string): string => Buffer.from(text).toString("base64");

/** A kubeconfig (JSON is YAML) whose current context joins `cluster` and `user`. */
function kubeconfigText(cluster: Record<string, unknown>, user: Record<string, unknown>, extraUsers: Record<string, unknown>[] = []): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://api.example:6443", ...cluster } }],
    users: [{ name: "u", user }, ...extraUsers],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}

async function applied(source: KubeconfigSource): Promise<RequestOptions & { headers: Record<string, unknown> }> {
  const options: RequestOptions = { method: "GET", headers: { Accept: "application/json" } };
  await source.applyToHTTPSOptions(options);
  return options as RequestOptions & { headers: Record<string, unknown> };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Kubeconfig: the current context's cluster", () => {
  it("gives the server, CA data, insecure-skip-tls-verify and tls-server-name", async () => {
    const config = Kubeconfig.fromText(
      kubeconfigText({ "certificate-authority-data": base64("CA PEM"), "insecure-skip-tls-verify": true, "tls-server-name": "api.internal" }, {}),
    );
    expect(config.getCurrentCluster().server).toBe("https://api.example:6443");
    const options = await applied(config);
    expect(options.ca).toEqual(Buffer.from("CA PEM"));
    expect(options.rejectUnauthorized).toBe(false);
    expect(options.servername).toBe("api.internal");
    expect(options.headers).toEqual({ Accept: "application/json" });
  });

  it("verifies TLS unless told not to", async () => {
    const options = await applied(Kubeconfig.fromText(kubeconfigText({}, {})));
    expect(options.rejectUnauthorized).toBeUndefined();
    expect(options.ca).toBeUndefined();
  });

  it("reads a certificate-authority file relative to the kubeconfig's directory", async () => {
    mkdirSync(join(dir, "relative", "pki"), { recursive: true });
    writeFileSync(join(dir, "relative", "pki", "ca.crt"), "CA FROM FILE");
    writeFileSync(join(dir, "relative", "config"), kubeconfigText({ "certificate-authority": "pki/ca.crt" }, {}));
    expect((await applied(Kubeconfig.fromFile(join(dir, "relative", "config")))).ca).toEqual(Buffer.from("CA FROM FILE"));
  });
});

describe("Kubeconfig: the current user's credentials", () => {
  it("sends a token as a bearer token", async () => {
    expect((await applied(Kubeconfig.fromText(kubeconfigText({}, { token: TOKEN })))).headers["Authorization"]).toBe(`Bearer ${TOKEN}`);
  });

  it("keeps a number-like token a string, leading zero included", async () => {
    const text = ["clusters: [{name: c, cluster: {server: 'https://h:1'}}]", "users: [{name: u, user: {token: 0123}}]", "contexts: [{name: x, context: {cluster: c, user: u}}]", "current-context: x"].join("\n");
    expect((await applied(Kubeconfig.fromText(text))).headers["Authorization"]).toBe("Bearer 0123");
  });

  it("sends username and password as basic auth", async () => {
    const options = await applied(Kubeconfig.fromText(kubeconfigText({}, { username: "admin", password: "pw-0123" })));
    expect(options.headers["Authorization"]).toBe(`Basic ${base64("admin:pw-0123")}`);
  });

  it("impersonates the user named by `as`", async () => {
    expect((await applied(Kubeconfig.fromText(kubeconfigText({}, { token: TOKEN, as: "system:admin" })))).headers["Impersonate-User"]).toBe("system:admin");
  });

  it("presents a client certificate and key from data", async () => {
    const options = await applied(Kubeconfig.fromText(kubeconfigText({}, { "client-certificate-data": base64("CERT"), "client-key-data": base64("KEY") })));
    expect(options.cert).toEqual(Buffer.from("CERT"));
    expect(options.key).toEqual(Buffer.from("KEY"));
    expect(options.headers["Authorization"]).toBeUndefined();
  });

  it("presents a client certificate and key from files relative to the kubeconfig", async () => {
    mkdirSync(join(dir, "certs", "user"), { recursive: true });
    writeFileSync(join(dir, "certs", "user", "tls.crt"), "CERT FILE");
    writeFileSync(join(dir, "certs", "user", "tls.key"), "KEY FILE");
    writeFileSync(join(dir, "certs", "config"), kubeconfigText({}, { "client-certificate": "user/tls.crt", "client-key": "user/tls.key" }));
    const options = await applied(Kubeconfig.fromFile(join(dir, "certs", "config")));
    expect(options.cert).toEqual(Buffer.from("CERT FILE"));
    expect(options.key).toEqual(Buffer.from("KEY FILE"));
  });

  it.each(["tokenFile", "token-file"])("re-reads a %s on every request, so a rotated token is used", async (field) => {
    const tokenPath = join(dir, `${field}.txt`);
    writeFileSync(tokenPath, "first-token\n");
    const config = Kubeconfig.fromText(kubeconfigText({}, { [field]: tokenPath, token: "static-token" }));
    expect((await applied(config)).headers["Authorization"]).toBe("Bearer first-token");
    writeFileSync(tokenPath, "rotated-token\n");
    expect((await applied(config)).headers["Authorization"]).toBe("Bearer rotated-token");
  });
});

describe("Kubeconfig.withBearerToken", () => {
  it("keeps the cluster's server and TLS settings and sends only the given token", async () => {
    const config = Kubeconfig.fromText(kubeconfigText({ "certificate-authority-data": base64("CA PEM"), "tls-server-name": "api.internal" }, { token: TOKEN, as: "someone" }));
    const user = config.withBearerToken("user-token-abc");
    const options = await applied(user);
    expect(user.getCurrentCluster()).toEqual({ server: "https://api.example:6443" });
    expect(options.ca).toEqual(Buffer.from("CA PEM"));
    expect(options.servername).toBe("api.internal");
    expect(options.headers["Authorization"]).toBe("Bearer user-token-abc");
    expect(options.headers["Impersonate-User"]).toBeUndefined();
    expect(user.getUsers()).toEqual([{ name: "bearer-token", token: "user-token-abc" }]);
  });

  it("refuses an empty token or one with whitespace (a header injection)", () => {
    const config = Kubeconfig.fromText(kubeconfigText({}, {}));
    expect(() => config.withBearerToken("")).toThrow(/non-empty/);
    expect(() => config.withBearerToken("a\r\nX-Evil: 1")).toThrow(/whitespace/);
  });
});

describe("Kubeconfig errors", () => {
  const secretUser = { token: TOKEN, password: "error-test-password", "client-key-data": base64("error-test-key") };
  const base = JSON.parse(kubeconfigText({}, secretUser)) as Record<string, unknown>;

  it.each([
    ["no current-context", { ...base, "current-context": undefined }, "kubeconfig has no current-context"],
    ["an unknown context", { ...base, "current-context": "nope" }, 'kubeconfig has no context "nope" (its current-context)'],
    ["an unknown cluster", { ...base, contexts: [{ name: "x", context: { cluster: "gone", user: "u" } }] }, 'kubeconfig has no cluster "gone" (of context "x")'],
    ["an unknown user", { ...base, contexts: [{ name: "x", context: { cluster: "c", user: "gone" } }] }, 'kubeconfig has no user "gone" (of context "x")'],
  ])("names %s without quoting any credential", (_, config, message) => {
    const err = thrown(() => Kubeconfig.fromText(JSON.stringify(config)));
    expect(err.message).toBe(message);
    expectNoSecret(err);
  });

  it("reports invalid YAML by position only: yaml's own message would quote the text", () => {
    const err = thrown(() => Kubeconfig.fromText(`users:\n- name: u\n  user: {token: ${TOKEN}, password: "error-test-password\n`));
    expect(err.message).toMatch(/^kubeconfig is not valid YAML \(line \d+, column \d+\)$/);
    expectNoSecret(err);
  });

  it("refuses in-cluster loading outside a cluster", () => {
    expect(() => Kubeconfig.fromCluster({ env: {}, serviceAccountDir: dir })).toThrow(/KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT/);
  });

  function thrown(fn: () => unknown): Error {
    try {
      fn();
    } catch (err) {
      return err as Error;
    }
    throw new Error("expected a throw");
  }

  function expectNoSecret(err: Error): void {
    expect(err.cause).toBeUndefined();
    const visible = [err.message, String(err), err.stack ?? ""].join("\n");
    for (const secret of [TOKEN, "error-test-password", base64("error-test-key")]) expect(visible).not.toContain(secret);
  }
});

describe("Kubeconfig.fromCluster", () => {
  let serviceAccount: string;
  beforeAll(() => {
    serviceAccount = join(dir, "serviceaccount");
    mkdirSync(serviceAccount);
    writeFileSync(join(serviceAccount, "ca.crt"), "CLUSTER CA");
    writeFileSync(join(serviceAccount, "token"), "sa-token-1");
  });

  it("uses the service host and port, the CA, and the service account token re-read per request", async () => {
    const config = Kubeconfig.fromCluster({ env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir: serviceAccount });
    expect(config.getCurrentCluster().server).toBe("https://10.96.0.1:443");
    const first = await applied(config);
    expect(first.ca).toEqual(Buffer.from("CLUSTER CA"));
    expect(first.headers["Authorization"]).toBe("Bearer sa-token-1");
    writeFileSync(join(serviceAccount, "token"), "sa-token-2");
    expect((await applied(config)).headers["Authorization"]).toBe("Bearer sa-token-2");
  });

  it("brackets an IPv6 service host", () => {
    const config = Kubeconfig.fromCluster({ env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir: serviceAccount });
    expect(config.getCurrentCluster().server).toBe("https://[fd00::1]:443");
  });
});

describe("Kubeconfig: users with exec or auth-provider plugins", () => {
  /** A client-node stand-in that records what it was loaded from. */
  function fakeClientNode(): { importer: ClientNodeImporter; imports: number; loaded: string[] } {
    const state = { imports: 0, loaded: [] as string[] };
    class FakeKubeConfig {
      loadFromString(text: string): void {
        state.loaded.push(`text:${text.length}`);
      }
      loadFromFile(path: string): void {
        state.loaded.push(`file:${path}`);
      }
      async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
        options.headers = { ...options.headers, Authorization: "Bearer from-plugin" };
      }
    }
    const importer: ClientNodeImporter = async () => {
      state.imports++;
      return { KubeConfig: FakeKubeConfig as unknown as Awaited<ReturnType<ClientNodeImporter>>["KubeConfig"] };
    };
    return { importer, get imports() { return state.imports; }, loaded: state.loaded };
  }

  it("does not import client-node for a user without a plugin, even if another user has one", async () => {
    const fake = fakeClientNode();
    const config = Kubeconfig.fromText(kubeconfigText({}, { token: TOKEN }, [{ name: "oidc", user: { "auth-provider": { name: "oidc", config: {} } } }]), { importClientNode: fake.importer });
    expect((await applied(config)).headers["Authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(fake.imports).toBe(0);
  });

  it.each([
    ["exec", { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "kubectl", args: ["oidc-login", "get-token"] } }],
    ["auth-provider", { "auth-provider": { name: "oidc", config: { "id-token": "x" } } }],
  ])("hands a user with %s to client-node, imported once, loaded from the same text", async (_, user) => {
    const fake = fakeClientNode();
    const text = kubeconfigText({}, user);
    const config = Kubeconfig.fromText(text, { importClientNode: fake.importer });
    expect(fake.imports).toBe(0);
    expect((await applied(config)).headers).toEqual({ Accept: "application/json", Authorization: "Bearer from-plugin" });
    await applied(config);
    expect(fake.imports).toBe(1);
    expect(fake.loaded).toEqual([`text:${text.length}`]);
  });

  it("loads client-node's KubeConfig from the kubeconfig's file, relative paths included", async () => {
    const fake = fakeClientNode();
    const path = join(dir, "exec-config");
    writeFileSync(path, kubeconfigText({}, { exec: { command: "true" } }));
    await applied(Kubeconfig.fromFile(path, { importClientNode: fake.importer }));
    expect(fake.loaded).toEqual([`file:${path}`]);
  });

  it("gets a token from a real exec plugin through client-node", async () => {
    const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "token-from-exec" } });
    const exec = { apiVersion: "client.authentication.k8s.io/v1", command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`], interactiveMode: "Never" };
    expect((await applied(Kubeconfig.fromText(kubeconfigText({}, { exec })))).headers["Authorization"]).toBe("Bearer token-from-exec");
  });
});

describe("kubeconfigCredentials of a Kubeconfig", () => {
  const pem = "-----BEGIN FAKE PRIVATE KEY-----\nZmFrZSBrZXkgbWF0ZXJpYWwgb25seQ==\n-----END FAKE PRIVATE KEY-----\n";
  const text = JSON.stringify({
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
    users: [
      { name: "current", user: { token: "cred-token-current" } },
      { name: "other", user: { username: "u", password: "cred-password-other", "client-key-data": base64(pem) } },
      { name: "oidc", user: { "auth-provider": { name: "oidc", config: { "id-token": "cred-id-token", "client-id": "public-client-id" } } } },
    ],
    contexts: [{ name: "x", context: { cluster: "c", user: "current" } }],
    "current-context": "x",
  });

  it("finds what client-node's KubeConfig gave: token, password, client key and auth-provider secrets", () => {
    const clientNode = new KubeConfig();
    clientNode.loadFromString(text);
    const ours = kubeconfigCredentials(Kubeconfig.fromText(text));
    expect(ours).toEqual(kubeconfigCredentials(clientNode));
    expect(ours.map(({ field, value }) => `${field}=${value}`)).toEqual([
      "token=cred-token-current",
      "password=cred-password-other",
      `client key=${pem}`,
      "id-token=cred-id-token",
    ]);
  });

  it("finds the current user's client key file contents", () => {
    writeFileSync(join(dir, "client.key"), pem);
    const config = Kubeconfig.fromText(kubeconfigText({}, { "client-certificate-data": base64("CERT"), "client-key": join(dir, "client.key") }));
    expect(kubeconfigCredentials(config)).toEqual([{ user: "u", field: "client key", value: pem }]);
  });
});

describe("Kubeconfig read as data (a Secret's)", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ["an exec plugin", {}, { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "sh", args: ["-c", "touch /tmp/pwned"] } }, '"exec"'],
    ["an auth-provider plugin", {}, { "auth-provider": { name: "oidc", config: {} } }, '"auth-provider"'],
    ["a local CA file", { "certificate-authority": "/etc/kubernetes/pki/ca.crt" }, { token: TOKEN }, '"certificate-authority"'],
    ["local client certificate and key files", {}, { "client-certificate": "/etc/x.crt", "client-key": "/etc/x.key" }, '"client-certificate", "client-key"'],
    ["a token file", {}, { tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token" }, '"tokenFile"'],
  ])("refuses %s, naming the field and never a value", (_case, cluster, user, named) => {
    const text = kubeconfigText(cluster, user);
    const error = (() => {
      try {
        Kubeconfig.fromText(text, { dataOnly: true });
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    expect(error?.message).toContain(`kubeconfig uses ${named}, which a kubeconfig read as data may not`);
    expect(error?.message).not.toMatch(/pwned|\/etc|serviceaccount/);
  });

  it("takes tokens, passwords, client certificates and CA data", async () => {
    const text = kubeconfigText({ "certificate-authority-data": base64("ca") }, { "client-certificate-data": base64("cert"), "client-key-data": base64("key"), token: TOKEN });
    const options = await applied(Kubeconfig.fromText(text, { dataOnly: true }));
    expect(options.headers["Authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(String(options.ca)).toBe("ca");
  });
});
