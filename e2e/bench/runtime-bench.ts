/**
 * `pnpm bench:runtime`: the runtime against a real local kcp, compared with
 * the least any controller could do (see bare-client.ts).
 *
 * One run, one kcp: a provider workspace exports widgets, `--tenants`
 * workspaces bind it, each holding `--objects` widgets before the controller
 * starts. Each side runs in a process of its own (side-child.ts), so that it
 * shares no event loop or sockets with this load generator, and its memory
 * and CPU are read from /proc. For our controller:
 * initial sync time and memory, create→reconcile latency of one new widget
 * per tenant, a flood of `--flood` widgets in one tenant while a quiet tenant
 * creates one every `--quiet-interval-ms` (200), and tenant isolation:
 * `--isolation-updates` (100) of a quiet tenant's updates at that pace with
 * nobody else busy, then again while `--noisy` widgets in each of
 * `--noisy-tenants` tenants fail after `--noisy-ms`, over and over. With
 * `--peer go` the Go peer (scripts/binaries/widget-controller-go) then runs
 * the same session after ours, once every tenant's widgets are back to the
 * pre-created ones without status, so both start from the same state;
 * `--rounds N` repeats both, the peer going first in even rounds, and
 * reports each figure's median over the rounds (every round in the JSON).
 * The bare client then repeats burst and flood. Tables go to stdout, progress to
 * stderr, every figure to a JSON file.
 *
 * Latency runs from just before the create (or update) request here to the
 * status write's answer, which the side stamps with an epoch time that this
 * process puts back on its own clock; both sides pay the same costs.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { HttpStatusError, RestClient } from "@edgeconnect/kcp-ts";
import { defaultMaxInFlightPerTenant } from "@edgeconnect/runtime";
import {
  apiExportEndpoints,
  createWorkspace,
  deleteWorkspace,
  REPO_ROOT,
  resolveBinary,
  TestEnvironment,
  type Workspace,
} from "@edgeconnect/testenv";
import { bindWidgetExport, installWidgetExport, WIDGET_EXPORT, WIDGETS_PATH } from "../src/widget-export.js";
import { NOISY_LABEL, type GoPeerConfig, type OursConfig } from "./child-protocol.js";
import { parseFlags, type BenchFlags } from "./flags.js";
import { medianOf, pool, Probe, retries, sleep, Tracker, withRetry, type LatencySummary } from "./measure.js";
import {
  isolationRatios,
  peerRatios,
  ratios,
  renderIsolationTable,
  renderPeerTable,
  renderTable,
  type BurstFigures,
  type FloodFigures,
  type IsolationFigures,
  type ProcessFigures,
  type SessionFigures,
} from "./report.js";
import { log, WORKSPACE_CONCURRENCY } from "./platform-run.js";
import { SideProcess } from "./side-process.js";

const WIDGETS = `${WIDGETS_PATH}/namespaces/default/widgets`;
const BURST_CONCURRENCY = 16;
const FLOOD_CONCURRENCY = 32;
/** The quiet tenant's widgets in the isolation phase, updated in turn: each one every second at the default 200 ms. */
const ISOLATION_WIDGETS = 5;

type Side = "ours" | "go" | "bare";

/** The tracker's key of one update: the widget's key and the color the status must show. */
const updateKey = (key: string, color: string): string => `${key}@${color}`;

/** Everything a phase needs: the tenants, where to record reconciles, who may fail. */
class Scenario {
  readonly tracker = new Tracker();
  /** Per widget key, the colors of its updates no status has shown yet, oldest first. */
  private readonly unseenColors = new Map<string, string[]>();

  constructor(
    readonly flags: BenchFlags,
    readonly tenants: readonly Workspace[],
  ) {}

  tenant(index: number): Workspace {
    const ws = this.tenants[index % this.tenants.length];
    if (ws === undefined) throw new Error("no tenants");
    return ws;
  }

  /**
   * A status write of ours: it completes a create's probe, or an update's
   * when it shows the updated color or a later one. A later one completes
   * the earlier updates too: a reconcile that waited folded them in, as a
   * level-based controller does, and their wait ends with it.
   */
  reconciled(key: string, observed: string, at: number): void {
    this.tracker.complete(key, at);
    const colors = this.unseenColors.get(key) ?? [];
    for (const color of colors.splice(0, colors.indexOf(observed) + 1)) this.tracker.complete(updateKey(key, color), at);
    if (colors.length === 0) this.unseenColors.delete(key);
  }

  /** `--objects` widgets per tenant, without status, that a controller finds when it starts. */
  get precreated(): number {
    return this.tenants.length * this.flags.objects;
  }

  precreatedKey(index: number): string {
    return `${this.tenant(index).cluster}|default/pre-${Math.floor(index / this.tenants.length)}`;
  }

  async precreate(): Promise<void> {
    await pool(this.precreated, BURST_CONCURRENCY, (i) => this.createWidget(this.tenant(i), `pre-${Math.floor(i / this.tenants.length)}`, undefined));
  }

  /**
   * Back to the state the first controller started from: every widget a
   * session made is deleted, and the pre-created ones are made anew, without
   * status, so that the next controller syncs and reconciles the same.
   */
  async reset(): Promise<void> {
    await pool(this.tenants.length, BURST_CONCURRENCY, (i) => withRetry("delete the widgets", () => this.tenant(i).client.delete(WIDGETS)).then(() => undefined));
    await this.precreate();
  }

  /** Creates a widget, tracked in `probe` from just before the request. */
  async createWidget(ws: Workspace, name: string, probe: Probe | undefined, labels?: Record<string, string>): Promise<void> {
    if (probe !== undefined) this.tracker.expect(`${ws.cluster}|default/${name}`, probe);
    let attempt = 0;
    await withRetry(`create widget ${name} in ${ws.path}`, async () => {
      try {
        attempt++;
        await ws.client.create(WIDGETS, {
          apiVersion: "smoke.edgeconnect.eu/v1alpha1",
          kind: "Widget",
          metadata: { name, ...(labels ? { labels } : {}) },
          spec: { color: name },
        });
      } catch (err) {
        // A retry whose earlier attempt landed after all.
        if (attempt > 1 && err instanceof HttpStatusError && err.status === 409) return;
        throw err;
      }
    });
  }

  /** Sets a widget's color, tracked in `probe` until a status shows it. */
  async updateWidget(ws: Workspace, name: string, color: string, probe: Probe): Promise<void> {
    const key = `${ws.cluster}|default/${name}`;
    this.tracker.expect(updateKey(key, color), probe);
    this.unseenColors.set(key, [...(this.unseenColors.get(key) ?? []), color]);
    await withRetry(`update widget ${name} in ${ws.path}`, () =>
      ws.client.request("PATCH", `${WIDGETS}/${name}`, { body: { spec: { color } }, contentType: "application/merge-patch+json" }),
    );
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
   * `--quiet-interval-ms` until the flood has drained; the quiet tenant's
   * latency is what fairness is about.
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
    }, this.flags.quietIntervalMs);
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

  /**
   * The tenant after the noisy ones updates its widgets, one every
   * `--quiet-interval-ms`;
   * then each of the first `--noisy-tenants` tenants gets `--noisy` widgets
   * whose reconciles fail after `--noisy-ms`, and once they occupy the
   * controller the same updates run again. The noisy widgets are deleted
   * afterwards, so the bare client never sees them.
   */
  async isolation(child: SideProcess, maxInFlightPerTenant: number): Promise<IsolationFigures> {
    const noisyTenants = this.tenants.slice(0, this.flags.noisyTenants);
    const noisyWidgets = noisyTenants.length * this.flags.noisy;
    const quiet = this.tenant(noisyTenants.length);
    const failed = (): Error | undefined => child.error;
    const setup = new Probe("isolation: quiet widgets");
    await pool(ISOLATION_WIDGETS, BURST_CONCURRENCY, (i) => this.createWidget(quiet, `iso-quiet-${i}`, setup));
    await setup.drained(failed);
    const idle = await this.quietUpdates(quiet, "idle", failed);
    log(`isolation: idle updates p50 ${idle.p50Ms.toFixed(0)} ms`);

    const label = { [NOISY_LABEL]: "true" };
    await pool(noisyWidgets, BURST_CONCURRENCY, (i) => this.createWidget(this.tenant(i % noisyTenants.length), `noisy-${Math.floor(i / noisyTenants.length)}`, undefined, label));
    const busy = noisyTenants.length * Math.min(this.flags.noisy, maxInFlightPerTenant);
    for (let started = performance.now(); (await child.stats()).noisyAttempts < busy; await sleep(50)) {
      if (performance.now() - started > 60_000) throw new Error(`the controller did not start ${busy} noisy reconciles within 60 s`);
    }
    log(`isolation: ${noisyWidgets} noisy widgets of ${noisyTenants.length} tenants failing`);
    const attemptsBefore = (await child.stats()).noisyAttempts;
    const noisyStart = performance.now();
    const underNoise = await this.quietUpdates(quiet, "noisy", failed);
    const noisyReconcilesPerSecond = ((await child.stats()).noisyAttempts - attemptsBefore) / ((performance.now() - noisyStart) / 1000);
    log(`isolation: noisy updates p50 ${underNoise.p50Ms.toFixed(0)} ms`);
    // Deleted widgets reconcile as successes; once all have, kcp and the
    // controller are quiet again for the bare client's phases.
    const successes = (await child.stats()).reconcileResults.success ?? 0;
    for (const noisy of noisyTenants) {
      await withRetry("delete the noisy widgets", () => noisy.client.delete(WIDGETS, { query: { labelSelector: NOISY_LABEL } }));
    }
    for (let started = performance.now(); ((await child.stats()).reconcileResults.success ?? 0) < successes + noisyWidgets; await sleep(50)) {
      if (performance.now() - started > 60_000) throw new Error(`the controller did not reconcile the ${noisyWidgets} deleted noisy widgets within 60 s`);
    }
    return {
      noisyTenants: noisyTenants.length,
      noisyWidgets: this.flags.noisy,
      noisyReconcileMs: this.flags.noisyMs,
      workers: this.flags.workers,
      maxInFlightPerTenant,
      idle,
      noisy: underNoise,
      noisyReconcilesPerSecond,
      ...isolationRatios(idle, underNoise),
    };
  }

  /** `--isolation-updates` color changes of the quiet widgets, one every `--quiet-interval-ms`, until all are reconciled. */
  private async quietUpdates(ws: Workspace, phase: string, failed: () => Error | undefined): Promise<LatencySummary> {
    const probe = new Probe(`isolation: ${phase} updates`);
    let error: Error | undefined;
    for (let i = 0; i < this.flags.isolationUpdates; i++) {
      this.updateWidget(ws, `iso-quiet-${i % ISOLATION_WIDGETS}`, `${phase}-${i}`, probe).catch((err: unknown) => {
        error ??= err instanceof Error ? err : new Error(String(err));
      });
      await sleep(this.flags.quietIntervalMs);
    }
    await probe.drained(() => failed() ?? error);
    return probe.summary();
  }
}

/** What `main` undoes at the end, whatever failed. */
interface Cleanup {
  readonly what: string;
  readonly run: () => Promise<unknown> | void;
}

/** One controller's session and what only the JSON needs besides its figures. */
interface SessionRun {
  readonly pid: number;
  readonly figures: SessionFigures;
  /** controller_runtime_reconcile_total by result, after the flood. */
  readonly reconcileResults: Record<string, number>;
}

const roundFigures = (run: SessionRun) => ({ pid: run.pid, ...run.figures, reconcileResults: run.reconcileResults });

/** One side's rounds as one: every figure the median over the rounds; pid and reconcile counts of the last. */
function medianRun(runs: readonly SessionRun[]): SessionRun {
  const last = runs.at(-1);
  if (last === undefined) throw new Error("no session ran");
  return { ...last, figures: medianOf(runs.map((run) => run.figures)) };
}

/**
 * A controller (ours, or a peer) in a process of its own through initial
 * sync, burst, flood and isolation; stopped at the end. The clock of the
 * initial sync starts when the side is told to start, after it has loaded.
 */
async function controllerSession(
  scenario: Scenario,
  config: OursConfig | GoPeerConfig,
  maxInFlightPerTenant: number,
  onReconciled: (key: string, observed: string, at: number) => void,
  cleanups: Cleanup[],
): Promise<SessionRun> {
  const side = config.side;
  const initialProbe = new Probe(`${side} initial sync`);
  let child: SideProcess | undefined = await SideProcess.spawn({ config, onReconciled });
  cleanups.push({ what: `stop ${side}`, run: () => child?.stop() });
  const failed = (): Error | undefined => child?.error;
  const before = child.usage();
  const t0 = performance.now();
  for (let i = 0; i < scenario.precreated; i++) scenario.tracker.expect(scenario.precreatedKey(i), initialProbe, t0);
  const syncedMs = (await child.start()) - t0;
  await initialProbe.drained(failed);
  const synced = child.usage();
  const initialSync = {
    bootMs: child.bootMs,
    objects: scenario.precreated,
    syncedMs,
    reconciledMs: scenario.precreated === 0 ? syncedMs : initialProbe.lastDone - t0,
    rssBeforeBytes: before.rssBytes,
    rssAfterBytes: synced.rssBytes,
    rssDeltaBytes: synced.rssBytes - before.rssBytes,
    heapUsedAfterBytes: (await child.stats()).heapUsedBytes,
  };
  log(`${side} (pid ${child.pid}): booted in ${initialSync.bootMs.toFixed(0)} ms, synced in ${syncedMs.toFixed(0)} ms, ${scenario.precreated} reconciled in ${initialSync.reconciledMs.toFixed(0)} ms`);
  const burst = await scenario.burst(side, failed);
  const burstDone = child.usage();
  log(`${side}: burst done (p50 ${burst.p50Ms.toFixed(0)} ms)`);
  const flood = await scenario.flood(side, failed);
  const floodDone = child.usage();
  log(`${side}: flood drained in ${flood.drainMs.toFixed(0)} ms`);
  const reconcileResults = (await child.stats()).reconcileResults;
  const isolation = await scenario.isolation(child, maxInFlightPerTenant);
  const isolationDone = child.usage();
  const pid = child.pid;
  await child.stop();
  child = undefined;
  return {
    pid,
    figures: {
      initialSync,
      burst,
      flood,
      isolation,
      process: {
        initialSyncCpuSeconds: synced.cpuSeconds - before.cpuSeconds,
        burstCpuSeconds: burstDone.cpuSeconds - synced.cpuSeconds,
        floodCpuSeconds: floodDone.cpuSeconds - burstDone.cpuSeconds,
        isolationCpuSeconds: isolationDone.cpuSeconds - floodDone.cpuSeconds,
        rssAfterFloodBytes: floodDone.rssBytes,
        peakRssBytes: isolationDone.peakRssBytes,
      },
    },
    reconcileResults,
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "bench", `runtime-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`));
  // Undone in reverse order in `finally`, whatever failed.
  const cleanups: Cleanup[] = [];
  try {
    // Built (or found) first: a failed build should not cost a run's setup.
    const peerBinary = flags.peer === "go" ? await resolveBinary("widget-controller-go", { log }) : undefined;
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
    await scenario.precreate();
    log(`${scenario.precreated} widgets pre-created`);

    const onReconciled = (key: string, observed: string, at: number): void => scenario.reconciled(key, observed, at);
    const maxInFlightPerTenant = flags.maxInFlightPerTenant ?? defaultMaxInFlightPerTenant(flags.workers);
    const oursConfig: OursConfig = {
      side: "ours",
      kubeconfig,
      provider: provider.path,
      workers: flags.workers,
      maxInFlightPerTenant: flags.maxInFlightPerTenant,
      noisyReconcileMs: flags.noisyMs,
    };
    const goConfig: GoPeerConfig | undefined =
      peerBinary === undefined ? undefined : { side: "go", binary: peerBinary.path, kubeconfig, provider: provider.path, workers: flags.workers, noisyReconcileMs: flags.noisyMs };
    if (peerBinary !== undefined) log(`go peer on multicluster-provider ${peerBinary.version} (${peerBinary.source}): ${peerBinary.path}`);
    // Round by round, alternating who goes first, so that neither side always meets the kcp the other just loaded.
    const runs: { ours: SessionRun[]; go: SessionRun[] } = { ours: [], go: [] };
    for (let round = 1; round <= flags.rounds; round++) {
      const sides = goConfig === undefined ? (["ours"] as const) : round % 2 === 1 ? (["ours", "go"] as const) : (["go", "ours"] as const);
      for (const side of sides) {
        if (runs.ours.length + runs.go.length > 0) {
          await scenario.reset();
          log(`widgets reset to the ${scenario.precreated} pre-created ones`);
        }
        if (flags.rounds > 1) log(`round ${round} of ${flags.rounds}: ${side}`);
        // controller-runtime's queue has no per-tenant cap: every worker may serve one tenant.
        if (side === "go" && goConfig !== undefined) runs.go.push(await controllerSession(scenario, goConfig, flags.workers, onReconciled, cleanups));
        else runs.ours.push(await controllerSession(scenario, oursConfig, maxInFlightPerTenant, onReconciled, cleanups));
      }
    }
    const ours = medianRun(runs.ours);
    const peer = peerBinary === undefined ? undefined : { ...medianRun(runs.go), binary: peerBinary };

    // Ceiling: the bare client on the same virtual workspace, in a process of its own too.
    const [endpoint] = await apiExportEndpoints(provider, WIDGET_EXPORT);
    if (endpoint === undefined) throw new Error("the export has no virtual-workspace endpoint");
    let bare: SideProcess | undefined = await SideProcess.spawn({ config: { side: "bare", kubeconfig, endpoint, workers: flags.workers }, onReconciled });
    cleanups.push({ what: "stop bare client", run: () => bare?.stop() });
    const bareFailed = (): Error | undefined => bare?.error;
    await bare.start();
    const bareStarted = bare.usage();
    const bareBurst = await scenario.burst("bare", bareFailed);
    const bareBurstDone = bare.usage();
    log(`bare (pid ${bare.pid}): burst done (p50 ${bareBurst.p50Ms.toFixed(0)} ms)`);
    const bareFlood = await scenario.flood("bare", bareFailed);
    const bareFloodDone = bare.usage();
    log(`bare: flood drained in ${bareFlood.drainMs.toFixed(0)} ms`);
    const bareWatchErrors = (await bare.stats()).watchErrors;
    const bareProcess: ProcessFigures = {
      burstCpuSeconds: bareBurstDone.cpuSeconds - bareStarted.cpuSeconds,
      floodCpuSeconds: bareFloodDone.cpuSeconds - bareBurstDone.cpuSeconds,
      rssAfterFloodBytes: bareFloodDone.rssBytes,
    };
    await bare.stop();
    bare = undefined;

    const ceiling = { burst: bareBurst, flood: bareFlood, process: bareProcess };
    const r = ratios(ours.figures, ceiling);
    const finishedAt = new Date();
    const result = {
      benchmark: "runtime",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      parameters: {
        ...flags,
        out,
        kubeconfig: flags.kubeconfig !== undefined ? flags.kubeconfig : null,
        maxInFlightPerTenant,
        burstConcurrency: BURST_CONCURRENCY,
        floodConcurrency: FLOOD_CONCURRENCY,
        isolationWidgets: ISOLATION_WIDGETS,
      },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, totalMemBytes: totalmem(), node: process.version, platform: process.platform, arch: process.arch },
      kcp: { started: flags.kubeconfig === undefined, binaryVersion: kcpBinaryVersion ?? null, serverVersion, endpoint },
      setup: { workspacesMs, precreatedObjects: scenario.precreated },
      ours: { pid: ours.pid, ...ours.figures, reconcileResults: ours.reconcileResults },
      ...(flags.rounds > 1 ? { rounds: { ours: runs.ours.map(roundFigures), peer: runs.go.map(roundFigures) } } : {}),
      ceiling: { ...ceiling, watchErrors: bareWatchErrors },
      ratios: r,
      ...(peer === undefined
        ? {}
        : {
            peer: { side: flags.peer, binary: peer.binary, pid: peer.pid, ...peer.figures, reconcileResults: peer.reconcileResults },
            peerRatios: peerRatios(ours.figures, peer.figures),
          }),
      transientRetries: retries.count,
    };
    mkdirSync(dirname(out), { recursive: true });
    // JSON has no NaN; null marks a figure that had no samples.
    writeFileSync(out, `${JSON.stringify(result, (_, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
    process.stdout.write(
      `\nruntime benchmark: ${flags.tenants} tenants, ${flags.objects} objects each, flood ${flags.flood}, ${flags.workers} workers; ` +
        `kcp ${kcpBinaryVersion ?? serverVersion}; ${cpus().length} CPUs; node ${process.version}\n\n` +
        `${renderTable(ours.figures.initialSync, ours.figures, ceiling, r)}\n\n` +
        `${renderIsolationTable(ours.figures.isolation)}\n\n` +
        (peer === undefined
          ? ""
          : `ours against the ${flags.peer} peer (${peer.binary.path}), each from the same starting state:\n\n` +
            `${renderPeerTable(flags.peer ?? "peer", ours.figures, peer.figures)}\n\n` +
            `${flags.peer} peer: ${renderIsolationTable(peer.figures.isolation)}\n\n` +
            `${flags.peer} peer: reconciles by result after the flood ${JSON.stringify(peer.reconcileResults)}\n`) +
        `ours: reconciles by result after the flood ${JSON.stringify(ours.reconcileResults)}; ` +
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

main().then(
  () => log("done"),
  (err: unknown) => {
    process.stderr.write(`\nruntime benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
