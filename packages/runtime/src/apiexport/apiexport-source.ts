/**
 * Everything bound to one APIExport, from every kcp shard, as one source.
 *
 * The export's APIExportEndpointSlice lists one virtual-workspace URL per
 * shard that has a binding (none before the first binding: a normal state,
 * not an error). For each URL a shard worker list-watches the export's
 * resources and its APIBindings across all bound workspaces
 * (`<url>/clusters/*`), each reflector with its own store and resourceVersion
 * cursor: resourceVersions of different shards are unrelated.
 *
 * Engagement, as multicluster-runtime engages a cluster: a shard's tenants
 * are handed to controllers only once every reflector of that shard has
 * listed. Until then its events are held back; at that moment every object
 * of the shard is reported `added` (level-triggered, so nothing is lost) and
 * `onEngage` names each of its clusters. A shard that disappears (a URL gone
 * from the slice, an endpoint flap) is a tenant leaving our view, not a
 * tenant deleting its objects: its clusters are reported to `onDisengage`,
 * and no handler sees a delete that did not happen.
 *
 * Reads go through a merged view (a logical cluster lives on exactly one
 * shard, so keys never collide); a reconcile gets a `ClusterScope` of its
 * tenant: a client for `<url>/clusters/<cluster>` of the shard that serves it,
 * bound to the reconcile's signal, and read-only listers of that cluster.
 *
 * RBAC in the provider workspace: get/list/watch on apiexportendpointslices,
 * and the verbs the controller uses on `apiexports/content` of the export.
 */
import { clusterOf, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import type { EventHandlers } from "../reconcile/handlers.js";
import { clusterLister, type Lister } from "../reflector/lister.js";
import { joinKey, type KeyParts } from "../reflector/object-key.js";
import { Reflector, type ReflectorLogger, type ReflectorOptions } from "../reflector/reflector.js";
import { CLUSTER_INDEX, Store, type DeepReadonly, type Indexer } from "../reflector/store.js";

/** A resource served by the export's virtual workspace, watched on every shard; also the handle its listers are typed by. */
export interface WatchedResource<T extends KubeObject = KubeObject> {
  /** Names the resource in logs, e.g. "kubernetesclusters". */
  readonly name: string;
  /** Path below the endpoint URL, e.g. `/clusters/*\/apis/<group>/<version>/<plural>`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly handlers?: EventHandlers<T>;
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/**
 * What one reconcile may see and touch of its tenant: nothing of another.
 * `client` writes through the shard that serves the cluster and ends its
 * calls when the reconcile's signal aborts; listers are read-only views of
 * the cluster's objects in the source's caches.
 */
export interface ClusterScope {
  readonly cluster: string;
  /** Bound to the reconcile's signal: once that aborts (the tenant's slot moved, the process stops), its calls fail. */
  readonly client: RestClient;
  /**
   * The same client bound to `signal` instead of the reconcile's. Only for
   * the write that records what cannot be taken back (a certificate the
   * cloud issued), which must still land when the reconcile was aborted
   * after the cloud acted; guard it with a precondition, since another
   * replica may own the tenant by then.
   */
  settlingClient(signal: AbortSignal): RestClient;
  lister<T extends KubeObject>(resource: WatchedResource<T>): Lister<T>;
}

/** Reflector settings shared by every reflector of the source. */
export type ReflectorTuning = Partial<
  Pick<ReflectorOptions<KubeObject>, "pageSize" | "watchTimeoutSeconds" | "inactivityTimeoutMs" | "backoff" | "shortWatchMs">
>;

/** The part of a pino logger the source uses. */
export interface SourceLogger extends ReflectorLogger {
  error(obj: object, msg: string): void;
}

export interface ApiExportSourceOptions {
  /** A client on the provider workspace; its credentials serve the endpoints too. */
  readonly provider: RestClient;
  /** The APIExportEndpointSlice; kcp makes one per export, named like it. */
  readonly sliceName: string;
  readonly resources: readonly WatchedResource[];
  /** Called when a workspace binds the export or stops binding it (on an engaged shard). */
  readonly onBindingChange?: (cluster: string, bound: boolean) => void;
  /** A cluster's shard has synced: its objects are about to be reported `added`. */
  readonly onEngage?: (cluster: string) => void;
  /**
   * A cluster left this source's view (its shard is gone): stop acting on it
   * (abort its reconciles); its objects were not deleted.
   */
  readonly onDisengage?: (cluster: string) => void;
  readonly reflector?: ReflectorTuning;
  readonly logger?: SourceLogger;
}

/** The export's APIBindings, watched on every shard beside the resources. */
const BINDINGS = { name: "apibindings", path: "/clusters/*/apis/apis.kcp.io/v1alpha2/apibindings" } as const;

interface EndpointSlice extends KubeObject {
  status?: { endpoints?: { url: string }[] };
}

/**
 * Objects replayed between two yields to the event loop at engagement: a
 * slice costs well under a millisecond of handler calls (an enqueue or an
 * index lookup each), so the loop's lag stays far below a Lease renewal.
 */
export const REPLAY_SLICE = 500;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const NO_LOGGER: SourceLogger = { warn: () => undefined, info: () => undefined, debug: () => undefined, error: () => undefined };

/** One shard's virtual workspace: a reflector per watched resource, plus the bindings. */
class ShardWorker {
  /** Keyed by the WatchedResource handle itself (typed listers look it up), and "bindings". */
  readonly reflectors = new Map<object, Reflector>();
  private readonly running: Promise<void>[] = [];
  /** Set once every reflector has listed and the shard's objects were reported. */
  engaged = false;

  constructor(
    readonly url: string,
    readonly client: RestClient,
  ) {}

  start(): void {
    for (const reflector of this.reflectors.values()) this.running.push(reflector.start());
  }

  /** Resolves once every reflector has listed; rejects if the shard stops first. */
  get synced(): Promise<unknown> {
    return Promise.all([...this.reflectors.values()].map((r) => r.synced));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.reflectors.values()].map((r) => r.stop()));
    await Promise.allSettled(this.running);
  }

  store(resource: object): Store | undefined {
    return this.reflectors.get(resource)?.store;
  }

  /**
   * The clusters this shard has seen in any store. A logical cluster lives on
   * exactly one shard, so the first store to see it (often the watched
   * resource, before the bindings have listed) already tells the route.
   */
  clusters(): Set<string> {
    const clusters = new Set<string>();
    for (const reflector of this.reflectors.values()) for (const obj of reflector.store.list()) clusters.add(clusterOf(obj) ?? "");
    clusters.delete("");
    return clusters;
  }

  /** Asked on every reconcile: a count per store, never an array of the tenant's objects. */
  serves(cluster: string): boolean {
    for (const reflector of this.reflectors.values()) if (reflector.store.indexCount(CLUSTER_INDEX, cluster) > 0) return true;
    return false;
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
  private readonly log: SourceLogger;
  private sliceRun: Promise<void> | undefined;
  /** Serialises endpoint changes: a stop must finish before the same URL starts again. */
  private changes: Promise<void> = Promise.resolve();
  /** Endpoint changes queued or running; the source has not synced while any is. */
  private pendingChanges = 0;
  private stopped = false;

  constructor(private readonly options: ApiExportSourceOptions) {
    this.log = options.logger ?? NO_LOGGER;
    const sync = (slice: DeepReadonly<EndpointSlice>): void => this.syncEndpoints((slice.status?.endpoints ?? []).map((e) => e.url));
    this.slice = new Reflector<EndpointSlice>({
      ...options.reflector,
      client: options.provider,
      path: "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices",
      fieldSelector: `metadata.name=${options.sliceName}`,
      handlers: { added: sync, updated: (_old, current) => sync(current), deleted: () => this.syncEndpoints([]) },
      logger: this.log,
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

  /**
   * The readiness check and the manager's sync gate: the slice has listed,
   * every endpoint it named has a worker, and every worker is engaged. With a
   * slice of no endpoints that is true at once: nothing is bound, so there is
   * nothing to wait for.
   */
  get hasSynced(): boolean {
    return this.slice.hasSynced && this.pendingChanges === 0 && [...this.shards.values()].every((shard) => shard.engaged);
  }

  /** The virtual-workspace URLs being watched. */
  endpoints(): string[] {
    return [...this.shards.keys()];
  }

  /** Every object of `resource` on engaged shards (a sharded controller's resync). */
  list<T extends KubeObject>(resource: WatchedResource<T>): DeepReadonly<T>[] {
    return this.engagedShards().flatMap((shard) => (shard.store(resource)?.list() ?? []) as DeepReadonly<T>[]);
  }

  /**
   * The objects of `resource` filed under `value` in its index `index`, on
   * engaged shards: what an event mapper looks up instead of scanning every
   * tenant's objects. Throws for an index the resource does not declare.
   */
  byIndex<T extends KubeObject>(resource: WatchedResource<T>, index: string, value: string): DeepReadonly<T>[] {
    return this.engagedShards().flatMap((shard) => (shard.store(resource)?.byIndex(index, value) ?? []) as DeepReadonly<T>[]);
  }

  /** One object of `resource` by its key parts, from the engaged shard that holds it. */
  get<T extends KubeObject>(resource: WatchedResource<T>, parts: KeyParts): DeepReadonly<T> | undefined {
    const key = joinKey(parts);
    for (const shard of this.engagedShards()) {
      const found = shard.store(resource)?.get(key);
      if (found !== undefined) return found as DeepReadonly<T>;
    }
    return undefined;
  }

  /** Logical clusters that bind the export, on engaged shards. */
  boundClusters(): string[] {
    const bindings = this.engagedShards().flatMap((shard) => shard.store(BINDINGS)?.list() ?? []);
    return [...new Set(bindings.map((binding) => clusterOf(binding) ?? ""))].filter((c) => c !== "");
  }

  /**
   * The scope of one reconcile of `cluster`: its shard's client for
   * `<endpoint>/clusters/<cluster>` bound to `signal`, and listers of its
   * objects. Undefined when no engaged shard serves the cluster (not bound,
   * not listed yet, or its shard gone): the controller then drops the
   * request, and engagement enqueues it again.
   */
  scopeFor(cluster: string, signal: AbortSignal): ClusterScope | undefined {
    const shard = this.engagedShards().find((candidate) => candidate.serves(cluster));
    if (shard === undefined) return undefined;
    const client = shard.client.withServer(`${shard.url}/clusters/${cluster}`);
    return {
      cluster,
      client: client.withSignal(signal),
      settlingClient: (settling) => client.withSignal(settling),
      lister: <T extends KubeObject>(resource: WatchedResource<T>): Lister<T> => {
        const store = shard.store(resource);
        if (store === undefined) throw new Error(`resource ${resource.name} is not watched by this source`);
        return clusterLister(store as Store<T>, cluster);
      },
    };
  }

  private engagedShards(): ShardWorker[] {
    return [...this.shards.values()].filter((shard) => shard.engaged);
  }

  private syncEndpoints(urls: string[]): void {
    this.pendingChanges++;
    this.changes = this.changes
      .then(async () => {
        if (this.stopped) return;
        const { start, stop } = diffEndpoints(this.shards.keys(), urls);
        for (const url of stop) await this.stopShard(url);
        for (const url of start) this.startShard(url);
      })
      // One failed change must not stop every later one: the chain goes on.
      .catch((err: unknown) => this.log.error({ err }, "applying endpoint changes failed"))
      .finally(() => this.pendingChanges--);
  }

  private startShard(url: string): void {
    const client = this.options.provider.withServer(url);
    const shard = new ShardWorker(url, client);
    const tuning = { ...this.options.reflector, logger: this.log };
    for (const resource of this.options.resources) {
      shard.reflectors.set(
        resource,
        new Reflector({
          ...tuning,
          client,
          path: resource.path,
          ...(resource.labelSelector ? { labelSelector: resource.labelSelector } : {}),
          ...(resource.indexers ? { store: new Store({ indexers: resource.indexers }) } : {}),
          ...(resource.handlers ? { handlers: this.heldBack(shard, resource.handlers) } : {}),
        }),
      );
    }
    const onBinding = this.options.onBindingChange;
    shard.reflectors.set(
      BINDINGS,
      new Reflector({
        ...tuning,
        client,
        path: BINDINGS.path,
        ...(onBinding
          ? {
              handlers: this.heldBack(shard, {
                added: (binding: DeepReadonly<KubeObject>) => onBinding(clusterOf(binding) ?? "", true),
                deleted: (binding: DeepReadonly<KubeObject>) => onBinding(clusterOf(binding) ?? "", false),
              }),
            }
          : {}),
      }),
    );
    this.shards.set(url, shard);
    shard.start();
    shard.synced.then(
      () => this.engage(shard),
      () => undefined,
    ).catch((err: unknown) => this.log.error({ err, endpoint: url }, "engaging the shard failed"));
  }

  /** Handlers that see nothing until the shard is engaged; engagement reports the state they missed. */
  private heldBack<T extends KubeObject>(shard: ShardWorker, handlers: EventHandlers<T>): EventHandlers<T> {
    const when = <A extends unknown[]>(handler: ((...args: A) => void) | undefined) =>
      handler === undefined
        ? undefined
        : (...args: A): void => {
            if (shard.engaged && this.shards.get(shard.url) === shard) handler(...args);
          };
    return { added: when(handlers.added), updated: when(handlers.updated), deleted: when(handlers.deleted) };
  }

  /**
   * Engages the shard, then replays its objects to the handlers in slices
   * that yield to the event loop: a shard of thousands of tenants must not
   * hold Lease renewals, probes and the watches of other shards for the
   * whole replay. Events arriving meanwhile go straight to the handlers;
   * an object replayed after its own newer event is only enqueued twice,
   * and a reconcile reads the cache, not the event.
   */
  private async engage(shard: ShardWorker): Promise<void> {
    if (this.shards.get(shard.url) !== shard) return;
    shard.engaged = true;
    const clusters = shard.clusters();
    for (const cluster of clusters) this.notify("onEngage", cluster);
    await this.report(shard, BINDINGS, (binding) => this.options.onBindingChange?.(clusterOf(binding) ?? "", true));
    for (const resource of this.options.resources) {
      const added = resource.handlers?.added;
      if (added) await this.report(shard, resource, added);
    }
    this.log.info({ endpoint: shard.url, clusters: clusters.size }, "shard engaged");
  }

  private async report(shard: ShardWorker, resource: WatchedResource | typeof BINDINGS, handler: (obj: DeepReadonly<KubeObject>) => void): Promise<void> {
    const objects = shard.store(resource)?.list() ?? [];
    for (let start = 0; start < objects.length; start += REPLAY_SLICE) {
      if (start > 0) await yieldToEventLoop();
      // A shard stopped mid-replay has left our view: what is left of it must not reach a handler.
      if (!shard.engaged || this.shards.get(shard.url) !== shard) return;
      for (const obj of objects.slice(start, start + REPLAY_SLICE)) {
        try {
          handler(obj);
        } catch (err) {
          this.log.error({ err, resource: resource.name }, "handler failed during engagement");
        }
      }
    }
  }

  private notify(callback: "onEngage" | "onDisengage", cluster: string): void {
    try {
      this.options[callback]?.(cluster);
    } catch (err) {
      this.log.error({ err, cluster }, `${callback} failed`);
    }
  }

  private async stopShard(url: string): Promise<void> {
    const shard = this.shards.get(url);
    if (shard === undefined) return;
    this.shards.delete(url);
    const clusters = shard.engaged ? shard.clusters() : new Set<string>();
    shard.engaged = false;
    for (const cluster of clusters) this.notify("onDisengage", cluster);
    await shard.stop();
    this.log.info({ endpoint: url, clusters: clusters.size }, "shard disengaged");
  }
}
