import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { KubeConfig } from "@kubernetes/client-node";
import { createServer, type Server, type ServerResponse } from "node:http";
import { RequestTimeoutError } from "./errors.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, RestClient } from "./rest-client.js";

/**
 * A server that takes requests and never finishes them: what a hung API
 * server, a stuck proxy or a half-open connection looks like to a client.
 */
describe("RestClient deadlines against a stalling server", () => {
  let server: Server;
  let client: RestClient;
  let received = 0;
  let closed = 0;
  const open: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received++;
      res.on("close", () => closed++);
      open.push(res);
      // Headers and half a body, then nothing: the body read must be bounded too.
      if (req.url?.startsWith("/half")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"items":[');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "c", server: `http://127.0.0.1:${address.port}`, skipTLSVerify: true }],
      users: [{ name: "u", token: "fake-token-for-tests" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    client = new RestClient(kubeConfig);
  });

  beforeEach(() => {
    received = 0;
    closed = 0;
  });

  afterAll(async () => {
    for (const res of open) res.destroy();
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const settle = async (promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> => {
    const started = performance.now();
    const error = await promise.then(
      () => undefined,
      (err: unknown) => err,
    );
    return { error, ms: performance.now() - started };
  };

  it("has a default deadline on every request, and withTimeout changes it for a derived client", async () => {
    expect(client.requestTimeoutMs).toBe(DEFAULT_REQUEST_TIMEOUT_MS);
    const short = client.withTimeout(150);
    expect(short.cluster("root").requestTimeoutMs).toBe(150);
    const { error, ms } = await settle(short.get("/api/v1/namespaces/default"));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(ms).toBeLessThan(5_000);
  });

  it("bounds reading the body, not only the headers", async () => {
    const { error } = await settle(client.withTimeout(150).list("/half"));
    expect(error).toBeInstanceOf(RequestTimeoutError);
  });

  it("names the call that ran out of time, as TimeoutError, without its credentials", async () => {
    const short = client.withTimeout(150);
    const { error } = await settle(short.request("POST", "/apis/example/v1/things", { body: {} }));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    const timeout = error as RequestTimeoutError;
    expect(timeout.name).toBe("TimeoutError");
    expect(timeout.message).toBe(`POST ${client.server}/apis/example/v1/things: no answer within 150 ms`);
    expect(timeout.timeoutMs).toBe(150);

    const echoed = (await settle(short.get("/apis/example/v1/fake-token-for-tests"))).error as RequestTimeoutError;
    expect(echoed).toBeInstanceOf(RequestTimeoutError);
    expect(JSON.stringify({ message: echoed.message, url: echoed.url })).not.toContain("fake-token-for-tests");
  });

  it("leaves an abort by the caller an abort, not a timeout", async () => {
    const abort = new AbortController();
    const pending = settle(client.get("/api/v1/namespaces/default", { signal: abort.signal }));
    await waitFor(() => received === 1);
    abort.abort();
    const { error } = await pending;
    expect(error).not.toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).name).toBe("AbortError");
  });

  it.each([
    ["create", (c: RestClient, signal: AbortSignal) => c.create("/x", {}, { signal })],
    ["replace", (c: RestClient, signal: AbortSignal) => c.replace("/x", {}, { signal })],
    ["apply", (c: RestClient, signal: AbortSignal) => c.apply("/x", {}, "test", { signal })],
    ["delete", (c: RestClient, signal: AbortSignal) => c.delete("/x", { signal })],
    ["request", (c: RestClient, signal: AbortSignal) => c.request("PATCH", "/x", { body: [], signal })],
  ])("%s: an abort ends the call at the socket", async (_name, call) => {
    const abort = new AbortController();
    const pending = settle(call(client, abort.signal));
    await waitFor(() => received === 1);
    abort.abort();
    const { error } = await pending;
    expect(error).toBeDefined();
    await waitFor(() => closed === 1);
  });

  it("withSignal binds a signal to every call of the derived clients", async () => {
    const reconcile = new AbortController();
    const bound = client.withSignal(reconcile.signal).cluster("root:tenant");
    const pending = settle(bound.get("/api/v1/configmaps/a"));
    await waitFor(() => received === 1);
    reconcile.abort();
    expect((await pending).error).toBeDefined();
    await waitFor(() => closed === 1);
    expect((await settle(bound.withTimeout(5_000).create("/x", {}))).error).toBeDefined();
    expect(received).toBe(1);
  });

  it("sends nothing when the signal has already aborted", async () => {
    const { error } = await settle(client.create("/x", {}, { signal: AbortSignal.abort() }));
    expect(error).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe(0);
  });

  it("leaves a watch open past the request deadline", async () => {
    const abort = new AbortController();
    const watch = client.withTimeout(100).watch("/half-watch", { signal: abort.signal });
    const next = watch.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closed).toBe(0);
    abort.abort();
    await next.catch(() => undefined);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
