import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { HttpStatusError, RestClient, type KubeObject, type WatchEvent } from "@edgeconnect/kcp-ts";
import { eventually } from "@edgeconnect/testenv";
import { KubeConfig } from "@kubernetes/client-node";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { InitialSyncError } from "./errors.js";
import { Reflector, type ReflectorLogger, type ReflectorOptions } from "./reflector.js";
import { objectKey } from "./object-key.js";
import { CLUSTER_INDEX, type DeepReadonly } from "./store.js";

const PATH = "/clusters/*/api/v1/configmaps";
/** Per test; the slowest (Retry-After, 1.5 s of closed watches) need about 2 s. */
const TEST_TIMEOUT_MS = 15_000;

// ---------------------------------------------------------------------------
// A scripted API server: by default a small, faithful model of list (paged)
// and watch (history replayed after the requested resourceVersion, then live
// events); each test overrides single requests through `onList` / `onWatch`.

interface Call {
  /** 1-based count of requests of this kind, this one included. */
  readonly n: number;
  readonly query: URLSearchParams;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

interface Seen {
  readonly kind: "list" | "watch";
  readonly query: URLSearchParams;
  readonly at: number;
}

/** Returns true when it answered the request itself. */
type Hook = (call: Call) => boolean;

class FakeApiServer {
  readonly seen: Seen[] = [];
  onList: Hook = () => false;
  onWatch: Hook = () => false;
  private rv = 100;
  private compactedAt = 0;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: { rv: number; event: WatchEvent }[] = [];
  private readonly watchers = new Set<ServerResponse>();
  private readonly server = createServer((req, res) => this.handle(req, res));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  requests(kind: "list" | "watch"): Seen[] {
    return this.seen.filter((s) => s.kind === kind);
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  /**
   * Creates or modifies an object; `silently`: no watch event ever tells (a
   * gap, as after compaction); `applied`: as `kubectl apply` leaves it.
   */
  put(cluster: string, name: string, options: { silently?: boolean; data?: string; applied?: boolean } = {}): KubeObject {
    this.rv += 1;
    const obj = configMap(cluster, name, String(this.rv), options.data, options.applied);
    const key = objectKey(obj);
    const type = this.objects.has(key) ? "MODIFIED" : "ADDED";
    this.objects.set(key, obj);
    if (!options.silently) this.record({ type, object: obj });
    return obj;
  }

  remove(cluster: string, name: string, options: { silently?: boolean } = {}): void {
    const key = objectKey(configMap(cluster, name, ""));
    const last = this.objects.get(key);
    if (last === undefined) throw new Error(`no ${key}`);
    this.objects.delete(key);
    this.rv += 1;
    if (!options.silently) this.record({ type: "DELETED", object: { ...last, metadata: { ...last.metadata, resourceVersion: String(this.rv) } } });
  }

  /** Forgets history: watches from before now get 410. */
  compact(): void {
    this.compactedAt = this.rv;
    this.history.length = 0;
  }

  bookmark(): string {
    this.rv += 1;
    this.broadcast({ type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: String(this.rv) } } });
    return String(this.rv);
  }

  /** Writes an event to every open watch, as is; `end` closes them afterwards. */
  broadcast(event: WatchEvent, options: { end?: boolean } = {}): void {
    for (const res of this.watchers) {
      res.write(`${JSON.stringify(event)}\n`);
      if (options.end) res.end();
    }
  }

  endWatches(): void {
    for (const res of this.watchers) res.end();
  }

  private record(event: WatchEvent): void {
    this.history.push({ rv: this.rv, event });
    this.broadcast(event);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== PATH) return void res.writeHead(404).end();
    const kind = url.searchParams.get("watch") === "true" ? "watch" : "list";
    this.seen.push({ kind, query: url.searchParams, at: performance.now() });
    const call = { n: this.requests(kind).length, query: url.searchParams, req, res };
    if (kind === "list") {
      if (!this.onList(call)) this.list(call);
    } else if (!this.onWatch(call)) {
      this.watch(call);
    }
  }

  private list({ query, res }: Call): void {
    const all = [...this.objects.values()].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
    const limit = Number(query.get("limit") ?? all.length);
    const offset = Number(query.get("continue") ?? "0");
    const next = offset + limit < all.length ? String(offset + limit) : undefined;
    const body = { kind: "ConfigMapList", metadata: { resourceVersion: String(this.rv), continue: next }, items: all.slice(offset, offset + limit) };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  private watch({ query, res }: Call): void {
    const from = Number(query.get("resourceVersion") ?? "0");
    res.writeHead(200, { "content-type": "application/json" });
    if (from < this.compactedAt) {
      return void res.end(`${JSON.stringify(expired())}\n`);
    }
    res.flushHeaders();
    for (const { rv, event } of this.history) if (rv > from) res.write(`${JSON.stringify(event)}\n`);
    this.watchers.add(res);
    res.on("close", () => this.watchers.delete(res));
  }
}

function configMap(cluster: string, name: string, resourceVersion: string, data = "", applied = false): KubeObject {
  const metadata = { name, namespace: "default", resourceVersion, annotations: { "kcp.io/cluster": cluster } };
  if (!applied) return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { value: data } };
  const manifest = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { value: data } };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      ...metadata,
      annotations: { ...metadata.annotations, "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(manifest) },
      managedFields: [{ manager: "kubectl", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:value": {} } } }],
    },
    data: { value: data },
  };
}

function expired(): WatchEvent {
  return { type: "ERROR", object: { kind: "Status", status: "Failure", code: 410, reason: "Expired", message: "too old resource version" } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/**
 * A RestClient on the loopback server. @kubernetes/client-node is kcp-ts's
 * dependency, not the runtime's, so the test hands RestClient the transport
 * it would build from a kubeconfig, with a stand-in that only adds a token.
 */
function clientFor(server: string): RestClient {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "loopback", server, skipTLSVerify: true }],
    users: [{ name: "test", token: "t" }],
    contexts: [{ name: "test", cluster: "loopback", user: "test" }],
    currentContext: "test",
  });
  return new RestClient(kubeConfig);
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  await eventually(() => (condition() ? [true, undefined] : [false, `waiting for ${what}`]), { timeoutMs, intervalMs: 10 });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface LogLine {
  readonly level: "warn" | "info" | "debug";
  readonly msg: string;
  readonly obj: object;
}

function recordingLogger(lines: LogLine[]): ReflectorLogger {
  return {
    warn: (obj, msg) => void lines.push({ level: "warn", msg, obj }),
    info: (obj, msg) => void lines.push({ level: "info", msg, obj }),
    debug: (obj, msg) => void lines.push({ level: "debug", msg, obj }),
  };
}

const describeObj = (obj: DeepReadonly<KubeObject>): string => `${objectKey(obj)}@${obj.metadata?.resourceVersion ?? ""}`;

// ---------------------------------------------------------------------------

describe("Reflector against a scripted API server", () => {
  let api: FakeApiServer;
  let client: RestClient;
  let reflectors: Reflector[];
  let events: string[];
  let logs: LogLine[];
  let finished: Promise<void>[];

  beforeEach(async () => {
    api = new FakeApiServer();
    client = clientFor(await api.listen());
    reflectors = [];
    events = [];
    logs = [];
    finished = [];
  });

  afterEach(async () => {
    await Promise.all(reflectors.map((r) => r.stop()));
    await Promise.all(finished);
    client.close();
    await api.close();
  });

  /** Starts a reflector with small, jitter-free delays and handlers that record into `events`. */
  function reflect(options: Partial<ReflectorOptions<KubeObject>> = {}): Reflector {
    const reflector = new Reflector<KubeObject>({
      client,
      path: PATH,
      pageSize: 2,
      backoff: { initialMs: 50, factor: 2, maxMs: 400, jitter: 0 },
      handlers: {
        added: (obj) => events.push(`added ${describeObj(obj)}`),
        updated: (old, obj) => events.push(`updated ${describeObj(old)} -> ${obj.metadata?.resourceVersion ?? ""}`),
        deleted: (obj) => events.push(`deleted ${objectKey(obj)}`),
      },
      logger: recordingLogger(logs),
      ...options,
    });
    reflectors.push(reflector);
    finished.push(reflector.start());
    return reflector;
  }

  const count = (prefix: string): number => events.filter((e) => e.startsWith(prefix)).length;

  describe("list and watch", () => {
    it(
      "lists page by page, reports every object once, then watches from the list's resourceVersion",
      async () => {
        for (const name of ["a", "b", "c", "d", "e"]) api.put("c1", name);
        const reflector = reflect({ labelSelector: "app=x", watchTimeoutSeconds: 300 });
        await reflector.synced;
        expect(reflector.hasSynced).toBe(true);
        expect(reflector.store.size).toBe(5);
        expect(events.sort()).toEqual(["a", "b", "c", "d", "e"].map((n, i) => `added c1|default/${n}@${101 + i}`).sort());
        expect(reflector.lastSyncResourceVersion).toBe("105");

        const lists = api.requests("list");
        expect(lists.map((s) => [s.query.get("limit"), s.query.get("continue")])).toEqual([["2", null], ["2", "2"], ["2", "4"]]);
        expect(lists.every((s) => s.query.get("labelSelector") === "app=x")).toBe(true);

        await waitFor("a watch", () => api.requests("watch").length === 1);
        const watch = api.requests("watch")[0]?.query;
        expect(watch?.get("resourceVersion")).toBe("105");
        expect(watch?.get("allowWatchBookmarks")).toBe("true");
        expect(watch?.get("labelSelector")).toBe("app=x");
        const timeoutSeconds = Number(watch?.get("timeoutSeconds"));
        expect(timeoutSeconds).toBeGreaterThanOrEqual(270);
        expect(timeoutSeconds).toBeLessThanOrEqual(330);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "applies ADDED, MODIFIED and DELETED events to the store and the handlers",
      async () => {
        api.put("c1", "a");
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("c1", "b");
        api.put("c1", "a", { data: "v2" });
        api.remove("c1", "b");
        await waitFor("three events", () => events.length === 4);
        expect(events).toEqual(["added c1|default/a@101", "added c1|default/b@102", "updated c1|default/a@101 -> 103", "deleted c1|default/b"]);
        expect(reflector.store.list().map(describeObj)).toEqual(["c1|default/a@103"]);
        expect(reflector.lastSyncResourceVersion).toBe("104");
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "keeps objects with the same namespace/name in two logical clusters apart",
      async () => {
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("tenant-a", "same");
        api.put("tenant-b", "same");
        api.put("tenant-b", "same", { data: "v2" });
        api.remove("tenant-a", "same");
        await waitFor("four events", () => events.length === 4);
        expect(events).toEqual([
          "added tenant-a|default/same@101",
          "added tenant-b|default/same@102",
          "updated tenant-b|default/same@102 -> 103",
          "deleted tenant-a|default/same",
        ]);
        expect(reflector.store.byIndex(CLUSTER_INDEX, "tenant-b").map(describeObj)).toEqual(["tenant-b|default/same@103"]);
        expect(reflector.store.byIndex(CLUSTER_INDEX, "tenant-a")).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "advances the cursor on bookmarks without reporting anything, and re-watches from the bookmark",
      async () => {
        api.put("c1", "a");
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        const bookmark = api.bookmark();
        await waitFor("the bookmark", () => reflector.lastSyncResourceVersion === bookmark);
        api.endWatches();
        await waitFor("a second watch", () => api.requests("watch").length === 2);
        expect(api.requests("watch").map((s) => s.query.get("resourceVersion"))).toEqual(["101", bookmark]);
        expect(events).toEqual(["added c1|default/a@101"]);
        expect(api.requests("list")).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "re-watches from the cursor without reporting an event twice, even when the server repeats one",
      async () => {
        api.put("c1", "a");
        api.onWatch = ({ n, res }) => {
          if (n !== 2) return false;
          // A sloppy server replays the event at the requested resourceVersion, then a new one.
          res.writeHead(200, { "content-type": "application/json" });
          res.write(`${JSON.stringify({ type: "MODIFIED", object: configMap("c1", "a", "102", "v2") })}\n`);
          res.write(`${JSON.stringify({ type: "MODIFIED", object: configMap("c1", "a", "103", "v3") })}\n`);
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("c1", "a", { data: "v2" });
        await waitFor("the update", () => count("updated") === 1);
        api.endWatches();
        await waitFor("the second update", () => count("updated") === 2);
        await sleep(100);
        expect(api.requests("watch")[1]?.query.get("resourceVersion")).toBe("102");
        expect(events).toEqual(["added c1|default/a@101", "updated c1|default/a@101 -> 102", "updated c1|default/a@102 -> 103"]);
        expect(reflector.lastSyncResourceVersion).toBe("103");
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe("faults", () => {
    it(
      "(a) aborts a watch that goes silent and re-watches from the cursor",
      async () => {
        api.put("c1", "a");
        api.onWatch = ({ n, res }) => {
          if (n !== 1) return false;
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
          return true;
        };
        const reflector = reflect({ inactivityTimeoutMs: 200 });
        await reflector.synced;
        await waitFor("a second watch", () => api.requests("watch").length >= 2);
        const [first, second] = api.requests("watch");
        expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(190);
        expect(second?.query.get("resourceVersion")).toBe("101");
        expect(api.requests("list")).toHaveLength(1);
        expect(logs.some((l) => l.msg === "watch went silent; watching again")).toBe(true);
        // The new watch works: events flow again.
        api.put("c1", "b");
        await waitFor("the new object", () => reflector.store.size === 2);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(a') counts a server that never answers the watch request as silent",
      async () => {
        api.onWatch = ({ n }) => n === 1; // no answer at all
        const reflector = reflect({ inactivityTimeoutMs: 200 });
        await reflector.synced;
        await waitFor("a second watch", () => api.requests("watch").length >= 2);
        expect(logs.some((l) => l.msg === "watch went silent; watching again")).toBe(true);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(b) backs off from a server that closes every watch at once instead of looping",
      async () => {
        api.onWatch = ({ res }) => {
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
          setTimeout(() => res.end(), 5);
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        const syncedAt = performance.now();
        await sleep(1_500);
        const watches = api.requests("watch").filter((s) => s.at <= syncedAt + 1_500);
        // 50, 100, 200, 400, 400 ms of backoff fit into 1.5 s: 5 or 6 requests, never hundreds.
        expect(watches.length).toBeGreaterThanOrEqual(3);
        expect(watches.length).toBeLessThanOrEqual(8);
        expect(api.requests("list")).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(b') watches again at once after a watch that lasted, like the server's timeout",
      async () => {
        const reflector = reflect({ shortWatchMs: 100, backoff: { initialMs: 5_000, maxMs: 5_000, jitter: 0 } });
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        await sleep(150);
        api.endWatches();
        await waitFor("a second watch", () => api.requests("watch").length === 2, 2_000);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(c) relists after a 410 ERROR event and reports an object deleted in the gap exactly once",
      async () => {
        api.put("c1", "a");
        api.put("c1", "b");
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("c1", "a", { data: "v2" });
        await waitFor("the update", () => count("updated") === 1);

        // The gap: b goes and a changes without events, the history is compacted, the watch expires.
        api.remove("c1", "b", { silently: true });
        api.put("c1", "a", { data: "v3", silently: true });
        api.compact();
        api.broadcast(expired(), { end: true });

        await waitFor("the relist", () => api.requests("list").length === 2 && count("deleted") === 1);
        await waitFor("a new watch", () => api.openWatches === 1);
        expect(api.requests("watch").at(-1)?.query.get("resourceVersion")).toBe("105");
        api.remove("c1", "a");
        await waitFor("the delete of a", () => count("deleted") === 2);
        await sleep(100);
        expect(events).toEqual([
          "added c1|default/a@101",
          "added c1|default/b@102",
          "updated c1|default/a@101 -> 103",
          "updated c1|default/a@103 -> 105",
          "deleted c1|default/b",
          "deleted c1|default/a",
        ]);
        expect(reflector.store.size).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(c') relists when the watch request itself answers 410",
      async () => {
        api.put("c1", "a");
        api.onWatch = ({ n, res }) => {
          if (n !== 1) return false;
          api.remove("c1", "a", { silently: true });
          sendJson(res, 410, { kind: "Status", code: 410, reason: "Expired" });
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the relist's delete", () => count("deleted") === 1);
        expect(api.requests("list")).toHaveLength(2);
        expect(reflector.store.size).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(d) waits Retry-After before the next list after a 429",
      async () => {
        api.put("c1", "a");
        api.onList = ({ n, res }) => {
          if (n !== 1) return false;
          sendJson(res, 429, { kind: "Status", code: 429, reason: "TooManyRequests" }, { "retry-after": "1" });
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        const [first, second] = api.requests("list");
        // The backoff would have waited 50 ms.
        expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
        expect(logs.find((l) => l.msg === "list failed")?.obj).toMatchObject({ retryInMs: 1_000 });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(e) recovers from 500s with growing delays",
      async () => {
        api.put("c1", "a");
        api.onList = ({ n, res }) => {
          if (n > 3) return false;
          sendJson(res, 500, { kind: "Status", code: 500, reason: "InternalError", message: "etcd unavailable" });
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        const at = api.requests("list").map((s) => s.at);
        expect(at).toHaveLength(4);
        const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0));
        // 50, 100, 200 ms of backoff, with a little room for timer granularity.
        [50, 100, 200].forEach((expected, i) => expect(gaps[i]).toBeGreaterThanOrEqual(expected - 5));
        expect(logs.filter((l) => l.msg === "list failed").map((l) => (l.obj as { retryInMs: number }).retryInMs)).toEqual([50, 100, 200]);
        expect(events).toEqual(["added c1|default/a@101"]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(e') re-watches from the cursor with backoff after an ERROR event other than 410, without relisting",
      async () => {
        api.put("c1", "a");
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("c1", "b");
        await waitFor("b", () => reflector.store.size === 2);
        api.broadcast({ type: "ERROR", object: { kind: "Status", code: 500, reason: "InternalError", message: "boom" } }, { end: true });
        await waitFor("a second watch", () => api.requests("watch").length === 2);
        expect(api.requests("watch")[1]?.query.get("resourceVersion")).toBe("102");
        expect(api.requests("list")).toHaveLength(1);
        expect(logs.find((l) => l.msg === "watch failed")?.obj).toMatchObject({ err: { name: "WatchEventError", code: 500 } });
        expect(events).toEqual(["added c1|default/a@101", "added c1|default/b@102"]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(f) restarts a list whose connection drops on page 2 and ends complete, without duplicates",
      async () => {
        for (const name of ["a", "b", "c", "d", "e"]) api.put("c1", name);
        api.onList = ({ n, query, req }) => {
          if (n !== 2 || query.get("continue") === null) return false;
          req.socket.destroy();
          return true;
        };
        const reflector = reflect();
        await reflector.synced;
        expect(api.requests("list").map((s) => s.query.get("continue"))).toEqual([null, "2", null, "2", "4"]);
        expect(reflector.store.list().map(describeObj).sort()).toEqual(["a", "b", "c", "d", "e"].map((n, i) => `c1|default/${n}@${101 + i}`));
        expect(events).toHaveLength(5);
        expect(new Set(events).size).toBe(5);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "(f') starts a list over at once when its continue token expires",
      async () => {
        for (const name of ["a", "b", "c"]) api.put("c1", name);
        api.onList = ({ n, query, res }) => {
          if (n !== 2 || query.get("continue") === null) return false;
          sendJson(res, 410, { kind: "Status", code: 410, reason: "Expired", message: "continue token expired" });
          return true;
        };
        const reflector = reflect({ backoff: { initialMs: 5_000, maxMs: 5_000, jitter: 0 } });
        await reflector.synced;
        expect(api.requests("list").map((s) => s.query.get("continue"))).toEqual([null, "2", null, "2"]);
        expect(reflector.store.size).toBe(3);
        expect(events).toHaveLength(3);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe("transform", () => {
    it(
      "stores listed and watched objects without managedFields, then runs the custom transform, and freezes the result",
      async () => {
        api.put("c1", "a", { applied: true });
        const transformSaw: unknown[] = [];
        const deleted: DeepReadonly<KubeObject>[] = [];
        const reflector = reflect({
          transform: (obj) => {
            transformSaw.push(obj.metadata?.managedFields);
            // A reader that never looks at data: keep only its size.
            const { data, ...rest } = obj;
            return { ...rest, dataBytes: JSON.stringify(data).length };
          },
          handlers: {
            added: (obj) => events.push(`added ${describeObj(obj)}`),
            updated: (old, obj) => events.push(`updated ${describeObj(old)} -> ${obj.metadata?.resourceVersion ?? ""}`),
            deleted: (obj) => deleted.push(obj),
          },
        });
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.put("c1", "b", { applied: true });
        api.put("c1", "a", { applied: true, data: "v2" });
        await waitFor("the watch events", () => events.length === 3);
        api.remove("c1", "b");
        await waitFor("the delete", () => deleted.length === 1);

        expect(events).toEqual(["added c1|default/a@101", "added c1|default/b@102", "updated c1|default/a@101 -> 103"]);
        expect(transformSaw).toEqual([undefined, undefined, undefined, undefined]);
        const stored = reflector.store.get("c1|default/a");
        for (const obj of [stored, deleted[0]]) {
          expect(obj?.metadata).not.toHaveProperty("managedFields");
          expect(Object.keys(obj?.metadata?.annotations ?? {})).toEqual(["kcp.io/cluster", "kubectl.kubernetes.io/last-applied-configuration"]);
          expect(obj).not.toHaveProperty("data");
          expect(obj).toHaveProperty("dataBytes");
          expect(Object.isFrozen(obj)).toBe(true);
          expect(Object.isFrozen(obj?.metadata?.annotations)).toBe(true);
        }
        expect(stored?.metadata?.resourceVersion).toBe("103");
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "strips by default, without a custom transform",
      async () => {
        api.put("c1", "a", { applied: true });
        const reflector = reflect();
        await reflector.synced;
        expect(reflector.store.get("c1|default/a")?.metadata).not.toHaveProperty("managedFields");
        expect(reflector.store.get("c1|default/a")?.metadata?.annotations).toHaveProperty(["kcp.io/cluster"], "c1");
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe("streamed relists", () => {
    /** Five objects on three pages of two, listed and watched; returns the reflector once the watch is open. */
    async function syncedOverThreePages(): Promise<Reflector> {
      for (const name of ["a", "b", "c", "d", "e"]) api.put("c1", name);
      const reflector = reflect();
      await reflector.synced;
      await waitFor("the watch", () => api.openWatches === 1);
      return reflector;
    }

    it(
      "stores each page before fetching the next",
      async () => {
        for (const name of ["a", "b", "c", "d", "e"]) api.put("c1", name);
        const sizeAtPage: number[] = [];
        api.onList = ({ query }) => {
          if (query.get("continue") !== null) sizeAtPage.push(reflector.store.size);
          return false;
        };
        const reflector = reflect();
        await reflector.synced;
        // Fetching page 2 the store holds page 1; fetching page 3, pages 1 and 2.
        expect(sizeAtPage).toEqual([2, 4]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "reports a multi-page relist's changes (changed, added, then deleted at the end) and nothing for unchanged objects",
      async () => {
        const reflector = await syncedOverThreePages();
        const atPage2: string[] = [];
        api.onList = ({ n, query }) => {
          if (n === 5 && query.get("continue") === "2") atPage2.push(...reflector.store.list().map(describeObj).sort());
          return false;
        };
        events.length = 0;
        api.put("c1", "a", { data: "v2", silently: true });
        api.remove("c1", "c", { silently: true });
        api.put("c1", "f", { silently: true });
        api.compact();
        api.broadcast(expired(), { end: true });

        await waitFor("the relist", () => count("deleted") === 1);
        expect(events).toEqual(["updated c1|default/a@101 -> 106", "added c1|default/f@108", "deleted c1|default/c"]);
        // Mid-relist: page 1's change is in, the deleted object still there.
        expect(atPage2).toEqual(["c1|default/a@106", "c1|default/b@102", "c1|default/c@103", "c1|default/d@104", "c1|default/e@105"]);
        expect(reflector.store.list().map(describeObj).sort()).toEqual(["a@106", "b@102", "d@104", "e@105", "f@108"].map((n) => `c1|default/${n}`));
        expect(reflector.lastSyncResourceVersion).toBe("108");
        await waitFor("a new watch", () => api.openWatches === 1);
        expect(api.requests("watch").at(-1)?.query.get("resourceVersion")).toBe("108");
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "deletes nothing, keeps the cursor and stays synced when a relist fails on page 2",
      async () => {
        const reflector = await syncedOverThreePages();
        // Lists 1 to 3 were the first list; 4 is the relist's page 1.
        api.onList = ({ n, res }) => {
          if (n === 5) sendJson(res, 500, { kind: "Status", code: 500, reason: "InternalError" });
          // The retry: held unanswered, so that the failed relist's state stays to be looked at.
          return n >= 5;
        };
        events.length = 0;
        api.put("c1", "a", { data: "v2", silently: true });
        api.remove("c1", "e", { silently: true });
        api.compact();
        api.broadcast(expired(), { end: true });

        await waitFor("the retried relist", () => api.requests("list").length === 6);
        expect(logs.some((l) => l.msg === "list failed")).toBe(true);
        expect(events).toEqual(["updated c1|default/a@101 -> 106"]);
        expect(reflector.store.size).toBe(5);
        expect(reflector.store.get("c1|default/e")).toBeDefined();
        expect(reflector.lastSyncResourceVersion).toBe("105");
        expect(reflector.hasSynced).toBe(true);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "claims no sync when the first list fails on page 2, though it keeps page 1",
      async () => {
        for (const name of ["a", "b", "c"]) api.put("c1", name);
        api.onList = ({ n, res }) => {
          if (n === 2) sendJson(res, 500, { kind: "Status", code: 500, reason: "InternalError" });
          return n >= 2;
        };
        const reflector = reflect();
        await waitFor("the retried list", () => api.requests("list").length === 3);
        expect(reflector.hasSynced).toBe(false);
        expect(reflector.lastSyncResourceVersion).toBe("");
        expect(reflector.store.size).toBe(2);
        await reflector.stop();
        await expect(reflector.synced).rejects.toBeInstanceOf(InitialSyncError);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "deletes an object that an abandoned attempt listed but the restart's snapshot lacks",
      async () => {
        for (const name of ["a", "b", "c"]) api.put("c1", name);
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        api.onList = ({ n, res }) => {
          if (n !== 3) return false;
          // Between the relist's page 1 (which listed a) and its page 2, a goes and the token expires.
          api.remove("c1", "a", { silently: true });
          sendJson(res, 410, { kind: "Status", code: 410, reason: "Expired", message: "continue token expired" });
          return true;
        };
        api.compact();
        api.broadcast(expired(), { end: true });

        await waitFor("the relist", () => count("deleted") === 1);
        expect(events.filter((e) => !e.startsWith("added"))).toEqual(["deleted c1|default/a"]);
        expect(reflector.store.list().map(describeObj).sort()).toEqual(["c1|default/b@102", "c1|default/c@103"]);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe("stopping", () => {
    it(
      "aborts the open watch, lets start() resolve, and reports nothing as an error",
      async () => {
        const reflector = reflect();
        await reflector.synced;
        await waitFor("the watch", () => api.openWatches === 1);
        const startedAt = performance.now();
        await reflector.stop();
        await finished[0];
        expect(performance.now() - startedAt).toBeLessThan(1_000);
        await waitFor("the server to see the watch close", () => api.openWatches === 0);
        expect(logs.filter((l) => l.level === "warn")).toEqual([]);
        expect(api.requests("watch")).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "rejects synced with InitialSyncError, carrying the last list failure, when stopped before the first list",
      async () => {
        api.onList = ({ res }) => {
          sendJson(res, 403, { kind: "Status", code: 403, reason: "Forbidden" });
          return true;
        };
        const reflector = reflect();
        await waitFor("a failed list", () => api.requests("list").length >= 1 && logs.length >= 1);
        await reflector.stop();
        const failure = await reflector.synced.catch((err: unknown) => err);
        expect(failure).toBeInstanceOf(InitialSyncError);
        expect((failure as InitialSyncError).cause).toBeInstanceOf(HttpStatusError);
        expect(reflector.hasSynced).toBe(false);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "stops during a list that never answers",
      async () => {
        api.onList = () => true;
        const reflector = reflect();
        await waitFor("the list", () => api.requests("list").length === 1);
        await reflector.stop();
        await expect(reflector.synced).rejects.toBeInstanceOf(InitialSyncError);
        expect(logs.filter((l) => l.level === "warn")).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it("refuses a second start", () => {
      const reflector = reflect();
      expect(() => reflector.start()).toThrow("started already");
    });
  });

  it(
    "keeps going when a handler throws",
    async () => {
      api.put("c1", "a");
      api.put("c1", "b");
      const reflector = reflect({
        handlers: {
          added: (obj) => {
            if (obj.metadata?.name === "a") throw new Error("handler bug");
            events.push(`added ${describeObj(obj)}`);
          },
        },
      });
      await reflector.synced;
      expect(events).toEqual(["added c1|default/b@102"]);
      expect(reflector.store.size).toBe(2);
      expect(logs.find((l) => l.msg === "event handler failed")?.obj).toMatchObject({ handler: "added" });
    },
    TEST_TIMEOUT_MS,
  );
});
