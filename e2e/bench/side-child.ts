/**
 * One side of the benchmark in a process of its own, so that it shares no
 * event loop, sockets or heap with the load generator, and each side's
 * memory and CPU are its own:
 *
 * - ours: the widget reconcile (`reconcileWidget` of
 *   e2e/src/widget-controller.ts: mirror `spec.color` into status with a
 *   Ready condition) on the runtime's ApiExportSource and Controller with the
 *   runtime's defaults. Widgets labelled NOISY_LABEL stand for a tenant
 *   with a broken backend: their reconcile waits `noisyReconcileMs` and then
 *   fails, every time, so they occupy workers and keep being retried.
 * - bare: the ceiling, bare-client.ts.
 *
 * Started by side-process.ts with its ChildConfig in the environment;
 * reports over IPC (child-protocol.ts): `ready` once loaded, `synced` after
 * `start`, every status write in batches, `stats` on request, and exits
 * after `stop` or when the benchmark goes away.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { RestClient } from "@edgeconnect/kcp-ts";
import {
  ApiExportSource,
  Controller,
  createLogger,
  enqueueObject,
  requestKey,
  RuntimeMetrics,
  type ClusterScope,
  type WatchedResource,
} from "@edgeconnect/runtime";
import { reconcileWidget, type Widget } from "../src/widget-controller.js";
import { WIDGET_EXPORT, WIDGETS_PATH } from "../src/widget-export.js";
import { BareClient } from "./bare-client.js";
import {
  epochNow,
  NOISY_LABEL,
  readChildConfig,
  type BareConfig,
  type ChildMessage,
  type ChildStats,
  type OursConfig,
  type ParentMessage,
  type Reconciled,
} from "./child-protocol.js";


/** What the IPC handlers drive, whichever side runs here. */
interface Side {
  /** Resolves once the side watches everything (ours: the source has synced). */
  start(): Promise<void>;
  stats(): Promise<ChildStats>;
  stop(): Promise<void>;
}

/** Status writes waiting for the next IPC message: one message per turn of the event loop, not per write. */
class Outbox {
  private batch: Reconciled[] = [];

  constructor(private readonly send: (message: ChildMessage) => void) {}

  push(entry: Reconciled): void {
    if (this.batch.length === 0) setImmediate(() => this.flush());
    this.batch.push(entry);
  }

  flush(): void {
    if (this.batch.length === 0) return;
    this.send({ type: "reconciled", batch: this.batch });
    this.batch = [];
  }
}

function ours(config: OursConfig, outbox: Outbox): Side {
  const provider = RestClient.fromFile(config.kubeconfig).cluster(config.provider);
  const metrics = new RuntimeMetrics();
  const stopping = new AbortController();
  let noisyAttempts = 0;
  let running: Promise<unknown> | undefined;

  const widgets: WatchedResource<Widget> = {
    name: "widgets",
    path: `/clusters/*${WIDGETS_PATH}/widgets`,
    handlers: enqueueObject<Widget>({ enqueue: (request) => controller.enqueue(request) }),
  };
  const source = new ApiExportSource({
    provider,
    sliceName: WIDGET_EXPORT,
    resources: [widgets],
    onDisengage: (cluster) => controller.abortInFlight((request) => request.cluster === cluster, "the tenant left this controller's view"),
  });
  const controller: Controller<ClusterScope> = new Controller<ClusterScope>({
    name: "widgets",
    maxConcurrentReconciles: config.workers,
    ...(config.maxInFlightPerTenant !== undefined ? { maxInFlightPerTenant: config.maxInFlightPerTenant } : {}),
    metrics,
    // Reconcile errors are counted in the metrics and reported with the
    // figures; a log line with a stack per noisy retry would bury the
    // progress. LOG_LEVEL=error shows them.
    logger: createLogger({ level: process.env.LOG_LEVEL ?? "fatal", destination: process.stderr }),
    scope: (request, signal) => source.scopeFor(request.cluster, signal),
    reconciler: {
      reconcile: async (request, { scope, signal }) => {
        if (scope.lister(widgets).get(request.namespace, request.name)?.metadata?.labels?.[NOISY_LABEL] !== undefined) {
          noisyAttempts++;
          await sleep(config.noisyReconcileMs, undefined, { signal });
          throw new Error(`noisy widget ${request.name} fails on purpose`);
        }
        const written = await reconcileWidget(widgets, request, scope);
        if (written === undefined) return;
        outbox.push([requestKey(request), written.status?.observed ?? "", epochNow()]);
      },
    },
  });

  return {
    async start() {
      running = Promise.all([source.start(), controller.start(stopping.signal)]);
      while (!source.hasSynced && !stopping.signal.aborted) await sleep(10);
    },
    async stats() {
      const values = (await metrics.registry.getSingleMetric("controller_runtime_reconcile_total")?.get())?.values ?? [];
      return {
        heapUsedBytes: process.memoryUsage().heapUsed,
        reconcileResults: Object.fromEntries(values.map((v) => [String(v.labels.result), v.value])),
        noisyAttempts,
        watchErrors: 0,
      };
    },
    async stop() {
      stopping.abort();
      await source.stop();
      await running;
      provider.close();
    },
  };
}

function bare(config: BareConfig, outbox: Outbox): Side {
  const endpoint = RestClient.fromFile(config.kubeconfig).withServer(config.endpoint);
  const client = new BareClient({
    endpoint,
    workers: config.workers,
    onApplied: (key) => outbox.push([key, "", epochNow()]),
    log: (message) => process.stderr.write(`${message}\n`),
  });
  // A status write that failed for good ends the run, as the in-process client's did.
  const watchdog = setInterval(() => {
    if (client.error !== undefined) fail(client.error);
  }, 100);
  return {
    async start() {
      // One pooled connection per worker, as ours has after its initial
      // sync: the burst should not pay the ceiling's TLS handshakes.
      await Promise.all(Array.from({ length: config.workers }, () => endpoint.list(`/clusters/*${WIDGETS_PATH}/widgets`, { query: { limit: 1 } })));
      await client.start();
    },
    stats: () => Promise.resolve({ heapUsedBytes: process.memoryUsage().heapUsed, reconcileResults: {}, noisyAttempts: 0, watchErrors: client.watchErrors }),
    async stop() {
      clearInterval(watchdog);
      await client.stop();
      endpoint.close();
    },
  };
}

function fail(err: unknown): never {
  process.stderr.write(`benchmark side failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}

function main(): void {
  const config = readChildConfig(process.env);
  const send = (message: ChildMessage): void => {
    process.send?.(message);
  };
  const outbox = new Outbox(send);
  const side = config.side === "ours" ? ours(config, outbox) : bare(config, outbox);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await side.stop();
    outbox.flush();
    if (process.connected) process.disconnect();
  };
  process.on("message", (message: ParentMessage) => {
    if (message.type === "start") {
      side.start().then(() => send({ type: "synced", at: epochNow() }), fail);
    } else if (message.type === "stats") {
      side.stats().then((stats) => send({ type: "stats", ...stats }), fail);
    } else {
      stop().catch(fail);
    }
  });
  // The benchmark is gone (it failed or was killed): nobody reads the figures.
  process.on("disconnect", () => void stop().catch(fail));
  send({ type: "ready" });
}

main();
