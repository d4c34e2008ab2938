/**
 * A loopback stand-in for kcp's APIExport endpoint slice and the virtual
 * workspaces of several shards, for unit tests of ApiExportSource: LIST and
 * WATCH with resourceVersions on the slice and on each shard's
 * `/clusters/*` collections, live changes pushed to open watches, and
 * per-shard list delays (a shard slow to sync). Serves JSON as an API server
 * does; it knows nothing of ApiExportSource.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { CLUSTER_ANNOTATION, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";

export const SLICE_PATH = "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices";
export const WIDGETS_PATH = "/clusters/*/apis/example.edgeconnect.eu/v1/widgets";
export const BINDINGS_PATH = "/clusters/*/apis/apis.kcp.io/v1alpha2/apibindings";

interface Collection {
  readonly objects: Map<string, KubeObject>;
  readonly watchers: Set<ServerResponse>;
}

export class FakeVirtualWorkspaces {
  private readonly server: Server;
  private version = 1;
  /** Collection path (with the shard prefix) → its objects and open watches. */
  private readonly collections = new Map<string, Collection>();
  /** Shard name → how long its LISTs take. */
  readonly listDelayMs = new Map<string, number>();

  private constructor() {
    this.server = createServer((req, res) => void this.handle(new URL(req.url ?? "/", "http://fake"), res));
  }

  static async start(): Promise<FakeVirtualWorkspaces> {
    const fake = new FakeVirtualWorkspaces();
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    fake.setEndpoints([]);
    return fake;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A client on the provider workspace, as a controller has. */
  client(): RestClient {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "c", server: this.base, skipTLSVerify: true }],
      users: [{ name: "u", token: "fake-provider-token" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    return new RestClient(kubeConfig);
  }

  urlOf(shard: string): string {
    return `${this.base}/${shard}`;
  }

  /** Makes the slice list exactly these shards' URLs. */
  setEndpoints(shards: readonly string[]): void {
    this.put(SLICE_PATH, {
      apiVersion: "apis.kcp.io/v1alpha1",
      kind: "APIExportEndpointSlice",
      metadata: { name: "widgets.example" },
      status: { endpoints: shards.map((shard) => ({ url: this.urlOf(shard) })) },
    });
  }

  /** A tenant's widget and its binding on `shard`. */
  bind(shard: string, cluster: string, widgets: readonly string[]): void {
    this.put(`/${shard}${BINDINGS_PATH}`, tenantObject(cluster, "widgets.example", undefined));
    for (const name of widgets) this.put(`/${shard}${WIDGETS_PATH}`, tenantObject(cluster, name, "default"));
  }

  putWidget(shard: string, cluster: string, name: string): void {
    this.put(`/${shard}${WIDGETS_PATH}`, tenantObject(cluster, name, "default"));
  }

  async close(): Promise<void> {
    for (const collection of this.collections.values()) for (const watcher of collection.watchers) watcher.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private collection(path: string): Collection {
    let collection = this.collections.get(path);
    if (collection === undefined) {
      collection = { objects: new Map(), watchers: new Set() };
      this.collections.set(path, collection);
    }
    return collection;
  }

  private put(path: string, obj: KubeObject): void {
    const collection = this.collection(path);
    const key = `${obj.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? ""}|${obj.metadata?.name ?? ""}`;
    const type = collection.objects.has(key) ? "MODIFIED" : "ADDED";
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.version) } };
    collection.objects.set(key, stored);
    for (const watcher of collection.watchers) watcher.write(`${JSON.stringify({ type, object: stored })}\n`);
  }

  private async handle(url: URL, res: ServerResponse): Promise<void> {
    const shard = url.pathname.split("/")[1] ?? "";
    if (![SLICE_PATH, WIDGETS_PATH, BINDINGS_PATH].some((path) => url.pathname.endsWith(path))) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"kind":"Status","reason":"NotFound","code":404}');
      return;
    }
    const collection = this.collection(url.pathname);
    res.writeHead(200, { "content-type": "application/json" });
    if (url.searchParams.get("watch") === "true") {
      // Changes made between the LIST and this WATCH, as the server's watch cache replays them.
      const since = Number(url.searchParams.get("resourceVersion") ?? "0");
      for (const obj of collection.objects.values()) {
        if (Number(obj.metadata?.resourceVersion) > since) res.write(`${JSON.stringify({ type: "MODIFIED", object: obj })}\n`);
      }
      collection.watchers.add(res);
      res.on("close", () => collection.watchers.delete(res));
      return;
    }
    const delay = this.listDelayMs.get(shard) ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    res.end(JSON.stringify({ metadata: { resourceVersion: String(this.version) }, items: [...collection.objects.values()] }));
  }
}

function tenantObject(cluster: string, name: string, namespace: string | undefined): KubeObject {
  return { metadata: { name, ...(namespace ? { namespace } : {}), annotations: { [CLUSTER_ANNOTATION]: cluster } } };
}
