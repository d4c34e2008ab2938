import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { KubeConfig } from "@kubernetes/client-node";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { scrubText } from "@edgeconnect/redaction";
import { HttpStatusError } from "./errors.js";
import { Kubeconfig } from "./kubeconfig.js";
import { RestClient, type WatchEvent } from "./rest-client.js";

interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

describe("RestClient", () => {
  const seen: Seen[] = [];
  let server: Server;
  let client: RestClient;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += String(chunk)));
      req.on("end", () => {
        const url = req.url ?? "";
        seen.push({ method: req.method ?? "", url, contentType: req.headers["content-type"], authorization: req.headers.authorization, body });
        const path = url.replace(/^\/clusters\/[^/]+/, "").split("?")[0] ?? "";
        if (path === "/readyz") return void res.writeHead(200, { "content-type": "text/plain" }).end("ok");
        if (path === "/missing") return void res.writeHead(404, { "content-type": "application/json" }).end('{"reason":"NotFound"}');
        if (url.includes("watch=true")) {
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"BOOKMARK",');
          res.end('"object":{"metadata":{"resourceVersion":"7"}}}\n');
          return;
        }
        if (path === "/paged") {
          // Five items, served `limit` at a time from the offset the continue token names.
          const query = new URL(url, "http://x").searchParams;
          const from = Number(query.get("continue") ?? "0");
          const to = Math.min(5, from + Number(query.get("limit") ?? "5"));
          const items = Array.from({ length: to - from }, (_, i) => ({ metadata: { name: `item-${from + i}` } }));
          return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ metadata: to < 5 ? { continue: String(to) } : {}, items }));
        }
        if (path === "/busy") {
          res.writeHead(429, { "content-type": "application/json", "retry-after": "3" });
          return void res.end('{"kind":"Status","reason":"TooManyRequests","message":"slow down"}');
        }
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ echo: path }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "c", server: `http://127.0.0.1:${address.port}/clusters/root`, skipTLSVerify: true }],
      users: [{ name: "u", token: "secret-token" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    client = new RestClient(kubeConfig);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends requests to server + path with the kubeconfig's credentials", async () => {
    expect(await client.get("/api/v1/namespaces/default")).toEqual({ echo: "/api/v1/namespaces/default" });
    expect(seen.at(-1)).toMatchObject({ method: "GET", url: "/clusters/root/api/v1/namespaces/default", authorization: "Bearer secret-token" });
  });

  it("reads a kubeconfig's text as data: an exec plugin is refused, not run", () => {
    const text = JSON.stringify({
      clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
      users: [{ name: "u", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "sh", args: ["-c", "exit 1"] } } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    });
    expect(() => RestClient.fromKubeconfigText(text)).toThrow(/kubeconfig uses "exec", which a kubeconfig read as data may not/);
  });

  it("acts with a user's bearer token on the same server, the token held for redaction by its holder", async () => {
    const server = client.server;
    const text = JSON.stringify({ clusters: [{ name: "c", cluster: { server } }], users: [{ name: "u", user: { token: "console-own-token" } }], contexts: [{ name: "x", context: { cluster: "c", user: "u" } }], "current-context": "x" });
    const user = RestClient.fromKubeconfig(Kubeconfig.fromText(text).withBearerToken("signed-in-user-token-1"), { secretHolder: { name: "session-1" } });
    try {
      await user.get("/api/v1/namespaces");
      expect(seen.at(-1)).toMatchObject({ url: "/clusters/root/api/v1/namespaces", authorization: "Bearer signed-in-user-token-1" });
      expect(scrubText("token signed-in-user-token-1")).not.toContain("signed-in-user-token-1");
    } finally {
      user.close();
    }
  });

  it("re-targets kcp paths: another workspace and the wildcard", async () => {
    await client.cluster("root:tenant").get("/api/v1/configmaps");
    await client.cluster("*").list("/api/v1/configmaps");
    expect(seen.slice(-2).map((s) => s.url)).toEqual(["/clusters/root:tenant/api/v1/configmaps", "/clusters/*/api/v1/configmaps"]);
  });

  it("sends a DELETE body with its length, and the connection stays usable", async () => {
    await client.delete("/things/x", { body: { preconditions: { uid: "u-1" } } });
    expect(seen.at(-1)).toMatchObject({ method: "DELETE", body: '{"preconditions":{"uid":"u-1"}}' });
    expect(await client.get("/things/y")).toEqual({ echo: "/things/y" });
  });

  it("returns text answers as text", async () => {
    expect(await client.request("GET", "/readyz")).toBe("ok");
  });

  it("lists every page of a list, each a call of its own with the caller's query", async () => {
    seen.length = 0;
    const items = await client.listAll<{ metadata: { name: string } }>("/paged", { pageSize: 2, query: { labelSelector: "a=b" } });
    expect(items.map((item) => item.metadata.name)).toEqual(["item-0", "item-1", "item-2", "item-3", "item-4"]);
    expect(seen.map((s) => new URL(s.url, "http://x").search)).toEqual(["?labelSelector=a%3Db&limit=2", "?labelSelector=a%3Db&limit=2&continue=2", "?labelSelector=a%3Db&limit=2&continue=4"]);
  });

  it("throws HttpStatusError with status and body on non-2xx", async () => {
    const failure = client.get("/missing");
    await expect(failure).rejects.toBeInstanceOf(HttpStatusError);
    await expect(failure).rejects.toMatchObject({ status: 404, body: '{"reason":"NotFound"}' });
  });

  it("carries the Status reason and Retry-After of a 429", async () => {
    await expect(client.get("/busy")).rejects.toMatchObject({ status: 429, reason: "TooManyRequests", retryAfterSeconds: 3 });
    await expect(client.get("/busy")).rejects.toThrow("GET http://127.0.0.1");
  });

  it("never puts credentials into errors", async () => {
    const failure = await client.get("/missing").catch((err: unknown) => err);
    expect(JSON.stringify(failure) + String(failure)).not.toContain("secret-token");
  });

  it("streams watch events split across chunks", async () => {
    const events: WatchEvent[] = [];
    for await (const event of client.watch("/api/v1/configmaps", { query: { allowWatchBookmarks: true } })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    expect(seen.at(-1)?.url).toBe("/clusters/root/api/v1/configmaps?allowWatchBookmarks=true&watch=true");
  });

});
