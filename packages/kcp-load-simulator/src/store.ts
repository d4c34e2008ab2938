/**
 * The simulator's storage: every object of every logical cluster, one
 * resourceVersion sequence for all of them (as one etcd behind one kcp
 * shard), a bounded history of changes per resource for watches that resume,
 * and the watches themselves.
 *
 * Memory: an object is kept as its JSON text (parsed again only to be
 * written), beside its labels for selectors; entries are replaced, never
 * changed, so a list's snapshot and a watch's history share them.
 * Watches: a change is turned into its event line once and written to each
 * watch of its resource whose filter takes it; no watch ever scans the store
 * except to start.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { applyMerge, appliedFields, clone, dropReleased, isObject, jsonPatch, mergePatch, type Json, type JsonObject } from "./patch.js";
import type { Labels } from "./selectors.js";

export const CLUSTER_ANNOTATION = "kcp.io/cluster";

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** A `/status` subresource: object writes leave status alone, status writes touch only status; generation counts spec changes. */
  readonly status: boolean;
}

export const apiVersionOf = (type: ResourceType): string => (type.group === "" ? type.version : `${type.group}/${type.version}`);
export const typeKey = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`;

/** One stored object; replaced on every write. */
export interface Entry {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  /** `cluster/namespace/name`: the list order. */
  readonly key: string;
  readonly rv: number;
  readonly uid: string;
  readonly json: string;
  readonly labels: Labels;
  readonly finalizers: number;
  readonly deleting: boolean;
}

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

interface Change {
  readonly type: EventType;
  readonly entry: Entry;
}

/** A Status answer. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }

  toStatus(): JsonObject {
    return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: this.message, reason: this.reason, code: this.status };
  }
}

export interface Watcher {
  readonly response: ServerResponse;
  /** Whether the change concerns this watch (cluster, namespace, selectors, what the view may see). */
  readonly accepts: (entry: Entry) => boolean;
  readonly bookmarks: boolean;
}

export const eventLine = (type: EventType | "ERROR" | "BOOKMARK", json: string): string => `{"type":"${type}","object":${json}}\n`;

/** One resource of every cluster. */
export class Collection {
  /** cluster → `namespace/name` → entry. */
  readonly clusters = new Map<string, Map<string, Entry>>();
  readonly watchers = new Set<Watcher>();
  private history: Change[] = [];
  private historyStart = 0;
  /** The resourceVersion of the newest change dropped from the history: a watch from before it has missed something. */
  compactedRv = 0;
  /** Field manager → fields applied one level below `status`, per object key. */
  readonly statusManagers = new Map<string, Map<string, Set<string>>>();
  size = 0;

  constructor(
    readonly type: ResourceType,
    private readonly historyLimit: number,
  ) {}

  get(cluster: string, namespace: string, name: string): Entry | undefined {
    return this.clusters.get(cluster)?.get(`${namespace}/${name}`);
  }

  /** Entries of one cluster, or all with "*". */
  *entries(cluster: string): Iterable<Entry> {
    if (cluster !== "*") {
      yield* this.clusters.get(cluster)?.values() ?? [];
      return;
    }
    for (const objects of this.clusters.values()) yield* objects.values();
  }

  /** Changes after `rv`, oldest first. */
  changesAfter(rv: number): Change[] {
    const live = this.history.length - this.historyStart;
    // Binary search: the history is in resourceVersion order.
    let lo = this.historyStart;
    let hi = this.historyStart + live;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.history[mid]?.entry.rv ?? 0) <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  record(change: Change): void {
    const { entry } = change;
    let objects = this.clusters.get(entry.cluster);
    if (objects === undefined) {
      objects = new Map<string, Entry>();
      this.clusters.set(entry.cluster, objects);
    }
    const id = `${entry.namespace}/${entry.name}`;
    if (change.type === "DELETED") {
      if (objects.delete(id)) this.size--;
      if (objects.size === 0) this.clusters.delete(entry.cluster);
      this.statusManagers.delete(entry.key);
    } else {
      if (!objects.has(id)) this.size++;
      objects.set(id, entry);
    }
    this.history.push(change);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.compactedRv = this.history[this.historyStart]?.entry.rv ?? this.compactedRv;
      this.historyStart++;
      // Compact the array now and then, not on every drop.
      if (this.historyStart > this.historyLimit) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    let line: string | undefined;
    for (const watcher of this.watchers) {
      if (!watcher.accepts(entry)) continue;
      line ??= eventLine(change.type, entry.json);
      watcher.response.write(line);
    }
  }
}

export interface WriteContext {
  readonly type: ResourceType;
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/** What generation counts: everything but metadata and status. */
function specOf(obj: JsonObject): string {
  return JSON.stringify(obj, function (this: unknown, key, value: unknown) {
    return this === obj && (key === "metadata" || key === "status") ? undefined : value;
  });
}

function metadataOf(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

/** A Secret's `stringData` goes into `data`, base64-encoded, as the API server does. */
function foldStringData(obj: JsonObject): void {
  if (!isObject(obj.stringData)) return;
  const data: JsonObject = isObject(obj.data) ? obj.data : {};
  for (const [key, value] of Object.entries(obj.stringData)) data[key] = Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64");
  obj.data = data;
  delete obj.stringData;
}

export interface PatchRequest {
  readonly contentType: string;
  readonly body: Json;
  readonly fieldManager?: string;
  readonly subresource?: "status";
}

/** All collections and the resourceVersion sequence. */
export class Store {
  private readonly collections = new Map<string, Collection>();
  private rv = 0;

  constructor(
    types: readonly ResourceType[],
    private readonly historyLimit: number,
  ) {
    for (const type of types) this.collections.set(typeKey(type.group, type.version, type.plural), new Collection(type, historyLimit));
  }

  get resourceVersion(): number {
    return this.rv;
  }

  collection(group: string, version: string, plural: string): Collection | undefined {
    return this.collections.get(typeKey(group, version, plural));
  }

  all(): Iterable<Collection> {
    return this.collections.values();
  }

  private collectionOf(type: ResourceType): Collection {
    const collection = this.collections.get(typeKey(type.group, type.version, type.plural));
    if (collection === undefined) throw new ApiError(404, "NotFound", `the server could not find the requested resource (${type.plural})`);
    return collection;
  }

  private commit(context: WriteContext, obj: JsonObject, type: EventType, old: Entry | undefined): Entry {
    const collection = this.collectionOf(context.type);
    const metadata = metadataOf(obj);
    this.rv += 1;
    metadata.resourceVersion = String(this.rv);
    delete metadata.managedFields;
    const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers.length : 0;
    const deleting = typeof metadata.deletionTimestamp === "string";
    const entry: Entry = {
      cluster: context.cluster,
      namespace: context.namespace,
      name: context.name,
      key: `${context.cluster}/${context.namespace}/${context.name}`,
      rv: this.rv,
      uid: typeof metadata.uid === "string" ? metadata.uid : (old?.uid ?? ""),
      json: JSON.stringify(obj),
      labels: isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : undefined,
      finalizers,
      deleting,
    };
    // The last finalizer of an object being deleted is gone: the object goes.
    collection.record({ type: type !== "DELETED" && deleting && finalizers === 0 ? "DELETED" : type, entry });
    return entry;
  }

  get(context: WriteContext): Entry {
    const entry = this.collectionOf(context.type).get(context.cluster, context.namespace, context.name);
    if (entry === undefined) throw new ApiError(404, "NotFound", `${context.type.plural} "${context.name}" not found`);
    return entry;
  }

  create(context: WriteContext, body: Json): Entry {
    if (!isObject(body)) throw new ApiError(400, "BadRequest", "the body is not an object");
    const obj = clone(body);
    const metadata = metadataOf(obj);
    let name = typeof metadata.name === "string" ? metadata.name : "";
    if (name === "" && typeof metadata.generateName === "string") name = `${metadata.generateName}${randomUUID().slice(0, 5)}`;
    if (name === "") throw new ApiError(422, "Invalid", "metadata.name: Required value");
    const ctx = { ...context, name };
    if (this.collectionOf(ctx.type).get(ctx.cluster, ctx.namespace, name) !== undefined) {
      throw new ApiError(409, "AlreadyExists", `${ctx.type.plural} "${name}" already exists`);
    }
    return this.commit(ctx, this.fresh(ctx, obj), "ADDED", undefined);
  }

  /** Server-assigned fields of a new object. */
  private fresh(context: WriteContext, obj: JsonObject): JsonObject {
    const metadata = metadataOf(obj);
    metadata.name = context.name;
    if (context.type.namespaced) metadata.namespace = context.namespace;
    else delete metadata.namespace;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = now();
    metadata.annotations = { ...(isObject(metadata.annotations) ? metadata.annotations : {}), [CLUSTER_ANNOTATION]: context.cluster };
    delete metadata.deletionTimestamp;
    if (context.type.status) {
      metadata.generation = 1;
      delete obj.status;
    }
    obj.apiVersion = apiVersionOf(context.type);
    obj.kind = context.type.kind;
    foldStringData(obj);
    return obj;
  }

  /** PUT: the whole object, guarded by its resourceVersion when the body carries one. */
  update(context: WriteContext, body: Json, subresource?: "status"): Entry {
    if (!isObject(body)) throw new ApiError(400, "BadRequest", "the body is not an object");
    const old = this.get(context);
    const rv = isObject(body.metadata) ? body.metadata.resourceVersion : undefined;
    if (rv !== undefined && rv !== "" && rv !== String(old.rv)) {
      throw new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${context.type.plural} "${context.name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    return this.replaceWith(context, old, clone(body), subresource);
  }

  patch(context: WriteContext, request: PatchRequest): Entry {
    const collection = this.collectionOf(context.type);
    const old = collection.get(context.cluster, context.namespace, context.name);
    switch (request.contentType) {
      case "application/json-patch+json": {
        const current = this.get(context);
        return this.replaceWith(context, current, jsonPatch(JSON.parse(current.json) as JsonObject, request.body), request.subresource);
      }
      case "application/merge-patch+json": {
        const current = this.get(context);
        return this.replaceWith(context, current, mergePatch(JSON.parse(current.json) as JsonObject, request.body) as JsonObject, request.subresource);
      }
      case "application/apply-patch+yaml":
        return this.apply(context, collection, old, request);
      default:
        throw new ApiError(415, "UnsupportedMediaType", `the simulator does not take ${request.contentType} patches`);
    }
  }

  private apply(context: WriteContext, collection: Collection, old: Entry | undefined, request: PatchRequest): Entry {
    const applied = request.body;
    if (!isObject(applied)) throw new ApiError(400, "BadRequest", "an apply body must be a JSON object (YAML is not parsed by the simulator)");
    const manager = request.fieldManager;
    if (manager === undefined || manager === "") throw new ApiError(422, "Invalid", "fieldManager is required for apply patches");
    const appliedRv = isObject(applied.metadata) ? applied.metadata.resourceVersion : undefined;
    if (old !== undefined && typeof appliedRv === "string" && appliedRv !== String(old.rv)) {
      throw new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${context.type.plural} "${context.name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    if (request.subresource === "status") {
      const live = JSON.parse(this.get(context).json) as JsonObject;
      const owned = collection.statusManagers.get(old?.key ?? "") ?? new Map<string, Set<string>>();
      const fields = appliedFields(applied.status);
      const status = isObject(live.status) ? live.status : {};
      dropReleased(status, owned.get(manager) ?? new Set(), fields);
      live.status = applyMerge(status, applied.status ?? {});
      owned.set(manager, fields);
      const entry = this.replaceWith(context, this.get(context), live, "status");
      collection.statusManagers.set(entry.key, owned);
      return entry;
    }
    const rest = { ...applied };
    delete rest.status;
    if (old === undefined) {
      const obj = clone(context.type.status ? rest : applied);
      metadataOf(obj).name = context.name;
      return this.commit(context, this.fresh(context, obj), "ADDED", undefined);
    }
    const live = JSON.parse(old.json) as JsonObject;
    const merged = applyMerge(live, context.type.status ? rest : applied) as JsonObject;
    return this.replaceWith(context, old, merged, undefined);
  }

  /** Writes `next` over `old`, keeping what the write may not change, and counting generations. */
  private replaceWith(context: WriteContext, old: Entry, next: JsonObject, subresource: "status" | undefined): Entry {
    const live = JSON.parse(old.json) as JsonObject;
    const liveMeta = metadataOf(live);
    const meta = metadataOf(next);
    if (meta.name !== undefined && meta.name !== context.name) throw new ApiError(400, "BadRequest", `the name of the object (${JSON.stringify(meta.name)}) does not match the name on the URL (${context.name})`);
    let obj: JsonObject;
    if (context.type.status && subresource === "status") {
      // Only status changes.
      obj = { ...live, status: next.status ?? null };
      if (obj.status === null) delete obj.status;
    } else {
      obj = next;
      if (context.type.status) {
        if (live.status === undefined) delete obj.status;
        else obj.status = live.status;
      }
      foldStringData(obj);
    }
    const m = metadataOf(obj);
    // Server-owned metadata stays the server's.
    for (const field of ["uid", "creationTimestamp", "deletionTimestamp", "generation", "namespace", "name"]) {
      if (liveMeta[field] === undefined) delete m[field];
      else m[field] = liveMeta[field];
    }
    m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [CLUSTER_ANNOTATION]: context.cluster };
    obj.apiVersion = apiVersionOf(context.type);
    obj.kind = context.type.kind;
    if (context.type.status && specOf(obj) !== specOf(live)) m.generation = Number(liveMeta.generation ?? 0) + 1;
    return this.commit(context, obj, "MODIFIED", old);
  }

  /** DELETE: gone at once, or marked for deletion while finalizers remain. */
  remove(context: WriteContext, preconditions: { uid?: string; resourceVersion?: string } = {}): Entry {
    const old = this.get(context);
    if (preconditions.uid !== undefined && preconditions.uid !== old.uid) {
      throw new ApiError(409, "Conflict", `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${old.uid}`);
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== String(old.rv)) {
      throw new ApiError(409, "Conflict", `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${old.rv}`);
    }
    const obj = JSON.parse(old.json) as JsonObject;
    if (old.finalizers > 0) {
      if (old.deleting) return old;
      metadataOf(obj).deletionTimestamp = now();
      return this.commit(context, obj, "MODIFIED", old);
    }
    return this.commit(context, obj, "DELETED", old);
  }
}
