/**
 * `pnpm bench:runtime`: the runtime against a real local kcp, compared with
 * the least any controller could do (see bare-client.ts).
 *
 * One run, one kcp: a provider workspace exports widgets, `--tenants`
 * workspaces bind it, each holding `--objects` widgets before the controller
 * starts. Then, for the WidgetController in this process: initial sync time
 * and memory, create→reconcile latency of one new widget per tenant, and a
 * flood of `--flood` widgets in one tenant while a quiet tenant creates one
 * every 200 ms. The bare client then repeats burst and flood. A table goes to
 * stdout, progress to stderr, every figure to a JSON file.
 *
 * Latency is measured in this process from just before the create request to
 * the status write's answer (the controller's onReconciled, the bare
 * client's apply), so both sides pay the same client and event-loop costs.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { HttpStatusError, RestClient } from "@edgeconnect/kcp-ts";
import { createLogger, requestKey, RuntimeMetrics } from "@edgeconnect/runtime";
import {
  apiExportEndpoints,
  createWorkspace,
  deleteWorkspace,
  REPO_ROOT,
  resolveBinary,
  TestEnvironment,
  type Workspace,
} from "@edgeconnect/testenv";
import { WidgetController } from "../src/widget-controller.js";
import { bindWidgetExport, installWidgetExport, WIDGET_EXPORT, WIDGETS_PATH } from "../src/widget-export.js";
import { BareClient } from "./bare-client.js";
import { parseFlags, type BenchFlags } from "./flags.js";
import { pool, Probe, retries, sleep, Tracker, withRetry } from "./measure.js";
import { ratios, renderTable, type BurstFigures, type FloodFigures, type InitialSyncFigures } from "./report.js";

const WIDGETS = `${WIDGETS_PATH}/namespaces/default/widgets`;
/** Workspace creation is kcp's slowest step; more than a few at once only queues inside kcp. */
const WORKSPACE_CONCURRENCY = 8;
const BURST_CONCURRENCY = 16;
const FLOOD_CONCURRENCY = 32;
const QUIET_INTERVAL_MS = 200;

const began = performance.now();
function log(message: string): void {
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

type Side = "ours" | "bare";

/** Everything a phase needs: the tenants, where to record reconciles, who may fail. */
class Scenario {
  readonly tracker = new Tracker();

  constructor(
    readonly flags: BenchFlags,
    readonly tenants: readonly Workspace[],
  ) {}

  tenant(index: number): Workspace {
    const ws = this.tenants[index % this.tenants.length];
    if (ws === undefined) throw new Error("no tenants");
    return ws;
  }

  /** Creates a widget, tracked in `probe` from just before the request. */
  async createWidget(ws: Workspace, name: string, probe: Probe | undefined): Promise<void> {
    if (probe !== undefined) this.tracker.expect(`${ws.cluster}|default/${name}`, probe);
    let attempt = 0;
    await withRetry(`create widget ${name} in ${ws.path}`, async () => {
      try {
        attempt++;
        await ws.client.create(WIDGETS, { apiVersion: "smoke.edgeconnect.eu/v1alpha1", kind: "Widget", metadata: { name }, spec: { color: name } });
      } catch (err) {
        // A retry whose earlier attempt landed after all.
        if (attempt > 1 && err instanceof HttpStatusError && err.status === 409) return;
        throw err;
      }
    });
  }

  /** One new widget per tenant, round-robin, BURST_CONCURRENCY at a time. */
  async burst(side: Side, failed: () => Error | undefined): Promise<BurstFigures> {
    const probe = new Probe(`${side} latency burst`);
    await pool(this.tenants.length, BURST_CONCURRENCY, (i) => this.createWidget(this.tenant(i), `${side}-burst`, probe));
    await probe.drained(failed);
    return { ...probe.summary(), spanMs: probe.spanMs(), reconcilesPerSecond: probe.perSecond() };
  }

  /**
   * Tenant 0 creates `--flood` widgets while tenant 1 creates one every
   * 200 ms until the flood has drained; the quiet tenant's latency is what
   * fairness is about.
   */
  async flood(side: Side, failed: () => Error | undefined): Promise<FloodFigures> {
    const flooding = this.tenant(0);
    const quiet = this.tenant(1);
    const floodProbe = new Probe(`${side} flood`);
    const quietProbe = new Probe(`${side} quiet tenant`);
    let quietError: Error | undefined;
    let quietCount = 0;
    const quietTimer = setInterval(() => {
      void this.createWidget(quiet, `${side}-quiet-${quietCount++}`, quietProbe).catch((err: unknown) => {
        quietError ??= err instanceof Error ? err : new Error(String(err));
      });
    }, QUIET_INTERVAL_MS);
    const anyFailure = (): Error | undefined => failed() ?? quietError;
    let lastCreated = Number.NaN;
    try {
      await pool(this.flags.flood, FLOOD_CONCURRENCY, async (i) => {
        await this.createWidget(flooding, `${side}-flood-${i}`, floodProbe);
        lastCreated = performance.now();
        if ((i + 1) % 1000 === 0) log(`${side} flood: ${i + 1}/${this.flags.flood} created, ${floodProbe.latencies.length} reconciled`);
      });
      await floodProbe.drained(anyFailure);
    } finally {
      clearInterval(quietTimer);
    }
    await quietProbe.drained(anyFailure);
    return {
      count: floodProbe.latencies.length,
      drainMs: floodProbe.spanMs(),
      reconcilesPerSecond: floodProbe.perSecond(),
      createsPerSecond: this.flags.flood / ((lastCreated - floodProbe.firstStart) / 1000),
      quiet: quietProbe.summary(),
    };
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "bench", `runtime-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`));
  // Undone in reverse order in `finally`, whatever failed.
  const cleanups: { readonly what: string; readonly run: () => Promise<unknown> | void }[] = [];
  try {
    let kubeconfig = flags.kubeconfig;
    let kcpBinaryVersion: string | undefined;
    if (kubeconfig === undefined) {
      kcpBinaryVersion = (await resolveBinary("kcp", { log })).version;
      const env = await TestEnvironment.start({ infra: "none", log });
      cleanups.push({ what: "stop kcp", run: () => env.stop() });
      kubeconfig = env.state.kcp.kubeconfig;
      log(`kcp ${kcpBinaryVersion} up; its log: ${env.state.kcp.logFile}`);
    }
    const admin = RestClient.fromFile(kubeconfig);
    cleanups.push({ what: "close connections", run: () => admin.close() });
    const serverVersion = await kcpVersion(admin);

    // Setup: provider, tenants bound to the export, pre-existing widgets.
    const setupStart = performance.now();
    const suffix = randomBytes(3).toString("hex");
    const provider = await createWorkspace(admin, `bench-provider-${suffix}`);
    await installWidgetExport(provider);
    const ready = new Map<number, Workspace>();
    if (flags.kubeconfig !== undefined) {
      // A kcp we did not start outlives the run: remove what we made (a started one takes it along).
      cleanups.push({
        what: "delete workspaces",
        run: () => pool(ready.size + 1, WORKSPACE_CONCURRENCY, (i) => deleteWorkspace(admin, ready.get(i) ?? provider)),
      });
    }
    await pool(flags.tenants, WORKSPACE_CONCURRENCY, async (i) => {
      const ws = await createWorkspace(admin, `bench-${suffix}-t${i}`);
      await bindWidgetExport(ws, provider);
      ready.set(i, ws);
      if (ready.size % 10 === 0 || ready.size === flags.tenants) log(`tenants created and bound: ${ready.size}/${flags.tenants}`);
    });
    const scenario = new Scenario(
      flags,
      Array.from({ length: flags.tenants }, (_, i) => ready.get(i) ?? provider),
    );
    const workspacesMs = performance.now() - setupStart;
    const precreated = flags.tenants * flags.objects;
    await pool(precreated, BURST_CONCURRENCY, (i) => scenario.createWidget(scenario.tenant(i), `pre-${Math.floor(i / flags.tenants)}`, undefined));
    log(`${precreated} widgets pre-created`);

    // Ours: initial sync, then burst and flood.
    const metrics = new RuntimeMetrics();
    const initialProbe = new Probe("initial sync");
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    for (let i = 0; i < precreated; i++) {
      scenario.tracker.expect(`${scenario.tenant(i).cluster}|default/pre-${Math.floor(i / flags.tenants)}`, initialProbe, t0);
    }
    let controller: WidgetController | undefined = new WidgetController({
      provider: provider.client,
      workers: flags.workers,
      metrics,
      // Reconcile errors are counted from the metrics and printed with the
      // figures; their log lines (one with a stack per retry) would bury the
      // progress. LOG_LEVEL=error shows them.
      logger: createLogger({ level: process.env.LOG_LEVEL ?? "fatal", destination: process.stderr }),
      onReconciled: (request) => scenario.tracker.complete(requestKey(request)),
    });
    cleanups.push({ what: "stop controller", run: () => controller?.stopAndWait() });
    controller.start();
    const source = controller.source;
    while (!source.hasSynced) {
      if (performance.now() - t0 > 120_000) throw new Error("controller source not synced after 120 s");
      await sleep(10);
    }
    const syncedMs = performance.now() - t0;
    await initialProbe.drained();
    const memory = process.memoryUsage();
    const initial: InitialSyncFigures = {
      objects: precreated,
      syncedMs,
      reconciledMs: precreated === 0 ? syncedMs : initialProbe.lastDone - t0,
      rssBeforeBytes: rssBefore,
      rssAfterBytes: memory.rss,
      rssDeltaBytes: memory.rss - rssBefore,
      heapUsedAfterBytes: memory.heapUsed,
    };
    log(`ours: synced in ${syncedMs.toFixed(0)} ms, ${precreated} reconciled in ${initial.reconciledMs.toFixed(0)} ms`);
    const noFailure = (): undefined => undefined;
    const oursBurst = await scenario.burst("ours", noFailure);
    log(`ours: burst done (p50 ${oursBurst.p50Ms.toFixed(0)} ms)`);
    const oursFlood = await scenario.flood("ours", noFailure);
    log(`ours: flood drained in ${oursFlood.drainMs.toFixed(0)} ms`);
    const rssAfterFlood = process.memoryUsage().rss;
    const reconcileTotals = await reconcileResults(metrics);
    await controller.stopAndWait();
    controller = undefined;

    // Ceiling: the bare client on the same virtual workspace.
    const [endpoint] = await apiExportEndpoints(provider, WIDGET_EXPORT);
    if (endpoint === undefined) throw new Error("the export has no virtual-workspace endpoint");
    let bare: BareClient | undefined = new BareClient({
      endpoint: admin.withServer(endpoint),
      workers: flags.workers,
      onApplied: (key) => scenario.tracker.complete(key),
      log,
    });
    cleanups.push({ what: "stop bare client", run: () => bare?.stop() });
    await bare.start();
    const bareFailed = (): Error | undefined => bare?.error;
    const bareBurst = await scenario.burst("bare", bareFailed);
    log(`bare: burst done (p50 ${bareBurst.p50Ms.toFixed(0)} ms)`);
    const bareFlood = await scenario.flood("bare", bareFailed);
    log(`bare: flood drained in ${bareFlood.drainMs.toFixed(0)} ms`);
    const bareWatchErrors = bare.watchErrors;
    await bare.stop();
    bare = undefined;

    const ours = { burst: oursBurst, flood: oursFlood };
    const ceiling = { burst: bareBurst, flood: bareFlood };
    const r = ratios(ours, ceiling);
    const finishedAt = new Date();
    const result = {
      benchmark: "runtime",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      parameters: { ...flags, out, kubeconfig: flags.kubeconfig !== undefined ? flags.kubeconfig : null, burstConcurrency: BURST_CONCURRENCY, floodConcurrency: FLOOD_CONCURRENCY, quietIntervalMs: QUIET_INTERVAL_MS },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, totalMemBytes: totalmem(), node: process.version, platform: process.platform, arch: process.arch },
      kcp: { started: flags.kubeconfig === undefined, binaryVersion: kcpBinaryVersion ?? null, serverVersion, endpoint },
      setup: { workspacesMs, precreatedObjects: precreated },
      ours: { initialSync: initial, ...ours, rssAfterFloodBytes: rssAfterFlood, reconcileResults: reconcileTotals },
      ceiling: { ...ceiling, watchErrors: bareWatchErrors },
      ratios: r,
      transientRetries: retries.count,
    };
    mkdirSync(dirname(out), { recursive: true });
    // JSON has no NaN; null marks a figure that had no samples.
    writeFileSync(out, `${JSON.stringify(result, (_, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
    process.stdout.write(
      `\nruntime benchmark: ${flags.tenants} tenants, ${flags.objects} objects each, flood ${flags.flood}, ${flags.workers} workers; ` +
        `kcp ${kcpBinaryVersion ?? serverVersion}; ${cpus().length} CPUs; node ${process.version}\n\n` +
        `${renderTable(initial, ours, ceiling, r)}\n\n` +
        `ours: reconciles by result ${JSON.stringify(reconcileTotals)}, RSS after flood ${(rssAfterFlood / 2 ** 20).toFixed(1)} MiB; ` +
        `transient retries ${retries.count}; bare watch errors ${bareWatchErrors}\nJSON: ${out}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (err) {
        log(`cleanup failed (${cleanup.what}): ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

/**
 * kcp's /version, for runs against a kcp we did not start. Asked through a
 * workspace first (how kubectl asks kcp), then at the server root; a version
 * is worth no failed run, so its absence is recorded as the reason.
 */
async function kcpVersion(admin: RestClient): Promise<string> {
  const reasons: string[] = [];
  for (const client of [admin.cluster("root"), admin.withServer(new URL(admin.server).origin)]) {
    try {
      const version = await client.get<{ gitVersion?: string }>("/version");
      if (version.gitVersion !== undefined) return version.gitVersion;
      reasons.push(`${client.server}/version has no gitVersion`);
    } catch (err) {
      reasons.push(err instanceof Error ? err.message : String(err));
    }
  }
  return `unknown (${reasons.join("; ")})`;
}

/** controller_runtime_reconcile_total by result, to tell errors and requeues from plain successes. */
async function reconcileResults(metrics: RuntimeMetrics): Promise<Record<string, number>> {
  const values = (await metrics.registry.getSingleMetric("controller_runtime_reconcile_total")?.get())?.values ?? [];
  return Object.fromEntries(values.map((v) => [String(v.labels.result), v.value]));
}

main().then(
  () => log("done"),
  (err: unknown) => {
    process.stderr.write(`\nruntime benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
