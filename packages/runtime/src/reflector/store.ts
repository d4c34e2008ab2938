/**
 * The cache a reflector fills: the latest known state of every object of one
 * resource across all logical clusters, keyed `cluster|namespace/name`
 * (`cluster|name` when cluster-scoped), with indexes that stay consistent on
 * every write.
 *
 * Owns: keys, indexes, and the resourceVersion-equality check that turns a
 * re-applied event into a no-op. Must not: talk to a server, order
 * resourceVersions (they are opaque; only equality means anything), or copy
 * objects (what it hands out is shared; treat it as read-only). One store
 * belongs to one reflector: `replace` swaps the whole content.
 */
import { clusterOf, type KubeObject } from "@edgeconnect/kcp-ts";
import { ObjectKeyError } from "./errors.js";

/** Built-in index: the object's logical cluster ("" when it has no `kcp.io/cluster`). */
export const CLUSTER_INDEX = "cluster";
/** Built-in index: `<cluster>/<namespace>`; cluster-scoped objects are not in it. */
export const CLUSTER_NAMESPACE_INDEX = "cluster-namespace";

/**
 * Maps an object to the index values it is found under (none, one or many).
 * Must be pure: the same object always gives the same values.
 */
export type Indexer<T> = (obj: T) => readonly string[];

export interface StoreOptions<T> {
  /**
   * Custom indexes by name (by label, by owner uid, ...), queried with
   * `byIndex`. The built-in names are reserved. Default: none.
   */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/** What `upsert` changed: `old` is absent when the object is new. */
export interface StoreChange<T> {
  readonly old?: T;
  readonly current: T;
}

/** What a `replace` changed, to be reported as events. */
export interface ReplaceResult<T> {
  readonly added: T[];
  readonly updated: [old: T, current: T][];
  readonly deleted: T[];
}

export interface KeyParts {
  readonly cluster: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
  readonly name: string;
}

/** The store key of an object; throws ObjectKeyError when it has no name. */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") throw new ObjectKeyError(obj);
  const cluster = clusterOf(obj) ?? "";
  const namespace = obj.metadata?.namespace;
  return namespace ? `${cluster}|${namespace}/${name}` : `${cluster}|${name}`;
}

/** The parts of a store key. A key without `|` is read as cluster "". */
export function splitKey(key: string): KeyParts {
  const bar = key.indexOf("|");
  const cluster = bar === -1 ? "" : key.slice(0, bar);
  const rest = key.slice(bar + 1);
  const slash = rest.indexOf("/");
  return slash === -1 ? { cluster, name: rest } : { cluster, namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

const byCluster: Indexer<KubeObject> = (obj) => [clusterOf(obj) ?? ""];
const byClusterNamespace: Indexer<KubeObject> = (obj) => {
  const namespace = obj.metadata?.namespace;
  return namespace ? [`${clusterOf(obj) ?? ""}/${namespace}`] : [];
};

/**
 * An object with the index values it was filed under, kept so that removal
 * unfiles exactly what was filed, whatever happened to the object since.
 */
interface Entry<T> {
  readonly object: T;
  /** Per indexer, in the order of `Store.indexers`. */
  readonly values: readonly (readonly string[])[];
}

type Index = Map<string, Set<string>>;

export class Store<T extends KubeObject = KubeObject> {
  private readonly indexers: readonly (readonly [string, Indexer<T>])[];
  private entries = new Map<string, Entry<T>>();
  /** Per indexer, same order as `indexers`: value → keys. */
  private indexes: Index[];

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

  get(key: string): T | undefined {
    return this.entries.get(key)?.object;
  }

  list(): T[] {
    return Array.from(this.entries.values(), (entry) => entry.object);
  }

  /** The objects filed under `value` in index `name`; throws for an unknown index (a typo would otherwise look like "no objects"). */
  byIndex(name: string, value: string): T[] {
    const position = this.indexers.findIndex(([indexName]) => indexName === name);
    if (position === -1) throw new Error(`no index "${name}"`);
    const keys = this.indexes[position]?.get(value) ?? new Set<string>();
    return Array.from(keys, (key) => this.entries.get(key)?.object).filter((obj): obj is T => obj !== undefined);
  }

  /**
   * Stores `obj`, replacing the object with its key. A no-op returning
   * `undefined` when the stored object has the same resourceVersion: the
   * event was applied already. Objects without a resourceVersion always
   * replace.
   */
  upsert(obj: T): StoreChange<T> | undefined {
    const key = objectKey(obj);
    const existing = this.entries.get(key);
    if (existing !== undefined && sameVersion(existing.object, obj)) return undefined;
    // Index values first: an indexer that throws leaves the store untouched.
    const entry = this.entryOf(obj);
    if (existing !== undefined) this.unfile(key, existing);
    this.entries.set(key, entry);
    this.file(this.indexes, key, entry);
    return existing === undefined ? { current: obj } : { old: existing.object, current: obj };
  }

  /** Removes the object with `obj`'s key; returns the stored object, or `undefined` when there was none. */
  remove(obj: T): T | undefined {
    const key = objectKey(obj);
    const existing = this.entries.get(key);
    if (existing === undefined) return undefined;
    this.entries.delete(key);
    this.unfile(key, existing);
    return existing.object;
  }

  /**
   * Makes `items` the whole content, as after a relist, and reports the
   * difference. Unchanged objects (same resourceVersion) keep their stored
   * instance and are not reported. Atomic: on a throw (an unkeyable item, a
   * failing indexer) nothing changed. Of items sharing a key, the last wins.
   */
  replace(items: Iterable<T>): ReplaceResult<T> {
    const entries = new Map<string, Entry<T>>();
    for (const item of items) entries.set(objectKey(item), this.entryOf(item));
    const result: ReplaceResult<T> = { added: [], updated: [], deleted: [] };
    for (const [key, entry] of entries) {
      const existing = this.entries.get(key);
      if (existing === undefined) {
        result.added.push(entry.object);
      } else if (sameVersion(existing.object, entry.object)) {
        entries.set(key, existing);
      } else {
        result.updated.push([existing.object, entry.object]);
      }
    }
    for (const [key, existing] of this.entries) {
      if (!entries.has(key)) result.deleted.push(existing.object);
    }
    const indexes: Index[] = this.indexers.map((): Index => new Map());
    for (const [key, entry] of entries) this.file(indexes, key, entry);
    this.entries = entries;
    this.indexes = indexes;
    return result;
  }

  private entryOf(object: T): Entry<T> {
    return { object, values: this.indexers.map(([, indexer]) => indexer(object)) };
  }

  private file(indexes: Index[], key: string, entry: Entry<T>): void {
    indexes.forEach((index, position) => {
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

/** Equality only: resourceVersions are opaque and must never be ordered. */
function sameVersion(a: KubeObject, b: KubeObject): boolean {
  const rv = b.metadata?.resourceVersion;
  return rv !== undefined && a.metadata?.resourceVersion === rv;
}
