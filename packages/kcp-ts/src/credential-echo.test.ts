/**
 * A server (or proxy) that echoes the request back in an error must not hand
 * the client's credentials to whoever logs the error.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { REDACTED, RELEASE_GRACE_MS, scrubText } from "@edgeconnect/redaction";
import { KubeConfig } from "@kubernetes/client-node";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpStatusError } from "./errors.js";
import { registerKubeconfigCredentials } from "./kubeconfig-credentials.js";
import { RestClient } from "./rest-client.js";

const TOKEN = "echo-test-token-0123456789";
const PASSWORD = "echo-test-password-0123";

function kubeConfigFor(server: string, user: { token?: string; username?: string; password?: string }): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u", ...user }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kubeConfig;
}

async function failure(promise: Promise<unknown>): Promise<HttpStatusError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof HttpStatusError)) throw new Error(`expected an HttpStatusError, got ${String(err)}`);
  return err;
}

function visible(err: HttpStatusError): string {
  return [err.message, err.body, err.url, String(err), err.stack ?? "", JSON.stringify(err)].join("\n");
}

describe("credentials echoed by a server", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const authorization = req.headers.authorization ?? "";
      // What the "server" quotes: the credential without its scheme, as a
      // careless gateway might ("token xyz is not valid").
      const bare = authorization.startsWith("Basic ")
        ? Buffer.from(authorization.slice(6), "base64").toString("utf8")
        : authorization.replace(/^Bearer /, "");
      if (req.url?.startsWith("/status")) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", reason: "Unauthorized", message: `credential ${bare} rejected`, headers: req.headers }));
      } else {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`upstream said: headers=${JSON.stringify(req.headers)} credential=${bare}`);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ["a 401 Status", "/status"],
    ["a 500 text body", "/text"],
  ])("keeps the bearer token out of %s: message, body and String(err)", async (_, path) => {
    const client = new RestClient(kubeConfigFor(base, { token: TOKEN }));
    const err = await failure(client.get(path));
    expect(err.status).toBe(path === "/status" ? 401 : 500);
    expect(visible(err)).not.toContain(TOKEN);
    expect(err.body).toContain(REDACTED);
    client.close();
  });

  it("keeps a basic-auth password out, in clear and base64", async () => {
    const client = new RestClient(kubeConfigFor(base, { username: "admin", password: PASSWORD }));
    const err = await failure(client.get("/text"));
    expect(visible(err)).not.toContain(PASSWORD);
    expect(visible(err)).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString("base64"));
    client.close();
  });

  it("keeps the token out of a refused watch", async () => {
    const client = new RestClient(kubeConfigFor(base, { token: TOKEN }));
    const err = await failure(client.watch("/status").next());
    expect(visible(err)).not.toContain(TOKEN);
    client.close();
  });
});

describe("registerKubeconfigCredentials", () => {
  it("registers every user's token, password, client key (base64 and decoded) and auth-provider secrets", () => {
    const pem = "-----BEGIN FAKE PRIVATE KEY-----\nZmFrZSBrZXkgbWF0ZXJpYWwgb25seQ==\n-----END FAKE PRIVATE KEY-----\n";
    const keyData = Buffer.from(pem).toString("base64");
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "c", server: "https://127.0.0.1:1", skipTLSVerify: true }],
      users: [
        { name: "current", token: "registered-token-current" },
        { name: "other", username: "u", password: "registered-password-other", keyData },
        { name: "oidc", authProvider: { name: "oidc", config: { "id-token": "registered-id-token", "client-id": "public-client-id" } } },
      ],
      contexts: [{ name: "x", cluster: "c", user: "current" }],
      currentContext: "x",
    });
    registerKubeconfigCredentials(kubeConfig);
    const text = `registered-token-current registered-password-other ${keyData} ${JSON.stringify(pem)} registered-id-token public-client-id`;
    expect(scrubText(text)).toBe(`${REDACTED} ${REDACTED} ${REDACTED} "${REDACTED}" ${REDACTED} public-client-id`);
  });
});

describe("a client from a kubeconfig's text with a secret holder", () => {
  it("holds the credentials while it is open and lets them go when closed", () => {
    jest.useFakeTimers({ doNotFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "nextTick", "queueMicrotask", "hrtime", "performance"] });
    try {
      const text = ["apiVersion: v1", "kind: Config", "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]", "users: [{name: u, user: {token: holder-test-token-0123}}]", "contexts: [{name: x, context: {cluster: c, user: u}}]", "current-context: x", ""].join("\n");
      const client = RestClient.fromKubeconfigText(text, { secretHolder: { name: "echo-test-workload" } });
      expect(client.server).toBe("https://127.0.0.1:1");
      expect(scrubText("sent holder-test-token-0123")).toBe(`sent ${REDACTED}`);
      client.close();
      jest.setSystemTime(Date.now() + RELEASE_GRACE_MS);
      expect(scrubText("sent holder-test-token-0123")).toBe("sent holder-test-token-0123");
    } finally {
      jest.useRealTimers();
    }
  });
});
