/**
 * A loopback HTTP proxy in front of an API server that can be told to
 * *stall*: requests are accepted and held, and no answer comes, as from a
 * partitioned network, a stuck load balancer or a frozen API server. Refusing
 * fast is the easy fault; a stall is what tests of deadlines and exclusivity
 * need, since only a stall shows code that waits forever.
 *
 * It can *cut connections*: every open one is closed at once, watches
 * included, as when a load balancer or the API server restarts.
 *
 * It can also *hold responses*: requests reach the upstream (a write
 * commits) but their answers wait, as over a slow network; that shows code
 * which times what the server did from when the answer came.
 *
 * Clients reach it on plain http with their usual credentials (the bearer
 * token rides along); it forwards to the upstream over TLS. Test support
 * only: it trusts the upstream without verifying its certificate.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";

export interface StallingProxyOptions {
  /** The upstream API server, e.g. `https://127.0.0.1:6443`. */
  readonly upstream: string;
  /**
   * Which requests a stall holds; default every one. Lets a test slow down
   * just the Node LIST, say, while watches and writes pass.
   */
  readonly matches?: (method: string, path: string) => boolean;
}

export class StallingProxy {
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true, rejectUnauthorized: false });
  private stalled = false;
  private holdingResponses = false;
  private readonly held = new Set<() => void>();
  private readonly heldResponses = new Set<() => void>();
  private readonly sockets = new Set<Socket>();
  /** Requests answered or forwarded since the start, requests held by a stall, and answers held. */
  readonly counts = { forwarded: 0, held: 0, heldResponses: 0 };

  private constructor(private readonly options: StallingProxyOptions) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(options: StallingProxyOptions): Promise<StallingProxy> {
    const proxy = new StallingProxy(options);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  /** The base URL clients use instead of the upstream's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** From now on matching requests are held without an answer; answers already streaming go on. */
  stall(): void {
    this.stalled = true;
  }

  /**
   * From now on matching requests go on to the upstream, but the answers
   * are kept from their clients until `releaseResponses` or `resume`.
   */
  holdResponses(): void {
    this.holdingResponses = true;
  }

  /** Answers held so far go on to their clients, and new ones pass again; a stall stays. */
  releaseResponses(): void {
    this.holdingResponses = false;
    for (const release of this.heldResponses) release();
    this.heldResponses.clear();
  }

  /** Held requests go on to the upstream, held answers to their clients, and new ones pass again. */
  resume(): void {
    this.stalled = false;
    for (const release of this.held) release();
    this.held.clear();
    this.releaseResponses();
  }

  /** Closes every open client connection (watches, pooled keep-alives); new ones are served as before. */
  cutConnections(): number {
    const cut = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    return cut;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? "/";
    const matches = this.options.matches?.(req.method ?? "GET", path) ?? true;
    if (this.stalled && matches) {
      this.counts.held++;
      this.held.add(() => this.forward(req, res, matches));
      return;
    }
    this.forward(req, res, matches);
  }

  private forward(req: IncomingMessage, res: ServerResponse, matches: boolean): void {
    if (req.destroyed || res.destroyed) return;
    this.counts.forwarded++;
    const target = new URL(req.url ?? "/", this.options.upstream);
    const upstream = httpsRequest(target, { method: req.method, headers: { ...req.headers, host: target.host }, agent: this.agent }, (answer) => {
      const pass = (): void => {
        if (res.destroyed) return;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      };
      if (!(this.holdingResponses && matches)) return pass();
      this.counts.heldResponses++;
      this.heldResponses.add(pass);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  }
}
