/**
 * The cache a reflector fills: the latest known state of every object of one
 * resource across all logical clusters, keyed `cluster|namespace/name`
 * (`cluster|name` when cluster-scoped), with indexes that stay consistent on
 * every write.
 *
 * Owns: indexes, and the resourceVersion-equality check that turns a
 * re-applied event into a no-op. Must not: talk to a server, order
 * resourceVersions (they are opaque; only equality means anything), or copy
 * objects. What it hands out is shared by every reader, so it is read-only
 * twice over: typed DeepReadonly, and deep-frozen when it enters the store,
 * so that not even a cast lets one reconciler change what another reads
 * (a reconciler that needs to edit an object edits a `structuredClone`).
 * One store belongs to one reflector: after a relist it removes every object
 * that reflector did not list.
 */
import { clusterOf, type KubeObject } from "@edgeconnect/kcp-ts";
import { objectKey, type Keyable } from "./object-key.js";

/** Built-in index: the object's logical cluster ("" when it has no `kcp.io/cluster`). */
export const CLUSTER_INDEX = "cluster";
/** Built-in index: `<cluster>/<namespace>`; cluster-scoped objects are not in it. */
export const CLUSTER_NAMESPACE_INDEX = "cluster-namespace";

/**
 * `T` with every property and array element, however deep, read-only: what
 * the store hands out. For JSON data (a function type would lose its call
 * signature). A homomorphic mapped type, so that any `T` is assignable to it
 * and TypeScript infers `T` back from it (see `mutableCopy`); `unknown`
 * values (KubeObject's index signature) stay `unknown`, since mapping them
 * would turn them into `{}`.
 */
export type DeepReadonly<T> = { readonly [K in keyof T]: unknown extends T[K] ? T[K] : DeepReadonly<T[K]> };

/** A deep copy of a stored object that the caller owns and may change. */
export function mutableCopy<T>(obj: DeepReadonly<T>): T {
  return structuredClone(obj) as T;
}

/**
 * Maps an object to the index values it is found under (none, one or many).
 * Must be pure: the same object always gives the same values.
 */
export type Indexer<T> = (obj: DeepReadonly<T>) => readonly string[];

export interface StoreOptions<T> {
  /**
   * Custom indexes by name (by label, by owner uid, ...), queried with
   * `byIndex`. The built-in names are reserved. Default: none.
   */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/** What `upsert` changed: `old` is absent when the object is new. */
export interface StoreChange<T> {
  readonly old?: DeepReadonly<T>;
  readonly current: DeepReadonly<T>;
}

// Typed by what they read: a DeepReadonly of the store's type parameter is
// assignable to that, where it is not to DeepReadonly<KubeObject>.
const byCluster = (obj: Keyable): readonly string[] => [clusterOf(obj) ?? ""];
const byClusterNamespace = (obj: Keyable): readonly string[] => {
  const namespace = obj.metadata?.namespace;
  return namespace ? [`${clusterOf(obj) ?? ""}/${namespace}`] : [];
};

/**
 * An object with the index values it was filed under, kept so that removal
 * unfiles exactly what was filed, whatever happened to the object since.
 */
interface Entry<T> {
  readonly object: DeepReadonly<T>;
  /** Kept beside the object: TypeScript cannot read it through DeepReadonly of a type parameter. */
  readonly resourceVersion: string | undefined;
  /** Per indexer, in the order of `Store.indexers`. */
  readonly values: readonly (readonly string[])[];
}

type Index = Map<string, Set<string>>;

export class Store<T extends KubeObject = KubeObject> {
  private readonly indexers: readonly (readonly [string, Indexer<T>])[];
  private readonly entries = new Map<string, Entry<T>>();
  /** Per indexer, same order as `indexers`: value → keys. */
  private readonly indexes: readonly Index[];

  constructor(options: StoreOptions<T> = {}) {
    const custom = Object.entries(options.indexers ?? {});
    for (const [name] of custom) {
      if (name === CLUSTER_INDEX || name === CLUSTER_NAMESPACE_INDEX) throw new Error(`index name "${name}" is built in`);
    }
    this.indexers = [[CLUSTER_INDEX, byCluster], [CLUSTER_NAMESPACE_INDEX, byClusterNamespace], ...custom];
    this.indexes = this.indexers.map((): Index => new Map());
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): DeepReadonly<T> | undefined {
    return this.entries.get(key)?.object;
  }

  list(): DeepReadonly<T>[] {
    return Array.from(this.entries.values(), (entry) => entry.object);
  }

  /** The objects filed under `value` in index `name`; throws for an unknown index (a typo would otherwise look like "no objects"). */
  byIndex(name: string, value: string): DeepReadonly<T>[] {
    const keys = this.keysUnder(name, value) ?? new Set<string>();
    return Array.from(keys, (key) => this.entries.get(key)?.object).filter((obj) => obj !== undefined);
  }

  /** How many objects `byIndex(name, value)` would return, without building the array; throws for an unknown index too. */
  indexCount(name: string, value: string): number {
    return this.keysUnder(name, value)?.size ?? 0;
  }

  /**
   * Stores `obj`, replacing the object with its key, and freezes it (the
   * store takes it over: the caller must not change it afterwards either). A
   * no-op returning `undefined` when the stored object has the same
   * resourceVersion: the event was applied already, and `obj` stays as it
   * was. Objects without a resourceVersion always replace.
   */
  upsert(obj: T): StoreChange<T> | undefined {
    const key = objectKey(obj);
    const existing = this.entries.get(key);
    if (existing !== undefined && sameVersion(existing.resourceVersion, obj)) return undefined;
    // Index values first: an indexer that throws leaves the store untouched.
    const entry = this.entryOf(obj);
    if (existing !== undefined) this.unfile(key, existing);
    this.entries.set(key, entry);
    this.file(key, entry);
    return existing === undefined ? { current: entry.object } : { old: existing.object, current: entry.object };
  }

  /** Removes the object with `obj`'s key; returns the stored object, or `undefined` when there was none. */
  remove(obj: Keyable): DeepReadonly<T> | undefined {
    const key = objectKey(obj);
    const existing = this.entries.get(key);
    if (existing === undefined) return undefined;
    this.entries.delete(key);
    this.unfile(key, existing);
    return existing.object;
  }

  /**
   * Removes every object whose key is not in `keep` and returns them: the
   * end of a relist, which upserted what it listed and now drops what it did
   * not.
   */
  removeExcept(keep: ReadonlySet<string>): DeepReadonly<T>[] {
    const removed: DeepReadonly<T>[] = [];
    // Deleting the entry being visited does not disturb a Map's iteration.
    for (const [key, entry] of this.entries) {
      if (keep.has(key)) continue;
      this.entries.delete(key);
      this.unfile(key, entry);
      removed.push(entry.object);
    }
    return removed;
  }

  private keysUnder(name: string, value: string): ReadonlySet<string> | undefined {
    const position = this.indexers.findIndex(([indexName]) => indexName === name);
    if (position === -1) throw new Error(`no index "${name}"`);
    return this.indexes[position]?.get(value);
  }

  private entryOf(item: T): Entry<T> {
    const object = deepFreeze(item);
    return { object, resourceVersion: item.metadata?.resourceVersion, values: this.indexers.map(([, indexer]) => indexer(object)) };
  }

  private file(key: string, entry: Entry<T>): void {
    this.indexes.forEach((index, position) => {
      for (const value of entry.values[position] ?? []) {
        const keys = index.get(value);
        if (keys === undefined) index.set(value, new Set([key]));
        else keys.add(key);
      }
    });
  }

  private unfile(key: string, entry: Entry<T>): void {
    this.indexes.forEach((index, position) => {
      for (const value of entry.values[position] ?? []) {
        const keys = index.get(value);
        keys?.delete(key);
        // Empty sets would pile up as clusters and namespaces come and go.
        if (keys?.size === 0) index.delete(value);
      }
    });
  }
}

/** Freezes `value` and everything reachable from it, in place. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Equality only: resourceVersions are opaque and must never be ordered. */
function sameVersion(stored: string | undefined, incoming: KubeObject): boolean {
  const rv = incoming.metadata?.resourceVersion;
  return rv !== undefined && stored === rv;
}
