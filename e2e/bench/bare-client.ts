/**
 * The ceiling the controller is compared with: the same job (mirror
 * `spec.color` into status with a Ready condition) done with nothing of the
 * runtime's machinery: no reflector, store, fair queue, rate limiter or
 * metrics. One wildcard watch on the virtual workspace, and every ADDED
 * widget without status goes straight to a FIFO of `workers` concurrent
 * server-side applies on `/status`.
 */
import { clusterOf, type RestClient } from "@edgeconnect/kcp-ts";
import { applyStatus, setCondition } from "@edgeconnect/runtime";
import type { Widget } from "../src/widget-controller.js";
import { WIDGETS_PATH } from "../src/widget-export.js";
import { sleep, withRetry } from "./measure.js";

const FIELD_MANAGER = "bench-bare";

/** What a status write needs of a widget; the backlog of a flood holds only this, not whole objects. */
interface Job {
  readonly apiVersion: string | undefined;
  readonly kind: string | undefined;
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly color: string;
  readonly generation: number | undefined;
}
const COLLECTION = `/clusters/*${WIDGETS_PATH}/widgets`;

export interface BareClientOptions {
  /** Client whose server is the virtual-workspace endpoint URL. */
  readonly endpoint: RestClient;
  readonly workers: number;
  /** Called with `cluster|default/name` after each status write. */
  readonly onApplied: (key: string) => void;
  readonly log: (message: string) => void;
}

export class BareClient {
  /** Watch failures that forced a re-watch; reported with the figures. */
  watchErrors = 0;
  private readonly stopping = new AbortController();
  private readonly backlog: Job[] = [];
  private active = 0;
  private running: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(private readonly options: BareClientOptions) {}

  /**
   * Starts watching and resolves once the watch has a starting point. A LIST
   * first gives the resourceVersion to watch from, so "ready" is a fact and
   * nothing created afterwards can be missed; its items already carry status.
   */
  async start(): Promise<void> {
    const list = await this.options.endpoint.list<Widget>(COLLECTION);
    for (const widget of list.items) this.consider(widget);
    this.running = this.watchLoop(list.metadata.resourceVersion);
  }

  /** The first status write that failed for good, if any (the run should stop). */
  get error(): Error | undefined {
    return this.failure;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    while (this.active > 0) await sleep(20);
  }

  private async watchLoop(from: string | undefined): Promise<void> {
    let resourceVersion = from;
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          // The watch expired (410): relist, as any watcher must.
          const list = await this.options.endpoint.list<Widget>(COLLECTION, { signal });
          for (const widget of list.items) this.consider(widget);
          resourceVersion = list.metadata.resourceVersion;
        }
        const events = this.options.endpoint.watch<Widget>(COLLECTION, { signal, query: { resourceVersion, allowWatchBookmarks: true } });
        for await (const event of events) {
          if (event.type === "ERROR") {
            resourceVersion = undefined;
            break;
          }
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === "ADDED") this.consider(event.object);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.watchErrors++;
        this.options.log(`bare client: watch failed, re-watching: ${err instanceof Error ? err.message : String(err)}`);
        await sleep(500);
      }
    }
  }

  private consider(widget: Widget): void {
    if (widget.status !== undefined) return;
    const { apiVersion, kind, metadata } = widget;
    this.backlog.push({
      apiVersion,
      kind,
      cluster: clusterOf(widget) ?? "",
      namespace: metadata?.namespace ?? "default",
      name: metadata?.name ?? "",
      color: widget.spec?.color ?? "",
      generation: metadata?.generation,
    });
    this.drain();
  }

  private drain(): void {
    while (this.active < this.options.workers && this.backlog.length > 0) {
      const job = this.backlog.shift();
      if (job === undefined) return;
      this.active++;
      void this.write(job).finally(() => {
        this.active--;
        this.drain();
      });
    }
  }

  private async write(job: Job): Promise<void> {
    const { cluster, namespace, name, color } = job;
    const conditions = setCondition(
      undefined,
      { type: "Ready", status: "True", reason: "Observed", message: `observed color ${JSON.stringify(color)}` },
      job.generation,
    );
    const client = this.options.endpoint.withServer(`${this.options.endpoint.server}/clusters/${cluster}`);
    const path = `${WIDGETS_PATH}/namespaces/${namespace}/widgets/${name}`;
    const identity = { apiVersion: job.apiVersion, kind: job.kind, metadata: { name, namespace } };
    try {
      await withRetry(`bare status write ${cluster}/${name}`, () => applyStatus(client, path, identity, { observed: color, conditions }, FIELD_MANAGER));
      this.options.onApplied(`${cluster}|${namespace}/${name}`);
    } catch (err) {
      this.failure ??= err instanceof Error ? err : new Error(String(err));
    }
  }
}
