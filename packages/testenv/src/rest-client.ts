/**
 * A minimal JSON client for any API server path: kcp's `/clusters/<name>`,
 * `/clusters/*` and virtual-workspace URLs included. Credentials and TLS come
 * from a kubeconfig through @kubernetes/client-node; requests go out as
 * `server + path`, unchanged, so kcp paths survive. It serves the test
 * environment and tests; controllers use the runtime's clients.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { createInterface } from "node:readline";
import { HttpStatusError } from "./errors.js";

export interface RequestOptionsLite {
  readonly body?: unknown;
  /** Default application/json; use application/apply-patch+yaml for server-side apply. */
  readonly contentType?: string;
  readonly query?: Readonly<Record<string, string | number | boolean>>;
  readonly signal?: AbortSignal;
}

export interface WatchEvent<T = KubeObject> {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  readonly object: T;
}

/** The fields every Kubernetes object has that tests look at. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface KubeList<T = KubeObject> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export class RestClient {
  /** `server` overrides the kubeconfig's server URL, keeping its credentials. */
  constructor(
    private readonly kubeConfig: KubeConfig,
    readonly server: string = currentServer(kubeConfig),
  ) {}

  static fromFile(path: string): RestClient {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(path);
    return new RestClient(kubeConfig);
  }

  /** The same credentials against another base URL (a workspace, a virtual workspace). */
  withServer(server: string): RestClient {
    return new RestClient(this.kubeConfig, server.replace(/\/+$/, ""));
  }

  /** A client for kcp's `/clusters/<pathOrName>` below this client's server. */
  cluster(pathOrName: string): RestClient {
    return this.withServer(`${rootOf(this.server)}/clusters/${pathOrName}`);
  }

  async get<T = KubeObject>(path: string, options?: RequestOptionsLite): Promise<T> {
    return this.request<T>("GET", path, options);
  }

  async list<T = KubeObject>(path: string, options?: RequestOptionsLite): Promise<KubeList<T>> {
    return this.request<KubeList<T>>("GET", path, options);
  }

  async create<T = KubeObject>(path: string, body: unknown): Promise<T> {
    return this.request<T>("POST", path, { body });
  }

  async replace<T = KubeObject>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PUT", path, { body });
  }

  async delete(path: string): Promise<void> {
    await this.request("DELETE", path);
  }

  /** Server-side apply of `body` at `path` (the object's own URL). */
  async apply<T = KubeObject>(path: string, body: unknown, fieldManager: string): Promise<T> {
    return this.request<T>("PATCH", path, {
      body,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager, force: true },
    });
  }

  /** Sends a request; a JSON answer is parsed, any other answer returned as text. */
  async request<T = unknown>(method: string, path: string, options: RequestOptionsLite = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await readAll(response);
    if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode >= 300) {
      throw new HttpStatusError(method, this.server + path, response.statusCode ?? 0, text);
    }
    const json = (response.headers["content-type"] ?? "").includes("json");
    return (json && text !== "" ? JSON.parse(text) : text) as T;
  }

  /**
   * Streams watch events until the server ends the watch or `signal` aborts.
   * A non-2xx answer to the watch request throws HttpStatusError.
   */
  async *watch<T = KubeObject>(path: string, options: RequestOptionsLite = {}): AsyncGenerator<WatchEvent<T>> {
    const response = await this.send("GET", path, { ...options, query: { ...options.query, watch: true } });
    if (response.statusCode === undefined || response.statusCode >= 300) {
      throw new HttpStatusError("WATCH", this.server + path, response.statusCode ?? 0, await readAll(response));
    }
    const lines = createInterface({ input: response, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line.trim() !== "") yield JSON.parse(line) as WatchEvent<T>;
      }
    } catch (err) {
      if (!options.signal?.aborted) throw err;
    } finally {
      lines.close();
      response.destroy();
    }
  }

  private async send(method: string, path: string, options: RequestOptionsLite): Promise<IncomingMessage> {
    const url = new URL(this.server + path + queryString(options.query));
    const requestOptions: RequestOptions = { method, headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(requestOptions);
    const payload = encodeBody(options.body, options.contentType);
    if (payload !== undefined) {
      requestOptions.headers = { ...requestOptions.headers, "Content-Type": payload.contentType };
    }
    requestOptions.headers = { ...requestOptions.headers, Accept: "application/json" };
    if (options.signal) requestOptions.signal = options.signal;
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, requestOptions, resolve);
      req.once("error", reject);
      req.end(payload?.data);
    });
  }
}

function currentServer(kubeConfig: KubeConfig): string {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error("kubeconfig has no current cluster");
  return cluster.server.replace(/\/+$/, "");
}

/** The server URL without any `/clusters/...` suffix. */
function rootOf(server: string): string {
  const index = server.indexOf("/clusters/");
  return index === -1 ? server : server.slice(0, index);
}

function queryString(query: RequestOptionsLite["query"]): string {
  if (query === undefined) return "";
  const params = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function encodeBody(body: unknown, contentType = "application/json"): { data: string; contentType: string } | undefined {
  if (body === undefined) return undefined;
  return { data: typeof body === "string" ? body : JSON.stringify(body), contentType };
}

async function readAll(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
