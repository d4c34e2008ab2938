/**
 * `KcpLoadSimulator`: a loopback HTTP server that plays kcp for one
 * controller on one APIExport, with as many synthetic logical clusters as a
 * load test needs. A simulator, not kcp: no workspaces API, no
 * authorization beyond one bearer token, no admission, no schemas.
 *
 * It serves the provider workspace (`/clusters/<provider>`: the
 * APIExportEndpointSlice, whatever else the test puts there such as a
 * catalogue, and Leases for leader election), the tenants' workspaces
 * (`/clusters/<tenant>`, for the test to write as a tenant would), and the
 * export's virtual workspace, whose URL the slice names. Binding a tenant
 * (`bind`) creates its APIBinding and makes its objects visible through the
 * virtual workspace; `unbind` reverses both.
 *
 * Tests seed objects directly (`put`, no HTTP) and observe every change with
 * `subscribe`; `requests()` counts what clients asked, by verb, view and
 * resource.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonObject } from "./patch.js";
import { describeKind } from "./requests.js";
import { Router, type RequestRecord, type VirtualWorkspaceGrant } from "./server.js";
import { Store, typeKey, type Collection, type Entry, type EventType, type ResourceType, type Watcher } from "./store.js";

export interface SimulatedResource extends ResourceType {
  /** How the export's virtual workspace serves it; undefined: it does not. */
  readonly virtualWorkspace?: VirtualWorkspaceGrant;
}

export interface KcpLoadSimulatorOptions {
  /** The provider workspace's logical cluster, where the export and its slice live. Default `root:provider`. */
  readonly providerCluster?: string;
  /** The APIExport's name (its slice has the same). */
  readonly exportName: string;
  /** Resources beyond kcp's own (Secrets, Events, Leases, APIBindings, APIExportEndpointSlices, which are always served). */
  readonly resources: readonly SimulatedResource[];
  /** Secrets through the virtual workspace: the claim's selector and verbs. Default: no selector, all verbs. */
  readonly secretsClaim?: VirtualWorkspaceGrant;
  /** Events through the virtual workspace. Default: create and patch. */
  readonly eventsClaim?: VirtualWorkspaceGrant;
  /** Changes kept per resource for watches that resume; older versions get 410. Default 50 000. */
  readonly historyPerResource?: number;
  /** How often open watches that asked for bookmarks get one. Default 10 s. */
  readonly bookmarkIntervalMs?: number;
  /** How long a paged list's continue token stays valid. Default 5 min. */
  readonly continueTtlMs?: number;
  /** Default 127.0.0.1:0. */
  readonly host?: string;
  readonly port?: number;
}

const KCP_RESOURCES: readonly ResourceType[] = [
  { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true, status: false },
  { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true, status: false },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true, status: false },
  { group: "apis.kcp.io", version: "v1alpha2", plural: "apibindings", kind: "APIBinding", namespaced: false, status: true },
  { group: "apis.kcp.io", version: "v1alpha1", plural: "apiexportendpointslices", kind: "APIExportEndpointSlice", namespaced: false, status: true },
];

const BINDINGS = KCP_RESOURCES[3] as ResourceType;
const SLICES = KCP_RESOURCES[4] as ResourceType;

export interface ChangeListener {
  (type: EventType, object: JsonObject, cluster: string): void;
}

export class KcpLoadSimulator {
  readonly providerCluster: string;
  readonly token = randomBytes(16).toString("hex");
  private readonly store: Store;
  private readonly router: Router;
  private readonly bound = new Set<string>();
  private readonly watchers = new Set<{ watcher: Watcher; collection: Collection; end: () => void }>();
  private readonly counts = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];
  private server: Server | undefined;
  private baseUrl = "";

  private constructor(private readonly options: KcpLoadSimulatorOptions) {
    this.providerCluster = options.providerCluster ?? "root:provider";
    const types = [...KCP_RESOURCES, ...options.resources];
    this.store = new Store(types, options.historyPerResource ?? 50_000);
    const grants = new Map<string, VirtualWorkspaceGrant>();
    for (const resource of options.resources) if (resource.virtualWorkspace) grants.set(typeKey(resource.group, resource.version, resource.plural), resource.virtualWorkspace);
    grants.set(typeKey("", "v1", "secrets"), { ...options.secretsClaim, claimed: true });
    grants.set(typeKey("", "v1", "events"), { verbs: ["create", "patch"], ...options.eventsClaim, claimed: true });
    grants.set(typeKey(BINDINGS.group, BINDINGS.version, BINDINGS.plural), { verbs: ["get", "list", "watch"] });
    this.router = new Router({
      store: this.store,
      token: this.token,
      exportId: `${this.providerCluster}/${options.exportName}`,
      claimedLabel: `claimed.internal.apis.kcp.io/${createHash("sha256").update(`${this.providerCluster}/${options.exportName}`).digest("base64url").slice(0, 38)}`,
      grants,
      isBound: (cluster) => this.bound.has(cluster),
      continueTtlMs: options.continueTtlMs ?? 5 * 60_000,
      onRequest: (record) => this.count(record),
    });
  }

  static async start(options: KcpLoadSimulatorOptions): Promise<KcpLoadSimulator> {
    const simulator = new KcpLoadSimulator(options);
    await simulator.listen();
    return simulator;
  }

  private async listen(): Promise<void> {
    const server = createServer((request, response) => {
      void this.router.handle(request, response, this.watchers);
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", resolve);
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    this.baseUrl = `http://${address.address}:${address.port}`;
    this.put(this.providerCluster, SLICES, {
      metadata: { name: this.options.exportName },
      spec: { export: { path: this.providerCluster, name: this.options.exportName } },
    });
    this.writeSliceStatus();
    const bookmarkMs = this.options.bookmarkIntervalMs ?? 10_000;
    this.timers.push(setInterval(() => this.bookmark(), bookmarkMs).unref());
    this.timers.push(setInterval(() => this.router.expireSnapshots(Date.now()), 30_000).unref());
  }

  /** The server's root URL. */
  get url(): string {
    return this.baseUrl;
  }

  /** The export's virtual workspace URL, as the slice names it. */
  get virtualWorkspaceUrl(): string {
    return `${this.baseUrl}/services/apiexport/${this.providerCluster}/${this.options.exportName}`;
  }

  /** A kubeconfig (YAML is JSON's superset: this is JSON) for `/clusters/<cluster>`, default the provider workspace. */
  kubeconfig(cluster = this.providerCluster): string {
    const name = "kcp-load-simulator";
    return JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name, cluster: { server: `${this.baseUrl}/clusters/${cluster}` } }],
      users: [{ name, user: { token: this.token } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      "current-context": name,
    });
  }

  /** Creates or replaces an object without HTTP (as its tenant would write it); returns it as stored. */
  put(cluster: string, type: ResourceType, object: object): JsonObject {
    const body = object as JsonObject;
    const metadata = (body.metadata ?? {}) as JsonObject;
    const text = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);
    const context = { type, cluster, namespace: type.namespaced ? text(metadata.namespace, "default") : "", name: text(metadata.name, "") };
    const collection = this.store.collection(type.group, type.version, type.plural);
    const existing = collection?.get(context.cluster, context.namespace, context.name);
    const entry = existing === undefined ? this.store.create(context, body) : this.store.patch(context, { contentType: "application/merge-patch+json", body });
    return JSON.parse(entry.json) as JsonObject;
  }

  /** One object as stored, or undefined. */
  get(cluster: string, type: ResourceType, namespace: string, name: string): JsonObject | undefined {
    const entry = this.store.collection(type.group, type.version, type.plural)?.get(cluster, namespace, name);
    return entry === undefined ? undefined : (JSON.parse(entry.json) as JsonObject);
  }

  /** Every object of a type in one cluster or ("*") all. */
  list(cluster: string, type: ResourceType): JsonObject[] {
    const collection = this.store.collection(type.group, type.version, type.plural);
    return collection === undefined ? [] : [...collection.entries(cluster)].map((e: Entry) => JSON.parse(e.json) as JsonObject);
  }

  /** The cluster binds the export: its APIBinding exists and the virtual workspace serves its objects. */
  bind(cluster: string): void {
    this.bound.add(cluster);
    this.put(cluster, BINDINGS, {
      metadata: { name: this.options.exportName },
      spec: { reference: { export: { path: this.providerCluster, name: this.options.exportName } } },
    });
  }

  /** The binding goes: its APIBinding is deleted, and the virtual workspace no longer serves the cluster (open watches get no DELETED for its objects). */
  unbind(cluster: string): void {
    this.bound.delete(cluster);
    const context = { type: BINDINGS, cluster, namespace: "", name: this.options.exportName };
    if (this.store.collection(BINDINGS.group, BINDINGS.version, BINDINGS.plural)?.get(cluster, "", this.options.exportName) !== undefined) this.store.remove(context);
  }

  get boundClusters(): number {
    return this.bound.size;
  }

  /** Calls `listener` after every change of `type` (seeding included), synchronously. Returns the unsubscribe. */
  subscribe(type: ResourceType, listener: ChangeListener): () => void {
    const collection = this.store.collection(type.group, type.version, type.plural);
    if (collection === undefined) throw new Error(`the simulator does not serve ${type.plural}`);
    // A watch whose "response" is the listener: the same fan-out as HTTP watches.
    let lastKind: EventType = "ADDED";
    const sink = {
      write: (line: string): boolean => {
        const event = JSON.parse(line) as { type: EventType; object: JsonObject };
        lastKind = event.type;
        const meta = (event.object.metadata ?? {}) as JsonObject;
        const annotations = (meta.annotations ?? {}) as Record<string, string>;
        listener(lastKind, event.object, annotations["kcp.io/cluster"] ?? "");
        return true;
      },
    };
    const watcher: Watcher = { response: sink as never, accepts: () => true, bookmarks: false };
    collection.watchers.add(watcher);
    return () => collection.watchers.delete(watcher);
  }

  /** Requests by `verb view scope resource[ patchType] status` (requests.ts), with their count. */
  requests(): Map<string, number> {
    return new Map(this.counts);
  }

  /** Objects stored per resource plural. */
  objectCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const collection of this.store.all()) out[collection.type.plural] = collection.size;
    return out;
  }

  /** Open watches. */
  get openWatches(): number {
    return this.watchers.size;
  }

  /** Ends every open watch (clients see the server close them, as on an API server restart). */
  endWatches(): void {
    for (const handle of [...this.watchers]) handle.end();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.endWatches();
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private writeSliceStatus(): void {
    const context = { type: SLICES, cluster: this.providerCluster, namespace: "", name: this.options.exportName };
    this.store.patch(context, { contentType: "application/merge-patch+json", body: { status: { endpoints: [{ url: this.virtualWorkspaceUrl }] } }, subresource: "status" });
  }

  private bookmark(): void {
    const rv = String(this.store.resourceVersion);
    for (const { watcher, collection } of this.watchers) {
      if (!watcher.bookmarks) continue;
      const type = collection.type;
      const apiVersion = type.group === "" ? type.version : `${type.group}/${type.version}`;
      watcher.response.write(`{"type":"BOOKMARK","object":{"kind":"${type.kind}","apiVersion":"${apiVersion}","metadata":{"resourceVersion":"${rv}"}}}\n`);
    }
  }

  private count(record: RequestRecord): void {
    const key = `${describeKind(record)} ${record.status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
