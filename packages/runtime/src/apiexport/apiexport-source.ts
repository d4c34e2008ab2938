/**
 * Everything bound to one APIExport, from every kcp shard, as one source.
 *
 * The export's APIExportEndpointSlice lists one virtual-workspace URL per
 * shard that has a binding (none before the first binding: a normal state,
 * not an error). For each URL a shard worker list-watches the export's
 * resources and its APIBindings across all bound workspaces
 * (`<url>/clusters/*`), each reflector with its own store and resourceVersion
 * cursor: resourceVersions of different shards are unrelated. URLs that
 * appear start a worker; URLs that disappear stop theirs and report its
 * objects as deleted.
 *
 * Reads go through a merged view (a logical cluster lives on exactly one
 * shard, so keys never collide); writes for a tenant go to
 * `<url>/clusters/<cluster>` of the shard that serves its binding.
 *
 * RBAC in the provider workspace: get/list/watch on apiexportendpointslices,
 * and the verbs the controller uses on `apiexports/content` of the export.
 */
import { clusterOf, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import type { EventHandlers } from "../reconcile/handlers.js";
import { Reflector, type ReflectorLogger, type ReflectorOptions } from "../reflector/reflector.js";
import { CLUSTER_INDEX, Store, type Indexer } from "../reflector/store.js";

/** A resource served by the export's virtual workspace, watched on every shard. */
export interface WatchedResource<T extends KubeObject = KubeObject> {
  /** Names the resource in reads and readiness, e.g. "kubernetesclusters". */
  readonly name: string;
  /** Path below the endpoint URL, e.g. `/clusters/*\/apis/<group>/<version>/<plural>`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly handlers?: EventHandlers<T>;
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/** Reflector settings shared by every reflector of the source. */
export type ReflectorTuning = Partial<
  Pick<ReflectorOptions<KubeObject>, "pageSize" | "watchTimeoutSeconds" | "inactivityTimeoutMs" | "backoff" | "shortWatchMs">
>;

export interface ApiExportSourceOptions {
  /** A client on the provider workspace; its credentials serve the endpoints too. */
  readonly provider: RestClient;
  /** The APIExportEndpointSlice; kcp makes one per export, named like it. */
  readonly sliceName: string;
  readonly resources: readonly WatchedResource[];
  /** Called when a workspace binds the export or stops binding it. */
  readonly onBindingChange?: (cluster: string, bound: boolean) => void;
  readonly reflector?: ReflectorTuning;
  readonly logger?: ReflectorLogger;
}

const BINDINGS = "apibindings";
const BINDINGS_PATH = "/clusters/*/apis/apis.kcp.io/v1alpha2/apibindings";

interface EndpointSlice extends KubeObject {
  status?: { endpoints?: { url: string }[] };
}

/** One shard's virtual workspace: a reflector per watched resource, plus the bindings. */
class ShardWorker {
  readonly reflectors = new Map<string, Reflector>();
  private readonly running: Promise<void>[] = [];

  constructor(
    readonly url: string,
    readonly client: RestClient,
  ) {}

  start(reflectors: Map<string, Reflector>): void {
    for (const [name, reflector] of reflectors) {
      this.reflectors.set(name, reflector);
      this.running.push(reflector.start());
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.reflectors.values()].map((r) => r.stop()));
    await Promise.allSettled(this.running);
  }

  get synced(): boolean {
    return [...this.reflectors.values()].every((r) => r.hasSynced);
  }

  /**
   * Whether this shard serves `cluster`: any of its stores holds an object of
   * it. A logical cluster lives on exactly one shard, so the first store to
   * see it (often the watched resource, before the bindings have listed)
   * already tells the route.
   */
  serves(cluster: string): boolean {
    return [...this.reflectors.values()].some((r) => r.store.byIndex(CLUSTER_INDEX, cluster).length > 0);
  }
}

/** Which endpoint URLs to start and to stop to get from `current` to `next`. */
export function diffEndpoints(current: Iterable<string>, next: Iterable<string>): { start: string[]; stop: string[] } {
  const have = new Set(current);
  const want = new Set(next);
  return { start: [...want].filter((url) => !have.has(url)), stop: [...have].filter((url) => !want.has(url)) };
}

export class ApiExportSource {
  private readonly shards = new Map<string, ShardWorker>();
  private readonly slice: Reflector<EndpointSlice>;
  private sliceRun: Promise<void> | undefined;
  /** Serialises endpoint changes: a stop must finish before the same URL starts again. */
  private changes: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ApiExportSourceOptions) {
    const sync = (slice: EndpointSlice): void => this.syncEndpoints((slice.status?.endpoints ?? []).map((e) => e.url));
    this.slice = new Reflector<EndpointSlice>({
      ...options.reflector,
      client: options.provider,
      path: "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices",
      fieldSelector: `metadata.name=${options.sliceName}`,
      handlers: { added: sync, updated: (_old, current) => sync(current), deleted: () => this.syncEndpoints([]) },
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  /** Runs until `stop()`. */
  async start(): Promise<void> {
    this.sliceRun = this.slice.start();
    await this.sliceRun;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.slice.stop();
    await this.sliceRun;
    await this.changes;
    await Promise.all([...this.shards.values()].map((shard) => shard.stop()));
    this.shards.clear();
  }

  /** True once the slice and every shard's reflectors have listed: the readiness check. */
  get hasSynced(): boolean {
    return this.slice.hasSynced && [...this.shards.values()].every((shard) => shard.synced);
  }

  /** The virtual-workspace URLs being watched. */
  endpoints(): string[] {
    return [...this.shards.keys()];
  }

  get<T extends KubeObject = KubeObject>(resource: string, key: string): T | undefined {
    for (const shard of this.shards.values()) {
      const found = shard.reflectors.get(resource)?.store.get(key);
      if (found !== undefined) return found as T;
    }
    return undefined;
  }

  list<T extends KubeObject = KubeObject>(resource: string): T[] {
    return [...this.shards.values()].flatMap((shard) => (shard.reflectors.get(resource)?.store.list() ?? []) as T[]);
  }

  byIndex<T extends KubeObject = KubeObject>(resource: string, index: string, value: string): T[] {
    return [...this.shards.values()].flatMap((shard) => (shard.reflectors.get(resource)?.store.byIndex(index, value) ?? []) as T[]);
  }

  /** Logical clusters that bind the export, on any shard. */
  boundClusters(): string[] {
    return [...new Set(this.list(BINDINGS).map((binding) => clusterOf(binding) ?? ""))].filter((c) => c !== "");
  }

  /**
   * A client for `<endpoint>/clusters/<cluster>` on the shard that serves the
   * cluster, or undefined if no shard has seen it (not bound, or not listed yet).
   */
  clientFor(cluster: string): RestClient | undefined {
    for (const shard of this.shards.values()) {
      if (shard.serves(cluster)) return shard.client.withServer(`${shard.url}/clusters/${cluster}`);
    }
    return undefined;
  }

  private syncEndpoints(urls: string[]): void {
    this.changes = this.changes.then(async () => {
      if (this.stopped) return;
      const { start, stop } = diffEndpoints(this.shards.keys(), urls);
      for (const url of stop) await this.stopShard(url);
      for (const url of start) this.startShard(url);
    });
  }

  private startShard(url: string): void {
    const client = this.options.provider.withServer(url);
    const shard = new ShardWorker(url, client);
    const reflectors = new Map<string, Reflector>();
    const tuning = { ...this.options.reflector, ...(this.options.logger ? { logger: this.options.logger } : {}) };
    for (const resource of this.options.resources) {
      reflectors.set(
        resource.name,
        new Reflector({
          ...tuning,
          client,
          path: resource.path,
          ...(resource.labelSelector ? { labelSelector: resource.labelSelector } : {}),
          ...(resource.indexers ? { store: new Store({ indexers: resource.indexers }) } : {}),
          ...(resource.handlers ? { handlers: resource.handlers } : {}),
        }),
      );
    }
    const onBinding = this.options.onBindingChange;
    reflectors.set(
      BINDINGS,
      new Reflector({
        ...tuning,
        client,
        path: BINDINGS_PATH,
        ...(onBinding
          ? {
              handlers: {
                added: (binding: KubeObject) => onBinding(clusterOf(binding) ?? "", true),
                deleted: (binding: KubeObject) => onBinding(clusterOf(binding) ?? "", false),
              },
            }
          : {}),
      }),
    );
    this.shards.set(url, shard);
    shard.start(reflectors);
  }

  private async stopShard(url: string): Promise<void> {
    const shard = this.shards.get(url);
    if (shard === undefined) return;
    this.shards.delete(url);
    await shard.stop();
    // Its objects are out of reach now; tell the handlers, as a relist would.
    for (const resource of this.options.resources) {
      for (const obj of shard.reflectors.get(resource.name)?.store.list() ?? []) resource.handlers?.deleted?.(obj);
    }
    for (const binding of shard.reflectors.get(BINDINGS)?.store.list() ?? []) {
      this.options.onBindingChange?.(clusterOf(binding) ?? "", false);
    }
  }
}
