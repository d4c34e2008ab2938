/**
 * A scripted OTC stand-in for tests: a loopback HTTP server that records
 * every request and answers from a handler the test sets, plus a client
 * pointed at it whose sleeps are recorded instead of waited; IAM's token
 * answer; and a server that never answers.
 */
import { afterAll, beforeAll } from "@jest/globals";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SERVICES, type Service } from "./endpoints.js";
import type { PasswordCredentials } from "./iam-token.js";
import { OtcClient, type OtcClientOptions } from "./otc-client.js";

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Answer {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Handler = (request: RecordedRequest) => Answer;

export const TEST_CREDENTIALS = { accessKey: "TESTAK0123456789", secretKey: "test-secret-key-do-not-leak" } as const;
export const TEST_PROJECT = "0123456789abcdef0123456789abcdef";
export const TEST_PASSWORD: PasswordCredentials = {
  kind: "password",
  userName: "test-user",
  password: "test-password-do-not-leak",
  domainName: "OTC-TEST-DOMAIN",
  projectName: "eu-de_test",
};
/** The project IAM scopes the test tokens to. */
export const TOKEN_PROJECT = "fedcba9876543210fedcba9876543210";

/** IAM's answer to a token request: `token`, issued at `issuedAt`, valid for `lifetimeMs` (default a day). */
export function tokenAnswer(token: string, issuedAt: Date, lifetimeMs = 24 * 3600_000): Answer {
  const user = { id: "u1", name: TEST_PASSWORD.userName, domain: { id: "d1", name: TEST_PASSWORD.domainName } };
  return {
    status: 201,
    headers: { "x-subject-token": token },
    body: {
      token: {
        expires_at: new Date(issuedAt.getTime() + lifetimeMs).toISOString(),
        issued_at: issuedAt.toISOString(),
        methods: ["password"],
        project: { id: TOKEN_PROJECT, name: TEST_PASSWORD.projectName, domain: { id: "d1", name: TEST_PASSWORD.domainName } },
        user,
        catalog: [],
      },
    },
  };
}

/** Whether `request` asks IAM for a token. */
export function isTokenRequest(request: RecordedRequest): boolean {
  return request.method === "POST" && request.path === "/v3/auth/tokens";
}

export class Loopback {
  readonly requests: RecordedRequest[] = [];
  readonly sleeps: number[] = [];
  handler: Handler = () => ({ status: 200, body: {} });
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://loopback");
        const recorded: RecordedRequest = {
          method: req.method ?? "",
          url: req.url ?? "",
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        this.requests.push(recorded);
        const answer = this.handler(recorded);
        const body = answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers }).end(body);
      });
    });
  }

  static async start(): Promise<Loopback> {
    const loopback = new Loopback();
    await new Promise<void>((resolve) => loopback.server.listen(0, "127.0.0.1", resolve));
    return loopback;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A client for every service at this server, with instant recorded sleeps and fixed jitter. */
  client(options: Partial<OtcClientOptions> = {}): OtcClient {
    return testClient(this.baseUrl, { sleep: async (ms) => void this.sleeps.push(ms), ...options });
  }

  reset(handler: Handler): void {
    this.requests.length = 0;
    this.sleeps.length = 0;
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A client for every service at `baseUrl`, with test credentials and fixed jitter. */
export function testClient(baseUrl: string, options: Partial<OtcClientOptions> = {}): OtcClient {
  const endpoints = Object.fromEntries(SERVICES.map((service): [Service, string] => [service, baseUrl]));
  return new OtcClient({ credentials: TEST_CREDENTIALS, region: "eu-de", projectId: TEST_PROJECT, endpoints, random: () => 0.5, ...options });
}

/** A loopback server that takes requests and never answers them, like a hung gateway. */
export class SilentServer {
  /** Every connection the server accepted. */
  readonly sockets: Socket[] = [];
  private readonly closed: Promise<void>[] = [];
  private readonly server: Server;

  private constructor() {
    this.server = createServer(() => undefined);
    this.server.on("connection", (socket) => {
      this.sockets.push(socket);
      this.closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    });
  }

  static async start(): Promise<SilentServer> {
    const silent = new SilentServer();
    await new Promise<void>((resolve) => silent.server.listen(0, "127.0.0.1", resolve));
    return silent;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once every accepted connection is closed (by the client: this server closes none). */
  async allClosed(): Promise<void> {
    await Promise.all(this.closed);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A loopback server and its client for the enclosing `describe`: started
 * before its tests, closed after them. Read `loopback` and `client` inside
 * tests and hooks, once they exist.
 */
export function useLoopback(options: Partial<OtcClientOptions> = {}): { readonly loopback: Loopback; readonly client: OtcClient } {
  let started: { loopback: Loopback; client: OtcClient } | undefined;
  beforeAll(async () => {
    const loopback = await Loopback.start();
    started = { loopback, client: loopback.client(options) };
  });
  afterAll(async () => {
    started?.client.close();
    await started?.loopback.stop();
  });
  const get = (): { loopback: Loopback; client: OtcClient } => {
    if (started === undefined) throw new Error("useLoopback: read loopback and client inside tests or hooks");
    return started;
  };
  return {
    get loopback() {
      return get().loopback;
    },
    get client() {
      return get().client;
    },
  };
}
