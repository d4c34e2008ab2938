/**
 * The HTTP face of the simulator: kcp's URL shapes, mapped onto the store.
 *
 * - `/clusters/<cluster>/…`: a workspace, as its owner sees it (every
 *   resource the simulator knows); `<cluster>` `*` lists and watches all.
 * - `/services/apiexport/<export path>/<export name>/clusters/<cluster|*>/…`:
 *   the export's virtual workspace: only bound clusters, only the exported
 *   resources, the claimed ones (through their claim's label selector and
 *   verbs) and the APIBindings.
 *
 * Below either, `/api/v1/…` or `/apis/<group>/<version>/…`, then
 * `[namespaces/<ns>/]<plural>[/<name>[/status]]`. Verbs: get, list (limit,
 * continue, label and field selectors), watch (resourceVersion,
 * allowWatchBookmarks, timeoutSeconds; 410 in an ERROR event when the
 * version is older than the history kept), create, update, patch (JSON,
 * merge, apply) and delete (uid and resourceVersion preconditions,
 * finalizers).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isObject, PatchError, type Json, type JsonObject } from "./patch.js";
import { classifyRequest, parsePath, type RequestKind } from "./requests.js";
import { fieldSelector, labelSelector, SelectorError } from "./selectors.js";
import { ApiError, apiVersionOf, eventLine, type Collection, type Entry, type Store, type Watcher, type WriteContext } from "./store.js";

/** How the virtual workspace serves a resource. */
export interface VirtualWorkspaceGrant {
  /** A claim's selector: only objects it selects exist for the export's owner. */
  readonly labelSelector?: string;
  /** The claim's verbs; undefined: all (an exported resource). */
  readonly verbs?: readonly string[];
  /**
   * A permission claim: what the export's owner creates through the virtual
   * workspace gets the label kcp puts on claimed objects
   * (`claimed.internal.apis.kcp.io/<export identity hash>`).
   */
  readonly claimed?: boolean;
}

export interface View {
  readonly kind: "workspace" | "virtual-workspace";
  /** A logical cluster, or "*". */
  readonly cluster: string;
}

export interface RequestRecord extends RequestKind {
  readonly status: number;
}

export interface ServerContext {
  readonly store: Store;
  readonly token: string;
  /** `<export path>/<export name>` of the one export served. */
  readonly exportId: string;
  /** The label kcp puts on claimed objects created through the virtual workspace. */
  readonly claimedLabel: string;
  /** By `group/version/plural`. */
  readonly grants: ReadonlyMap<string, VirtualWorkspaceGrant>;
  readonly isBound: (cluster: string) => boolean;
  readonly continueTtlMs: number;
  readonly onRequest: (record: RequestRecord) => void;
}

interface Target {
  readonly view: View;
  readonly collection: Collection;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: "status" | undefined;
  readonly grant: VirtualWorkspaceGrant | undefined;
}

interface Snapshot {
  readonly rv: number;
  readonly entries: readonly Entry[];
  readonly expires: number;
}

const PAGE_DEFAULT = 0;

export class Router {
  private readonly snapshots = new Map<string, Snapshot>();

  constructor(private readonly context: ServerContext) {}

  /** Snapshots of paged lists that nobody finished, dropped after their lifetime. */
  expireSnapshots(nowMs: number): void {
    for (const [id, snapshot] of this.snapshots) if (snapshot.expires < nowMs) this.snapshots.delete(id);
  }

  async handle(request: IncomingMessage, response: ServerResponse, watchers: Set<{ watcher: Watcher; collection: Collection; end: () => void }>): Promise<void> {
    const url = new URL(request.url ?? "/", "http://simulator");
    let record: RequestKind | undefined;
    try {
      if (request.headers.authorization !== `Bearer ${this.context.token}`) throw new ApiError(401, "Unauthorized", "Unauthorized");
      const target = this.route(url.pathname);
      const kind = classifyRequest(request.method ?? "GET", request.url ?? "/", request.headers["content-type"]);
      if (kind === undefined) throw new ApiError(404, "NotFound", "not a resource request");
      record = kind;
      const { verb } = kind;
      const patchType = kind.patchType;
      if (target.grant?.verbs !== undefined && !target.grant.verbs.includes(verb)) {
        throw new ApiError(403, "Forbidden", `${verb} on ${target.collection.type.plural} is not granted to the export`);
      }
      if (target.view.cluster === "*" && verb !== "list" && verb !== "watch") throw new ApiError(405, "MethodNotAllowed", `${verb} is not allowed across clusters`);
      if (verb === "watch") {
        this.context.onRequest({ ...record, status: 200 });
        this.watch(target, url.searchParams, response, watchers);
        return;
      }
      const body = ["create", "update", "patch", "delete"].includes(verb) ? await readBody(request) : undefined;
      const answer = this.serve(verb, target, url.searchParams, body, patchType ?? "");
      this.context.onRequest({ ...record, status: answer.status });
      send(response, answer.status, answer.body);
    } catch (err) {
      const status = toApiError(err);
      if (record !== undefined) this.context.onRequest({ ...record, status: status.status });
      send(response, status.status, JSON.stringify(status.toStatus()));
    }
  }

  private route(path: string): Target {
    const parsed = parsePath(path);
    if (parsed === undefined) throw new ApiError(404, "NotFound", "the simulator serves resources below /clusters/… and /services/apiexport/… only");
    if (parsed.view === "virtual-workspace" && parsed.exportId !== this.context.exportId) throw new ApiError(404, "NotFound", "no such virtual workspace");
    const view: View = { kind: parsed.view, cluster: parsed.cluster };
    const { namespace, name, plural } = parsed;
    const sub = parsed.subresource;
    const collection = this.context.store.collection(parsed.group, parsed.version, plural);
    if (collection === undefined || (sub !== undefined && sub !== "status")) {
      throw new ApiError(404, "NotFound", `the server could not find the requested resource (${parsed.group}/${parsed.version} ${plural})`);
    }
    if (sub === "status" && !collection.type.status) throw new ApiError(404, "NotFound", `${plural} has no status subresource`);
    if (!collection.type.namespaced && namespace !== undefined) throw new ApiError(404, "NotFound", `${plural} is not namespaced`);
    if (collection.type.namespaced && namespace === undefined && name !== undefined) throw new ApiError(404, "NotFound", `${plural} is namespaced`);
    let grant: VirtualWorkspaceGrant | undefined;
    if (view.kind === "virtual-workspace") {
      grant = this.context.grants.get(`${collection.type.group}/${collection.type.version}/${collection.type.plural}`);
      if (grant === undefined) throw new ApiError(404, "NotFound", `the export does not serve ${plural}`);
      if (view.cluster !== "*" && !this.context.isBound(view.cluster)) throw new ApiError(403, "Forbidden", `cluster ${view.cluster} does not bind the export`);
    }
    return { view, collection, namespace, name, subresource: sub === "status" ? "status" : undefined, grant };
  }

  /** What a request through `target` may see of an entry: its view's clusters and claim. */
  private visible(target: Target): (entry: Entry) => boolean {
    const cluster = target.view.cluster;
    const inCluster = cluster === "*" ? () => true : (entry: Entry) => entry.cluster === cluster;
    if (target.view.kind === "workspace") return inCluster;
    const claim = labelSelector(target.grant?.labelSelector);
    return (entry) => inCluster(entry) && this.context.isBound(entry.cluster) && claim(entry.labels);
  }

  private filter(target: Target, query: URLSearchParams): (entry: Entry) => boolean {
    const visible = this.visible(target);
    const labels = labelSelector(query.get("labelSelector") ?? undefined);
    const fields = fieldSelector(query.get("fieldSelector") ?? undefined);
    const namespace = target.namespace;
    return (entry) => visible(entry) && (namespace === undefined || entry.namespace === namespace) && labels(entry.labels) && fields(entry);
  }

  private serve(verb: string, target: Target, query: URLSearchParams, body: Json | undefined, patchType: string): { status: number; body: string } {
    const { store } = this.context;
    const type = target.collection.type;
    const context: WriteContext = { type, cluster: target.view.cluster, namespace: target.namespace ?? "", name: target.name ?? "" };
    const visibleOrMissing = (entry: Entry): Entry => {
      if (!this.visible(target)(entry)) throw new ApiError(404, "NotFound", `${type.plural} "${entry.name}" not found`);
      return entry;
    };
    switch (verb) {
      case "get":
        return { status: 200, body: visibleOrMissing(store.get(context)).json };
      case "list":
        return { status: 200, body: this.list(target, query) };
      case "create": {
        if (!isObject(body)) throw new ApiError(400, "BadRequest", "the body is not an object");
        const created = store.create(context, this.claimed(target, withoutSystemFields(body)));
        return { status: 201, body: created.json };
      }
      case "update":
        visibleOrMissing(store.get(context));
        return { status: 200, body: store.update(context, body ?? null, target.subresource).json };
      case "patch": {
        const existing = target.collection.get(context.cluster, context.namespace, context.name);
        if (existing !== undefined) visibleOrMissing(existing);
        const fieldManager = query.get("fieldManager") ?? undefined;
        const created = existing === undefined && patchType === "application/apply-patch+yaml" && isObject(body);
        const entry = store.patch(context, { contentType: patchType, body: created ? this.claimed(target, body) : (body ?? null), ...(fieldManager === undefined ? {} : { fieldManager }), ...(target.subresource ? { subresource: target.subresource } : {}) });
        return { status: existing === undefined ? 201 : 200, body: entry.json };
      }
      case "delete": {
        visibleOrMissing(store.get(context));
        const options = isObject(body) && isObject(body.preconditions) ? body.preconditions : {};
        const entry = store.remove(context, {
          ...(typeof options.uid === "string" ? { uid: options.uid } : {}),
          ...(typeof options.resourceVersion === "string" ? { resourceVersion: options.resourceVersion } : {}),
        });
        return { status: 200, body: entry.json };
      }
      default:
        throw new ApiError(405, "MethodNotAllowed", `${verb} is not supported`);
    }
  }

  /** `body` with the claimed label when it is created through the virtual workspace under a claim. */
  private claimed(target: Target, body: JsonObject): JsonObject {
    if (target.view.kind !== "virtual-workspace" || target.grant?.claimed !== true) return body;
    const metadata = isObject(body.metadata) ? body.metadata : {};
    const labels = isObject(metadata.labels) ? metadata.labels : {};
    return { ...body, metadata: { ...metadata, labels: { ...labels, [this.context.claimedLabel]: "" } } };
  }

  /** A LIST page; the first page of a paged list keeps its snapshot for the `continue` pages. */
  private list(target: Target, query: URLSearchParams): string {
    const type = target.collection.type;
    const limit = Number(query.get("limit") ?? PAGE_DEFAULT);
    const token = query.get("continue");
    let snapshot: Snapshot;
    let offset = 0;
    let id: string;
    if (token !== null && token !== "") {
      const [tokenId = "", tokenOffset = "0"] = Buffer.from(token, "base64url").toString("utf8").split(":");
      const found = this.snapshots.get(tokenId);
      if (found === undefined) throw new ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.");
      snapshot = found;
      id = tokenId;
      offset = Number(tokenOffset);
    } else {
      const accepts = this.filter(target, query);
      const entries: Entry[] = [];
      for (const entry of target.collection.entries(target.view.cluster)) if (accepts(entry)) entries.push(entry);
      entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      snapshot = { rv: this.context.store.resourceVersion, entries, expires: Date.now() + this.context.continueTtlMs };
      id = randomBytes(9).toString("base64url");
    }
    const end = limit > 0 ? Math.min(snapshot.entries.length, offset + limit) : snapshot.entries.length;
    const page = snapshot.entries.slice(offset, end);
    let next = "";
    if (end < snapshot.entries.length) {
      this.snapshots.set(id, snapshot);
      next = Buffer.from(`${id}:${end}`).toString("base64url");
    } else this.snapshots.delete(id);
    const metadata = JSON.stringify({ resourceVersion: String(snapshot.rv), ...(next === "" ? {} : { continue: next, remainingItemCount: snapshot.entries.length - end }) });
    return `{"kind":"${type.kind}List","apiVersion":"${apiVersionOf(type)}","metadata":${metadata},"items":[${page.map((e) => e.json).join(",")}]}`;
  }

  private watch(target: Target, query: URLSearchParams, response: ServerResponse, watchers: Set<{ watcher: Watcher; collection: Collection; end: () => void }>): void {
    const accepts = this.filter(target, query);
    const rvText = query.get("resourceVersion") ?? "";
    const fromRv = rvText === "" || rvText === "0" ? undefined : Number(rvText);
    if (fromRv !== undefined && !Number.isInteger(fromRv)) throw new ApiError(400, "BadRequest", `invalid resourceVersion ${JSON.stringify(rvText)}`);
    const collection = target.collection;
    response.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    if (fromRv !== undefined && fromRv < collection.compactedRv) {
      // As kube-apiserver: the watch is accepted, then ended with a 410 Status.
      const status = new ApiError(410, "Expired", `too old resource version: ${fromRv} (${collection.compactedRv})`).toStatus();
      response.end(eventLine("ERROR", JSON.stringify(status)));
      return;
    }
    if (fromRv === undefined) {
      for (const entry of collection.entries(target.view.cluster)) if (accepts(entry)) response.write(eventLine("ADDED", entry.json));
    } else {
      for (const change of collection.changesAfter(fromRv)) if (accepts(change.entry)) response.write(eventLine(change.type, change.entry.json));
    }
    const watcher: Watcher = { response, accepts, bookmarks: query.get("allowWatchBookmarks") === "true" };
    collection.watchers.add(watcher);
    const timeoutSeconds = Number(query.get("timeoutSeconds") ?? 0);
    let timer: NodeJS.Timeout | undefined;
    const handle = { watcher, collection, end: () => response.end() };
    const done = (): void => {
      clearTimeout(timer);
      collection.watchers.delete(watcher);
      watchers.delete(handle);
    };
    watchers.add(handle);
    if (timeoutSeconds > 0) timer = setTimeout(() => response.end(), timeoutSeconds * 1000);
    response.once("close", done);
    response.once("finish", done);
  }
}

/** What a client may not set on create. */
function withoutSystemFields(body: JsonObject): JsonObject {
  const metadata = isObject(body.metadata) ? { ...body.metadata } : {};
  for (const field of ["uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "generation", "managedFields"]) delete metadata[field];
  return { ...body, metadata };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof PatchError) return new ApiError(err.status, err.status === 422 ? "Invalid" : "BadRequest", err.message);
  if (err instanceof SelectorError) return new ApiError(400, "BadRequest", err.message);
  if (err instanceof SyntaxError) return new ApiError(400, "BadRequest", `the body is not JSON: ${err.message}`);
  return new ApiError(500, "InternalError", err instanceof Error ? err.message : String(err));
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<Json | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : (JSON.parse(text) as Json);
}
