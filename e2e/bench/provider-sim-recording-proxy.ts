/**
 * A plain-HTTP loopback proxy in front of real kcp that counts the requests
 * passing through by kind (the kcp load simulator's classification,
 * `classifyRequest`), so that what a controller asks of real kcp can be
 * compared with what it asks of the simulator. The APIExportEndpointSlice's
 * answers are rewritten to name the proxy instead of kcp, so that the
 * virtual-workspace traffic comes through it too. Test support: it keeps
 * the caller's credentials as they are and holds no state beyond counts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { classifyRequest, describeKind } from "@edgeconnect/kcp-load-simulator";

export class RecordingProxy {
  /** `describeKind` → count, of every resource request answered. */
  readonly kinds = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `target`: kcp's root URL (`https://host:port`); `caPem`: its serving CA. */
  static async start(target: string, caPem: string): Promise<RecordingProxy> {
    const upstream = new URL(target);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const proxy = new RecordingProxy(server, `http://127.0.0.1:${port}`);
    server.on("request", (request: IncomingMessage, response: ServerResponse) => proxy.forward(upstream, caPem, request, response));
    return proxy;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private forward(upstream: URL, caPem: string, request: IncomingMessage, response: ServerResponse): void {
    const kind = classifyRequest(request.method ?? "GET", request.url ?? "/", request.headers["content-type"]);
    const outbound = httpsRequest(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host }, ca: caPem },
      (answer) => {
        if (kind !== undefined) {
          const key = describeKind(kind);
          this.kinds.set(key, (this.kinds.get(key) ?? 0) + 1);
        }
        const headers = { ...answer.headers };
        const rewrite = kind?.resource.endsWith("/apiexportendpointslices") === true;
        if (rewrite) delete headers["content-length"];
        response.writeHead(answer.statusCode ?? 502, headers);
        if (!rewrite) {
          answer.pipe(response);
          return;
        }
        // Line by line: a watch's events are lines, a list is one.
        let pending = "";
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          pending += chunk;
          const cut = pending.lastIndexOf("\n");
          if (cut === -1) return;
          response.write(pending.slice(0, cut + 1).replaceAll(upstream.origin, this.url));
          pending = pending.slice(cut + 1);
        });
        answer.on("end", () => response.end(pending.replaceAll(upstream.origin, this.url)));
      },
    );
    outbound.on("error", () => response.destroy());
    response.on("close", () => outbound.destroy());
    request.pipe(outbound);
  }
}
