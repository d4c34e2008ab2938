/**
 * A JSON client for any API-server path: kcp's `/clusters/<name>`,
 * `/clusters/*` and virtual-workspace URLs included. Credentials and TLS come
 * from a kubeconfig (see kubeconfig.ts); requests go out as
 * `server + path`, unchanged, so kcp paths survive.
 *
 * Guarantees: one keep-alive connection pool per client family (clients made
 * with `withServer` / `cluster` share it); errors never carry credentials;
 * every request but a watch has a deadline (`DEFAULT_REQUEST_TIMEOUT_MS`
 * unless the call names its own), and every call takes an AbortSignal that
 * ends it at the socket.
 * Caveats: no retries here; the runtime decides what to retry and when.
 */
import type { Agent as HttpAgent, IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from "node:https";
import { createInterface } from "node:readline";
import { HttpStatusError, RequestTimeoutError } from "./errors.js";
import { holdSecrets, releaseSecrets, type SecretHolder } from "@edgeconnect/redaction";
import { kubeconfigCredentials, registerKubeconfigCredentials } from "./kubeconfig-credentials.js";
import { Kubeconfig, type KubeconfigSource } from "./kubeconfig.js";

/**
 * node:http taken as the builtin it is, not by `import`: importing it makes
 * Node build the module's ESM facade, which reads every export, and reading
 * its lazy `WebSocket`, `CloseEvent` and `MessageEvent` loads all of
 * undici, tens of milliseconds of every process start for nothing we use.
 */
const nodeHttp = process.getBuiltinModule("node:http");

export interface RequestOptionsLite {
  readonly body?: unknown;
  /** Default application/json; use application/apply-patch+yaml for server-side apply. */
  readonly contentType?: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly signal?: AbortSignal;
  /**
   * Abort when no complete answer arrived in this time. Default the client's
   * `requestTimeoutMs` for requests; watches have none, since they
   * are meant to stay open (the reflector bounds them by inactivity).
   */
  readonly timeoutMs?: number;
}

/** What every call accepts besides its path and body. */
export type CallOptions = Pick<RequestOptionsLite, "signal" | "timeoutMs">;

/**
 * A request without an answer after this long fails: client-go has no
 * default, and a hung connection then holds a worker, a Lease renewal or a
 * shutdown forever. Thirty seconds is far above an API server's answer time
 * for one object and below every reconcile and drain bound of the runtime.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface WatchEvent<T = KubeObject> {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  readonly object: T;
}

/** The fields every Kubernetes object has. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  [key: string]: unknown;
}

/** `listAll`'s page size unless told: client-go's pager's default. */
export const DEFAULT_PAGE_SIZE = 500;

export interface KubeList<T = KubeObject> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

interface Transport {
  readonly kubeConfig: KubeconfigSource;
  readonly https: HttpsAgent;
  readonly http: HttpAgent;
  /** Who holds the kubeconfig's credentials in the redaction registry; undefined: the process, for its life. */
  readonly secretHolder?: SecretHolder;
}

function newTransport(kubeConfig: KubeconfigSource, secretHolder?: SecretHolder): Transport {
  if (secretHolder === undefined) registerKubeconfigCredentials(kubeConfig);
  else holdSecrets(secretHolder, kubeconfigCredentials(kubeConfig).map(({ value }) => value));
  return { kubeConfig, https: new HttpsAgent({ keepAlive: true }), http: new nodeHttp.Agent({ keepAlive: true }), ...(secretHolder === undefined ? {} : { secretHolder }) };
}

export class RestClient {
  private readonly transport: Transport;
  /** Base URL every path is appended to. */
  readonly server: string;
  /** The deadline of a request that names none; see `withTimeout`. */
  readonly requestTimeoutMs: number;

  /**
   * `server` overrides the kubeconfig's server URL, keeping its credentials.
   * client-node's KubeConfig is a KubeconfigSource too.
   */
  constructor(kubeConfig: KubeconfigSource, server?: string);
  constructor(transport: Transport, server: string, requestTimeoutMs: number, boundSignal: AbortSignal | undefined);
  constructor(
    source: KubeconfigSource | Transport,
    server?: string,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    private readonly boundSignal?: AbortSignal,
  ) {
    // Clients derived with withServer & co. share the transport, whose credentials were registered when it was made.
    this.transport = isTransport(source) ? source : newTransport(source);
    this.server = (server ?? currentServer(this.transport.kubeConfig)).replace(/\/+$/, "");
    this.requestTimeoutMs = requestTimeoutMs;
  }

  static fromFile(path: string): RestClient {
    return new RestClient(Kubeconfig.fromFile(path));
  }

  /**
   * From a kubeconfig's text, e.g. a Secret's: another cluster's admin
   * credentials. It is data (`dataOnly`): a plugin or a local file it names
   * is refused, since whoever wrote it must not run programs or read files
   * here. Its credentials are registered for redaction like a file's, or
   * held by `secretHolder` until `close()` lets them go: a process that
   * reaches many clusters this way then holds only those it reaches now.
   */
  static fromKubeconfigText(text: string, options: { readonly secretHolder?: SecretHolder } = {}): RestClient {
    return RestClient.fromKubeconfig(Kubeconfig.fromText(text, { dataOnly: true }), options);
  }

  /**
   * From a loaded kubeconfig, e.g. `Kubeconfig.withBearerToken`'s: with a
   * `secretHolder`, its credentials are held only until `close()`, so a
   * process that acts for many users at once (a web console's sessions)
   * holds the tokens of those signed in now, not of everyone ever.
   */
  static fromKubeconfig(kubeConfig: KubeconfigSource, options: { readonly secretHolder?: SecretHolder } = {}): RestClient {
    return new RestClient(newTransport(kubeConfig, options.secretHolder), currentServer(kubeConfig), DEFAULT_REQUEST_TIMEOUT_MS, undefined);
  }

  /** The pod's service account and the cluster's CA, as every in-cluster controller uses them. */
  static fromCluster(): RestClient {
    return new RestClient(Kubeconfig.fromCluster());
  }

  /** The same credentials and connections against another base URL (a workspace, a virtual workspace). */
  withServer(server: string): RestClient {
    return new RestClient(this.transport, server, this.requestTimeoutMs, this.boundSignal);
  }

  /**
   * The same client whose requests fail after `ms` unless a call names its
   * own deadline: Lease calls, say, must end well inside a renew deadline.
   */
  withTimeout(ms: number): RestClient {
    if (!(ms > 0)) throw new RangeError(`timeout must be positive, got ${ms}`);
    return new RestClient(this.transport, this.server, ms, this.boundSignal);
  }

  /**
   * The same client whose every call, watches included, also ends when
   * `signal` aborts: a reconcile hands its tenant code a client bound to the
   * reconcile's signal, so its timeout reaches the socket of every call
   * whether or not the code passes the signal on.
   */
  withSignal(signal: AbortSignal): RestClient {
    const bound = this.boundSignal === undefined ? signal : AbortSignal.any([this.boundSignal, signal]);
    return new RestClient(this.transport, this.server, this.requestTimeoutMs, bound);
  }

  /** A client for kcp's `/clusters/<pathOrName>` below this client's server (`*` for all). */
  cluster(pathOrName: string): RestClient {
    return this.withServer(`${rootOf(this.server)}/clusters/${pathOrName}`);
  }

  /** Closes idle pooled connections (open watches end on their own), and lets go of the credentials a `secretHolder` holds. */
  close(): void {
    this.transport.https.destroy();
    this.transport.http.destroy();
    if (this.transport.secretHolder !== undefined) releaseSecrets(this.transport.secretHolder);
  }

  async get<T = KubeObject>(path: string, options?: RequestOptionsLite): Promise<T> {
    return this.request<T>("GET", path, options);
  }

  async list<T = KubeObject>(path: string, options?: RequestOptionsLite): Promise<KubeList<T>> {
    return this.request<KubeList<T>>("GET", path, options);
  }

  /**
   * Every item of a list, asked for `pageSize` at a time (`limit` and
   * `continue`), each page a call with a deadline of its own: one answer
   * holding every object of a large cluster can outlast any deadline. A
   * continue token that expired (410: the snapshot was compacted) fails
   * the call, for the caller's next round to start over.
   */
  async listAll<T = KubeObject>(path: string, options: RequestOptionsLite & { readonly pageSize?: number } = {}): Promise<T[]> {
    const { pageSize = DEFAULT_PAGE_SIZE, query, ...rest } = options;
    const items: T[] = [];
    let token: string | undefined;
    do {
      const page = await this.list<T>(path, { ...rest, query: { ...query, limit: pageSize, continue: token } });
      // Some servers encode an empty list's items as null.
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
    return items;
  }

  async create<T = KubeObject>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    return this.request<T>("POST", path, { ...options, body });
  }

  async replace<T = KubeObject>(path: string, body: unknown, options: CallOptions = {}): Promise<T> {
    return this.request<T>("PUT", path, { ...options, body });
  }

  async delete(path: string, options?: RequestOptionsLite): Promise<void> {
    await this.request("DELETE", path, options);
  }

  /**
   * Server-side apply of `body` at `path` (the object's own URL, or its
   * /status). Forced by default: the objects a controller applies this way
   * are its own; pass `force: false` to have a conflict with another field
   * manager fail with 409 instead. `fieldValidation: "Strict"` makes a field
   * the schema lacks fail with 400 instead of being dropped with a warning.
   */
  async apply<T = KubeObject>(
    path: string,
    body: unknown,
    fieldManager: string,
    options: CallOptions & { force?: boolean; fieldValidation?: "Strict" | "Warn" | "Ignore" } = {},
  ): Promise<T> {
    const { force = true, fieldValidation, ...call } = options;
    return this.request<T>("PATCH", path, {
      ...call,
      body,
      contentType: "application/apply-patch+yaml",
      query: { fieldManager, force, ...(fieldValidation === undefined ? {} : { fieldValidation }) },
    });
  }

  /** Sends a request; a JSON answer is parsed, any other answer returned as text. */
  async request<T = unknown>(method: string, path: string, options: RequestOptionsLite = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    let response: IncomingMessage;
    let text: string;
    try {
      response = await this.send(method, path, options, deadline);
      text = await readAll(response);
    } catch (err) {
      if (deadline.aborted) throw new RequestTimeoutError(method, this.server + path, timeoutMs, { cause: err });
      throw err;
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      throw new HttpStatusError(method, this.server + path, status, text, header(response, "retry-after"));
    }
    const json = (response.headers["content-type"] ?? "").includes("json");
    return (json && text !== "" ? JSON.parse(text) : text) as T;
  }

  /**
   * Streams watch events until the server ends the watch or `signal` aborts
   * (then it just ends). A non-2xx answer to the watch request throws
   * HttpStatusError; an expired resourceVersion mid-stream arrives as an
   * ERROR event carrying a Status, as the server sends it.
   */
  async *watch<T = KubeObject>(path: string, options: RequestOptionsLite = {}): AsyncGenerator<WatchEvent<T>> {
    const response = await this.send("GET", path, { ...options, query: { ...options.query, watch: true } }, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs));
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      throw new HttpStatusError("WATCH", this.server + path, status, await readAll(response), header(response, "retry-after"));
    }
    const lines = createInterface({ input: response, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line.trim() !== "") yield JSON.parse(line) as WatchEvent<T>;
      }
    } catch (err) {
      if (!options.signal?.aborted && !this.boundSignal?.aborted) throw err;
    } finally {
      lines.close();
      response.destroy();
    }
  }

  private async send(method: string, path: string, options: RequestOptionsLite, deadline: AbortSignal | undefined): Promise<IncomingMessage> {
    const url = new URL(this.server + path + queryString(options.query));
    const plain = url.protocol === "http:";
    const requestOptions: RequestOptions = { method, headers: {} };
    await this.transport.kubeConfig.applyToHTTPSOptions(requestOptions);
    requestOptions.agent = plain ? this.transport.http : this.transport.https;
    const payload = encodeBody(options.body, options.contentType);
    requestOptions.headers = {
      ...requestOptions.headers,
      Accept: "application/json",
      // An explicit length: Node sends bodies of DELETE (and GET) without one
      // unless told, and the API server then reads the body as the next request.
      ...(payload === undefined ? {} : { "Content-Type": payload.contentType, "Content-Length": Buffer.byteLength(payload.data) }),
    };
    const signals = [options.signal, this.boundSignal, deadline];
    const active = signals.filter((s): s is AbortSignal => s !== undefined);
    if (active.length > 0) requestOptions.signal = active.length === 1 ? active[0] : AbortSignal.any(active);
    const send = plain ? nodeHttp.request : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, requestOptions, resolve);
      req.once("error", reject);
      req.end(payload?.data);
    });
  }
}

function isTransport(source: KubeconfigSource | Transport): source is Transport {
  return "kubeConfig" in source;
}

function currentServer(kubeConfig: KubeconfigSource): string {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error("kubeconfig has no current cluster");
  return cluster.server;
}

/** The server URL without any `/clusters/...` suffix. */
function rootOf(server: string): string {
  const index = server.indexOf("/clusters/");
  return index === -1 ? server : server.slice(0, index);
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function queryString(query: RequestOptionsLite["query"]): string {
  if (query === undefined) return "";
  const entries = Object.entries(query).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
  const text = new URLSearchParams(entries.map(([key, value]): [string, string] => [key, String(value)])).toString();
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
