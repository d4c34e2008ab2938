/**
 * The two HTTP servers a controller process runs, on plain node:http: the
 * metrics server (/metrics, for Prometheus) and the probe server (/healthz
 * and /readyz, for the kubelet). They are separate, as in controller-runtime,
 * so that the probe port can stay cluster-internal while metrics are scraped,
 * and either can be turned off with the address "0".
 *
 * Probe output follows the Kubernetes API server: "ok" on success; on
 * failure, status 500 and a `[-]name failed: reason withheld` line per
 * failing check; with `?verbose`, a `[+]name ok` / `[-]name failed: reason`
 * line for every check. Reasons are withheld unless asked for, because the
 * probe port is unauthenticated.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseBindAddress } from "./bind-address.js";
import type { CheckKind, CheckResult, HealthChecks } from "./health-checks.js";

/** The builtin, not an `import` of it: that would load undici at every start (see kcp-ts' rest-client.ts). */
const nodeHttp = process.getBuiltinModule("node:http");

/** A running server. */
export interface EndpointServer {
  /** The port it listens on (the one chosen, for an ephemeral port). */
  readonly port: number;
  /** Stops accepting connections and resolves once open requests are answered. */
  close(): Promise<void>;
}

/** What the metrics server exposes; RuntimeMetrics and prom-client's Registry both fit. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface MetricsServerOptions {
  /** `host:port`, `:port` for every interface, or "0" for no server. Default ":8080". */
  address?: string;
  metrics: MetricsSource;
}

export interface ProbeServerOptions {
  /** `host:port`, `:port` for every interface, or "0" for no server. Default ":8081". */
  address?: string;
  checks: HealthChecks;
}

/** Serves `metrics` at /metrics. Resolves to undefined when the address is "0". */
export async function startMetricsServer(options: MetricsServerOptions): Promise<EndpointServer | undefined> {
  const { address = ":8080", metrics } = options;
  return serve(address, async (path) => {
    if (path !== "/metrics") return undefined;
    return { status: 200, contentType: metrics.contentType, body: await metrics.metrics() };
  });
}

/** Serves /healthz (liveness) and /readyz (readiness). Resolves to undefined when the address is "0". */
export async function startProbeServer(options: ProbeServerOptions): Promise<EndpointServer | undefined> {
  const { address = ":8081", checks } = options;
  const endpoints = new Map<string, CheckKind>([
    ["/healthz", "liveness"],
    ["/readyz", "readiness"],
  ]);
  return serve(address, async (path, query) => {
    const kind = endpoints.get(path);
    if (kind === undefined) return undefined;
    return renderChecks(path.slice(1), await checks.run(kind), query.has("verbose"));
  });
}

interface Reply {
  status: number;
  body: string;
  contentType?: string;
}

/** Answers a GET for `path`, or undefined when there is nothing at that path. */
type Route = (path: string, query: URLSearchParams) => Promise<Reply | undefined>;

const TEXT = "text/plain; charset=utf-8";

function renderChecks(endpoint: string, results: readonly CheckResult[], verbose: boolean): Reply {
  const healthy = results.every((result) => result.ok);
  if (healthy && !verbose) return { status: 200, body: "ok" };
  const lines = results
    .filter((result) => verbose || !result.ok)
    .map((result) => {
      if (result.ok) return `[+]${result.name} ok`;
      // One line per check, whatever the reason's text contains.
      const reason = verbose ? (result.reason ?? "").replace(/\s*[\r\n]+\s*/g, " ") : "reason withheld";
      return `[-]${result.name} failed: ${reason}`;
    });
  lines.push(`${endpoint} check ${healthy ? "passed" : "failed"}`);
  return { status: healthy ? 200 : 500, body: `${lines.join("\n")}\n` };
}

async function serve(address: string, route: Route): Promise<EndpointServer | undefined> {
  const listenAddress = parseBindAddress(address);
  if (listenAddress === undefined) return undefined;

  const server = nodeHttp.createServer((req, res) => {
    void answer(route, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: listenAddress.host, port: listenAddress.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // A server listening on a host and port always has an AddressInfo.
  const bound = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    port: bound.port,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections with no request in flight would otherwise
        // hold close() open until they time out.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

async function answer(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let reply: Reply;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    reply = { status: 405, body: "method not allowed\n" };
  } else {
    const url = new URL(req.url ?? "/", "http://localhost");
    try {
      reply = (await route(url.pathname, url.searchParams)) ?? { status: 404, body: "not found\n" };
    } catch (err) {
      reply = { status: 500, body: `${err instanceof Error ? err.message : String(err)}\n` };
    }
  }
  res.writeHead(reply.status, {
    "Content-Type": reply.contentType ?? TEXT,
    "Content-Length": Buffer.byteLength(reply.body),
    "X-Content-Type-Options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : reply.body);
}
