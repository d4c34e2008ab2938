/**
 * The infrastructure cluster as the reconciler sees it: our managed
 * resources and Cluster API Clusters there, read from caches filled by
 * watches (so a Crossplane or Cluster API status change reconciles the
 * tenant's cluster at once), and the few writes we make, each bound to the
 * reconcile's signal and confined to one tenant namespace by the caller.
 */
import { ApiDiscovery, HttpStatusError, type DiscoveredResource, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { CLUSTER_NAMESPACE_INDEX, joinKey, Reflector, Store, type DeepReadonly, type EventHandlers, type ReflectorLogger, type Source } from "@edgeconnect/runtime";
import { MANAGED_BY, MANAGED_BY_LABEL } from "@edgeconnect/provisioning";
import { appliedAlready, withAppliedRecord } from "./applied-record.js";
import { FAILURES_TO_UNREACHABLE, InfrastructureReachability, PROBE_INTERVAL_MS, PROBE_TIMEOUT_MS } from "./reachability.js";

export const FIELD_MANAGER = "provider-controller";

/** A kind on the infrastructure cluster, by its API path pieces. */
export interface InfraKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
}

export interface Namespace extends KubeObject {
  status?: { phase?: string };
}

export function kindPath(kind: InfraKind, namespace?: string, name?: string): string {
  const base = kind.apiVersion.includes("/") ? `/apis/${kind.apiVersion}` : `/api/${kind.apiVersion}`;
  const scoped = namespace === undefined ? base : `${base}/namespaces/${namespace}`;
  return name === undefined ? `${scoped}/${kind.plural}` : `${scoped}/${kind.plural}/${name}`;
}

export const NAMESPACES: InfraKind = { apiVersion: "v1", kind: "Namespace", plural: "namespaces" };
export const SECRETS: InfraKind = { apiVersion: "v1", kind: "Secret", plural: "secrets" };

/**
 * How long after the start a cache that has not listed yet makes a
 * reconcile wait rather than tell the tenant: as long as the probe takes to
 * find a cluster that never answers gone. A process just restarted (a
 * rollout, a crash) has not listed yet, and telling every tenant then that
 * the infrastructure is unreachable turned Ready clusters Unknown at each
 * restart of a chaos run; past this, caches that still cannot list (an
 * outage since the start, RBAC that forbids the list) are told.
 */
export const LIST_GRACE_MS = FAILURES_TO_UNREACHABLE * (PROBE_INTERVAL_MS + PROBE_TIMEOUT_MS);

/**
 * Whether a reconcile may act on the infrastructure caches now. Not
 * available: `since` when the probe found the cluster gone; `listing` while
 * the caches have not listed yet within `LIST_GRACE_MS` of the start (the
 * reconcile waits, saying nothing); neither once they still have not.
 */
export type Availability = { readonly available: true } | { readonly available: false; readonly since?: Date; readonly listing?: true };

/** A kind as the API server's discovery serves it. */
export type ServedKind = DiscoveredResource;

/**
 * Reflectors over the kinds we manage, limited by label to our own objects,
 * whether the cluster answers, and the client for writes. `watch(kind)`
 * (and `track` for other caches of it) must be called for every kind
 * before the sources start.
 *
 * The controller goes on without the infrastructure cluster: its sources
 * are optional ones (the manager starts the controllers without waiting
 * for them), and a reconcile acts on them only while `available`; until
 * then tenants are told it is unreachable.
 */
export class InfrastructureCluster {
  private readonly stores = new Map<string, Store>();
  private readonly reflectors = new Map<string, Source>();
  // Template kinds are the platform team's choice; their plurals come from discovery, kept for every reconcile.
  private readonly discovery: ApiDiscovery;
  private readonly reachability: InfrastructureReachability;
  private readonly probing = new AbortController();
  private probed: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(
    private readonly client: RestClient,
    private readonly logger?: ReflectorLogger & { info(obj: object, msg: string): void },
    options: { readonly onReachabilityChange?: (reachable: boolean) => void; readonly probeIntervalMs?: number; readonly now?: () => number } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
    this.discovery = new ApiDiscovery(client);
    this.reachability = new InfrastructureReachability({
      client,
      ...(options.onReachabilityChange === undefined ? {} : { onChange: options.onReachabilityChange }),
      ...(options.probeIntervalMs === undefined ? {} : { intervalMs: options.probeIntervalMs }),
      ...(logger === undefined ? {} : { logger }),
    });
  }

  /** Whether a reconcile may act on the caches: every one has listed, and the API server answers now (see `Availability`). */
  availability(): Availability {
    if (!this.reachability.reachable) return { available: false, since: this.reachability.since };
    if ([...this.reflectors.values()].every((source) => source.hasSynced)) return { available: true };
    return this.now() - this.startedAt < LIST_GRACE_MS ? { available: false, listing: true } : { available: false };
  }

  /** Another cache of this cluster, counted in `availability` and started with the others. */
  track(name: string, source: Source): void {
    this.reflectors.set(name, source);
  }

  /** Starts caching `kind` (our objects only), telling `handlers` of changes. */
  watch(kind: InfraKind, handlers: EventHandlers): void {
    const store = new Store();
    this.stores.set(kind.kind, store);
    this.reflectors.set(
      kind.kind,
      new Reflector({
        client: this.client,
        path: kindPath(kind),
        labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}`,
        store,
        handlers,
        ...(this.logger ? { logger: this.logger } : {}),
      }),
    );
  }

  /** One source per cache, and the probe: for the manager's optional sources and readiness. */
  sources(): Record<string, Source> {
    const probe: Source = {
      get hasSynced() {
        return true;
      },
      start: async () => {
        this.probed = this.reachability.run(this.probing.signal);
        await this.probed;
      },
      stop: async () => {
        this.probing.abort();
        await this.probed;
      },
    };
    return { ...Object.fromEntries([...this.reflectors].map(([kind, reflector]) => [`infra-${kind.toLowerCase()}`, reflector])), "infra-reachability": probe };
  }

  /** The cached objects of `kind` in `namespace`. */
  list<T extends KubeObject>(kind: InfraKind, namespace: string): DeepReadonly<T>[] {
    const store = this.stores.get(kind.kind);
    if (store === undefined) throw new Error(`${kind.kind} is not watched`);
    // By the store's own index (logical cluster "" off kcp): a reconcile reads its tenant's namespace, whatever the number of tenants.
    return store.byIndex(CLUSTER_NAMESPACE_INDEX, `/${namespace}`) as DeepReadonly<T>[];
  }

  /** The same client with every call bound to `signal`: a reconcile's view. */
  bound(signal: AbortSignal): InfrastructureWrites {
    return new InfrastructureWrites(this.client.withSignal(signal), this.discovery, signal, (kind) => {
      const store = this.stores.get(kind.kind);
      return store && ((namespace, name) => store.get(joinKey({ cluster: "", namespace: namespace ?? "", name })));
    });
  }
}

/** The writes one reconcile makes, each ending when its signal aborts. */
export class InfrastructureWrites {
  constructor(
    private readonly client: RestClient,
    private readonly discovery: ApiDiscovery,
    private readonly signal: AbortSignal,
    /** How to read `kind`'s cache; undefined for a kind without one. */
    private readonly cacheOf: (kind: InfraKind) => ((namespace: string | undefined, name: string) => DeepReadonly<KubeObject> | undefined) | undefined,
  ) {}

  /** The kind `apiVersion`/`kind` as served; undefined when the API server serves no such kind. */
  async served(apiVersion: string, kind: string): Promise<ServedKind | undefined> {
    return this.discovery.served(apiVersion, kind, this.signal);
  }

  async getNamespace(name: string): Promise<Namespace | undefined> {
    return this.get<Namespace>(NAMESPACES, undefined, name);
  }

  /** Creates the namespace; undefined when one of that name appeared meanwhile (re-read it). */
  async createNamespace(namespace: Namespace): Promise<Namespace | undefined> {
    try {
      return await this.client.create<Namespace>(kindPath(NAMESPACES), namespace);
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 409) return undefined;
      throw err;
    }
  }

  async get<T extends KubeObject>(kind: InfraKind, namespace: string | undefined, name: string): Promise<T | undefined> {
    try {
      return await this.client.get<T>(kindPath(kind, namespace, name));
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return undefined;
      throw err;
    }
  }

  /**
   * Server-side apply with our field manager; the objects are ours, so
   * conflicts are forced. Strict field validation: a field the served
   * schema lacks (a provider version without it) fails loudly instead of
   * being pruned. Resolves with the object as stored (`R`: with its status).
   * For a cached kind, an apply that would change nothing (applied-record.ts)
   * is not sent, and resolves with the cached object.
   */
  async apply<T extends KubeObject, R extends KubeObject = T>(kind: InfraKind, obj: T): Promise<R> {
    const namespace = obj.metadata?.namespace;
    const name = obj.metadata?.name;
    if (name === undefined) throw new Error(`${kind.kind} to apply has no name`);
    const cache = this.cacheOf(kind);
    if (cache === undefined) return this.client.apply<R>(kindPath(kind, namespace, name), obj, FIELD_MANAGER, { fieldValidation: "Strict" });
    const body = withAppliedRecord(obj);
    const cached = cache(namespace, name);
    if (appliedAlready(body, cached)) return cached as unknown as R;
    return this.client.apply<R>(kindPath(kind, namespace, name), body, FIELD_MANAGER, { fieldValidation: "Strict" });
  }

  /** Creates `obj` unless it exists; returns what is there. For objects whose content must never change once made (keys). */
  async createIfAbsent<T extends KubeObject>(kind: InfraKind, obj: T): Promise<T> {
    const namespace = obj.metadata?.namespace;
    try {
      return await this.client.create<T>(kindPath(kind, namespace), obj);
    } catch (err) {
      if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
      const existing = await this.get<T>(kind, namespace, obj.metadata?.name ?? "");
      if (existing === undefined) throw new Error(`${kind.kind} ${obj.metadata?.name ?? ""} conflicted on create but is gone; retrying`, { cause: err });
      return existing;
    }
  }

  /** Deletes; true once it is gone (absent already), false while it still exists. */
  async delete(kind: InfraKind, namespace: string | undefined, name: string): Promise<boolean> {
    try {
      await this.client.delete(kindPath(kind, namespace, name), { query: { propagationPolicy: "Background" } });
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return true;
      throw err;
    }
    return (await this.get(kind, namespace, name)) === undefined;
  }

  /**
   * The objects of `kind` in `namespace` carrying every one of `labels`, as
   * the API server holds them now: for decisions a cache that lags behind
   * must not make (what is left to delete). Unpaged: one tenant namespace
   * holds a handful of each kind.
   */
  async list<T extends KubeObject>(kind: InfraKind, namespace: string, labels: Readonly<Record<string, string>>): Promise<T[]> {
    const labelSelector = Object.entries(labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(",");
    return (await this.client.list<T>(kindPath(kind, namespace), { query: { labelSelector } })).items;
  }
}
