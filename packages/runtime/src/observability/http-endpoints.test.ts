import { describe, expect, it } from "@jest/globals";
import { Agent, request } from "node:http";
import { HealthChecks } from "./health-checks.js";
import { startMetricsServer, startProbeServer, type EndpointServer } from "./http-endpoints.js";
import { RuntimeMetrics } from "./metrics.js";

/** Starts a server, hands it to `body`, and closes it whatever happens. */
async function withServer(start: Promise<EndpointServer | undefined>, body: (base: string) => Promise<void>): Promise<void> {
  const server = await start;
  if (server === undefined) throw new Error("server disabled");
  try {
    await body(`http://127.0.0.1:${server.port}`);
  } finally {
    await server.close();
  }
}

async function get(url: string): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text(), contentType: response.headers.get("content-type") };
}

describe("startMetricsServer", () => {
  it("serves /metrics with prom-client's content type", async () => {
    const metrics = new RuntimeMetrics();
    metrics.registerController("clusters", 1);
    await withServer(startMetricsServer({ address: "127.0.0.1:0", metrics }), async (base) => {
      const response = await get(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.contentType).toBe(metrics.contentType);
      expect(response.body).toContain('controller_runtime_reconcile_total{controller="clusters",result="success"} 0');
      expect((await get(`${base}/other`)).status).toBe(404);
    });
  });

  it("answers 500 with the error when gathering fails", async () => {
    const metrics = { contentType: "text/plain", metrics: () => Promise.reject(new Error("collector broke")) };
    await withServer(startMetricsServer({ address: "127.0.0.1:0", metrics }), async (base) => {
      const response = await get(`${base}/metrics`);
      expect(response).toMatchObject({ status: 500, body: "collector broke\n" });
    });
  });

  it("refuses methods other than GET and HEAD", async () => {
    await withServer(startMetricsServer({ address: "127.0.0.1:0", metrics: new RuntimeMetrics() }), async (base) => {
      const post = await fetch(`${base}/metrics`, { method: "POST" });
      await post.text();
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
      const head = await fetch(`${base}/metrics`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
    });
  });

  it('is disabled by the address "0"', async () => {
    expect(await startMetricsServer({ address: "0", metrics: new RuntimeMetrics() })).toBeUndefined();
  });

  it("rejects a malformed address and a port in use", async () => {
    await expect(startMetricsServer({ address: "8080", metrics: new RuntimeMetrics() })).rejects.toThrow(/invalid bind address/);
    await withServer(startMetricsServer({ address: "127.0.0.1:0", metrics: new RuntimeMetrics() }), async (base) => {
      const taken = new URL(base).port;
      await expect(startMetricsServer({ address: `127.0.0.1:${taken}`, metrics: new RuntimeMetrics() })).rejects.toThrow(/EADDRINUSE/);
    });
  });
});

describe("startProbeServer", () => {
  it("answers /healthz ok while the process is alive", async () => {
    await withServer(startProbeServer({ address: "127.0.0.1:0", checks: new HealthChecks() }), async (base) => {
      expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: "ok", contentType: "text/plain; charset=utf-8" });
      expect(await get(`${base}/healthz?verbose`)).toMatchObject({ status: 200, body: "healthz check passed\n" });
    });
  });

  it("fails /healthz when a liveness check fails", async () => {
    const checks = new HealthChecks();
    checks.addLiveness("ping", () => true);
    checks.addLiveness("deadlock", () => "worker stuck for 10m");
    await withServer(startProbeServer({ address: "127.0.0.1:0", checks }), async (base) => {
      expect(await get(`${base}/healthz`)).toMatchObject({
        status: 500,
        body: "[-]deadlock failed: reason withheld\nhealthz check failed\n",
      });
      expect(await get(`${base}/healthz?verbose=1`)).toMatchObject({
        status: 500,
        body: "[+]ping ok\n[-]deadlock failed: worker stuck for 10m\nhealthz check failed\n",
      });
    });
  });

  it("answers /readyz 200 only once every readiness check passes", async () => {
    const checks = new HealthChecks();
    let synced = false;
    let credentialsOk = false;
    checks.addReadiness("informers", () => synced || "caches not synced");
    checks.addReadiness("leader", async () => Promise.resolve(true));
    checks.addReadiness("credentials", () => {
      if (!credentialsOk) throw new Error("401 from OTC\nIAM said no");
      return true;
    });

    await withServer(startProbeServer({ address: "127.0.0.1:0", checks }), async (base) => {
      expect(await get(`${base}/readyz`)).toMatchObject({
        status: 500,
        body: "[-]informers failed: reason withheld\n[-]credentials failed: reason withheld\nreadyz check failed\n",
      });
      expect(await get(`${base}/readyz?verbose`)).toMatchObject({
        status: 500,
        body: "[-]informers failed: caches not synced\n[+]leader ok\n[-]credentials failed: 401 from OTC IAM said no\nreadyz check failed\n",
      });

      synced = true;
      credentialsOk = true;
      expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: "ok" });
      expect(await get(`${base}/readyz?verbose`)).toMatchObject({
        status: 200,
        body: "[+]informers ok\n[+]leader ok\n[+]credentials ok\nreadyz check passed\n",
      });
      // Liveness is independent of readiness.
      expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    });
  });

  it('is disabled by the address "0"', async () => {
    expect(await startProbeServer({ address: "0", checks: new HealthChecks() })).toBeUndefined();
  });

  it("closes idempotently, even with a keep-alive connection open", async () => {
    const server = await startProbeServer({ address: "127.0.0.1:0", checks: new HealthChecks() });
    if (server === undefined) throw new Error("server disabled");
    const agent = new Agent({ keepAlive: true });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request({ host: "127.0.0.1", port: server.port, path: "/healthz", agent }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode));
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    agent.destroy();
  });
});
