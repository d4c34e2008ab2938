/**
 * `pnpm bench:provider`: the provider-controller with many tenants on real
 * kcp, as in the issue it reproduces ("100 tenant workspaces, one cluster
 * each, simulated cloud with 200 ms transitions: after 15 minutes only 65
 * of 100 clusters were Ready, the controller's RSS had grown from 101 MiB to
 * 1.39 GiB, and its CPU profile was 99.8 % `scrubText`").
 *
 * It starts kcp and an infrastructure kube-apiserver (testenv), then the
 * Platform (workload kube-apiserver, OTC simulator with 200 ms transitions,
 * Crossplane OTC simulator, the provider-controller as its own process,
 * under `node --cpu-prof` unless `--no-profile`). `--tenants` workspaces of
 * the tenant type are created, 8 at a time, each with an OTC account of its
 * own (distinct credentials: what fills the controller's redaction
 * registry). Then every tenant orders one cluster at once, and the run waits
 * until all are Ready (condition Ready True and the kubeconfig Secret
 * named) or `--timeout-s` after the first order has passed.
 *
 * Measured: time from the first order to each cluster's first condition
 * (the controller's first pass over it had ended) and, from the first order
 * and from each cluster's own order, to each cluster Ready, seen by a watch
 * on the APIExport's virtual workspace. Ready also waits on the Crossplane
 * provider, which reconciles at most 10 managed resources a second overall
 * (the real provider's default `--max-reconcile-rate`): with hundreds of
 * tenants that, not this controller, sets the pace. The controller process's
 * VmRSS and CPU time (utime+stime) from /proc and its event-loop lag from
 * its metrics, every second; after a SIGTERM (the controller exits cleanly and
 * Node writes the profile), the profile's samples by package, the share of
 * samples with a frame of packages/redaction on the stack, the top
 * functions by self time and the callers into packages/redaction, for the
 * samples from the first order to the end of the wait (the process's whole
 * life too, in the JSON and one line of the table). A table goes to stdout, progress to stderr,
 * every figure to the JSON file; state and logs stay in
 * `.cache/bench/provider/` until the next run.
 *
 * `--kcp simulator` runs the load benchmark on the kcp load simulator
 * instead (provider-sim-bench.ts): thousands of seeded tenants, time to
 * every cluster reconciled once, event-loop lag, a flood.
 */
import { createReadStream, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { API_EXPORT_NAME, collectionPath, KUBERNETES_CLUSTER_RESOURCE } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { clusterOf, type RestClient } from "@edgeconnect/kcp-ts";
import { apiExportEndpoints, freePort, Reaper, REPO_ROOT, resolveBinary, TestEnvironment, type Workspace } from "@edgeconnect/testenv";
import { readCpuProfile, summarizeProfile, type ProfileSummary } from "./cpu-profile.js";
import { pool, retries, sleep, withRetry } from "./measure.js";
import { errorText, isReady, log, ORDER_CONCURRENCY, OTC_DELAY_MS, stateOf, WORKSPACE_CONCURRENCY, type Cluster } from "./platform-run.js";
import { processUsage, type ProcessUsage } from "./proc-stats.js";
import { parseProviderFlags } from "./provider-flags.js";
import { runSimulatorBench, scrapeController } from "./provider-sim-bench.js";
import { lagFigures, type LagSample } from "./provider-sim-report.js";
import { readySummary, renderProfileTables, renderProviderTable, type ControllerFigures, type ReadinessFigures, type SetupFigures } from "./provider-report.js";

const SAMPLE_INTERVAL_MS = 1_000;
const PROGRESS_INTERVAL_MS = 10_000;
/** A relist now and then, in case the watch misses something (it should not). */
const RELIST_INTERVAL_MS = 30_000;
/** A busy controller may take a while to drain and write its profile; SIGKILL (no profile) only after this. */
const CONTROLLER_STOP_GRACE_MS = 180_000;
const FOCUS_PACKAGE = "packages/redaction";
const CLUSTERS = `/clusters/*${collectionPath(KUBERNETES_CLUSTER_RESOURCE)}`;

/** Now on the clock of V8's profiles (CLOCK_MONOTONIC, microseconds). */
const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);


/**
 * Every KubernetesCluster of every tenant through the export's virtual
 * workspace: a LIST, then a WATCH from its resourceVersion (relisting after
 * an error or an expired version, and every 30 s regardless). Records when
 * each cluster (`<logical cluster>|<namespace>/<name>`) was first seen Ready.
 */
class ReadyWatch {
  readonly readyAt = new Map<string, number>();
  /** When each cluster was first seen with a condition: the controller's first pass over it had ended. */
  readonly reconciledAt = new Map<string, number>();
  readonly states = new Map<string, string>();
  watchErrors = 0;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private relistTimer: NodeJS.Timeout | undefined;

  constructor(private readonly client: RestClient) {}

  async start(): Promise<void> {
    const from = await this.relist();
    this.running = this.loop(from);
    this.relistTimer = setInterval(() => void this.relist().catch((err: unknown) => log(`relist failed: ${errorText(err)}`)), RELIST_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.relistTimer);
    this.stopping.abort();
    await this.running;
  }

  private async relist(): Promise<string | undefined> {
    const list = await this.client.list<Cluster>(CLUSTERS, { signal: this.stopping.signal });
    for (const kc of list.items) this.consider(kc);
    return list.metadata.resourceVersion;
  }

  private async loop(from: string | undefined): Promise<void> {
    let resourceVersion = from;
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        resourceVersion ??= await this.relist();
        for await (const event of this.client.watch<Cluster>(CLUSTERS, { signal, query: { resourceVersion, allowWatchBookmarks: true } })) {
          if (event.type === "ERROR") {
            resourceVersion = undefined;
            break;
          }
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === "ADDED" || event.type === "MODIFIED") this.consider(event.object);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.watchErrors++;
        resourceVersion = undefined;
        log(`cluster watch failed, relisting: ${errorText(err)}`);
        await sleep(1_000);
      }
    }
  }

  private consider(kc: Cluster): void {
    const key = `${clusterOf(kc) ?? "?"}|${kc.metadata?.namespace ?? ""}/${kc.metadata?.name ?? ""}`;
    this.states.set(key, stateOf(kc));
    if ((kc.status?.conditions?.length ?? 0) > 0 && !this.reconciledAt.has(key)) this.reconciledAt.set(key, performance.now());
    if (isReady(kc) && !this.readyAt.has(key)) this.readyAt.set(key, performance.now());
  }
}

/** The controller's /proc figures and event-loop lag every second: the latest, the highest RSS, and a timeline for the JSON. */
class ControllerSampler {
  readonly timeline: { readonly t: number; readonly rssBytes: number; readonly cpuSeconds: number; readonly ready: number }[] = [];
  readonly lag: LagSample[] = [];
  latest: ProcessUsage | undefined;
  peakRssBytes = 0;
  /** Clusters Ready so far, recorded with each sample once the watch runs. */
  countReady: () => number = () => 0;
  /** performance.now() when /proc/<pid> could no longer be read. */
  goneAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private scraping = false;

  constructor(
    readonly pid: number,
    private readonly metricsUrl: string,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => {
      this.sample();
      void this.scrape();
    }, SAMPLE_INTERVAL_MS);
  }

  /** The lag samples taken from `from` on. */
  lagSince(from: number): LagSample[] {
    return this.lag.filter((s) => s.t >= from);
  }

  private async scrape(): Promise<void> {
    if (this.scraping || this.goneAt !== undefined) return;
    this.scraping = true;
    try {
      const { lag } = await scrapeController(this.metricsUrl, performance.now());
      if (lag !== undefined) this.lag.push(lag);
    } finally {
      this.scraping = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sample(): ProcessUsage | undefined {
    if (this.goneAt !== undefined) return undefined;
    try {
      const usage = processUsage(this.pid);
      this.latest = usage;
      this.peakRssBytes = Math.max(this.peakRssBytes, usage.rssBytes);
      this.timeline.push({ t: performance.now(), rssBytes: usage.rssBytes, cpuSeconds: usage.cpuSeconds, ready: this.countReady() });
      return usage;
    } catch {
      this.goneAt = performance.now();
      return undefined;
    }
  }
}

async function main(): Promise<void> {
  const flags = parseProviderFlags(process.argv.slice(2));
  if (flags.kcp === "simulator") {
    await runSimulatorBench(flags, log);
    return;
  }
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "reports", "bench-provider.json"));
  const dir = join(REPO_ROOT, ".cache", "bench", "provider");
  const profileDir = join(dir, "cpu-profile");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  const loadBefore = loadavg();

  // Undone in reverse order in `finally`, whatever failed.
  const cleanups: { readonly what: string; readonly run: () => Promise<unknown> | void }[] = [];
  try {
    const kcpBinaryVersion = (await resolveBinary("kcp", { log })).version;
    let t = performance.now();
    const environment = await TestEnvironment.start({ infra: "kube-apiserver", dir, log });
    cleanups.push({ what: "stop kcp and the infrastructure cluster", run: () => environment.stop() });
    const environmentMs = performance.now() - t;
    const { kcp, infra } = environment.state;
    if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
    log(`kcp ${kcpBinaryVersion} and the infrastructure kube-apiserver up in ${(environmentMs / 1000).toFixed(1)} s; kcp log: ${kcp.logFile}`);

    const reaper = Reaper.start();
    cleanups.push({ what: "close the reaper", run: () => reaper.close() });
    t = performance.now();
    const metricsPort = await freePort();
    const platform = await Platform.start({
      kcpUrl: kcp.url,
      kcpKubeconfig: kcp.kubeconfig,
      infraKubeconfig: infra.kubeconfig,
      dir,
      reaper,
      log,
      tenantAccounts: flags.tenants,
      otcDelays: { transitionDelayMs: OTC_DELAY_MS, cceClusterCreateMs: OTC_DELAY_MS, cceClusterDeleteMs: OTC_DELAY_MS, nodePoolSyncMs: OTC_DELAY_MS },
      // Its event-loop lag, from its own metrics (the Platform turns them off otherwise).
      controllerArgs: () => [`--metrics-bind-address=127.0.0.1:${metricsPort}`],
      ...(flags.profile ? { controllerNodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    cleanups.push({ what: "stop the platform", run: () => platform.stop() });
    const platformMs = performance.now() - t;
    const pid = platform.controllerPid;
    if (pid === undefined) throw new Error("the provider-controller did not start");
    const controllerLog = join(dir, "provider-controller-1.log");
    log(`platform up in ${(platformMs / 1000).toFixed(1)} s; provider-controller pid ${pid}${flags.profile ? " (profiling)" : ""}, log ${controllerLog}`);

    const sampler = new ControllerSampler(pid, `http://127.0.0.1:${metricsPort}/metrics`);
    sampler.start();
    cleanups.push({ what: "stop sampling", run: () => sampler.stop() });

    // Tenants: a workspace of our type each, and an OTC account each.
    t = performance.now();
    const tenants = new Map<number, Workspace>();
    await pool(flags.tenants, WORKSPACE_CONCURRENCY, async (i) => {
      tenants.set(i, await withRetry(`tenant workspace ${i}`, () => platform.createTenant(`bench-tenant-${i}`), 3));
      if (tenants.size % 10 === 0 || tenants.size === flags.tenants) log(`tenant workspaces: ${tenants.size}/${flags.tenants}`);
    });
    const workspacesMs = performance.now() - t;
    log(`${flags.tenants} tenant workspaces in ${(workspacesMs / 1000).toFixed(1)} s`);

    const [endpoint] = await apiExportEndpoints(platform.provider, API_EXPORT_NAME);
    if (endpoint === undefined) throw new Error("the APIExport has no virtual-workspace endpoint");
    const readyWatch = new ReadyWatch(platform.kcp.withServer(endpoint));
    await readyWatch.start();
    sampler.countReady = () => readyWatch.readyAt.size;
    cleanups.push({ what: "stop the cluster watch", run: () => readyWatch.stop() });

    // Orders: every tenant at once, ORDER_CONCURRENCY requests at a time.
    const atStart = sampler.sample();
    if (atStart === undefined) throw new Error(`the provider-controller (pid ${pid}) exited before the orders; see ${controllerLog}`);
    const orderedAt = new Map<string, number>();
    const firstOrder = performance.now();
    const firstOrderMicros = monotonicMicros();
    await pool(flags.tenants, ORDER_CONCURRENCY, async (i) => {
      const tenant = tenants.get(i);
      if (tenant === undefined) throw new Error(`tenant ${i} has no workspace`);
      const at = performance.now();
      await withRetry(`order in ${tenant.path}`, () => orderCluster(tenant.client, { credentials: platform.passwordCredentials(i) }));
      orderedAt.set(`${tenant.cluster}|default/my-cluster`, at);
    });
    const ordersMs = performance.now() - firstOrder;
    log(`${flags.tenants} clusters ordered in ${(ordersMs / 1000).toFixed(1)} s; waiting up to ${flags.timeoutS} s from the first order`);

    // Wait: all Ready, the timeout, or the controller gone.
    const deadline = firstOrder + flags.timeoutS * 1000;
    const readyAfter: Record<string, number> = {};
    let nextProgress = performance.now() + PROGRESS_INTERVAL_MS;
    let nextMark = 60;
    while (readyWatch.readyAt.size < flags.tenants && performance.now() < deadline && sampler.goneAt === undefined) {
      await sleep(200);
      const now = performance.now();
      while ((now - firstOrder) / 1000 >= nextMark) {
        readyAfter[`${nextMark}s`] = readyWatch.readyAt.size;
        nextMark += 60;
      }
      if (now >= nextProgress) {
        nextProgress += PROGRESS_INTERVAL_MS;
        const usage = sampler.latest;
        log(
          `${readyWatch.reconciledAt.size} reconciled once, ${readyWatch.readyAt.size}/${flags.tenants} Ready after ${((now - firstOrder) / 1000).toFixed(0)} s; ` +
            `controller RSS ${usage === undefined ? "?" : (usage.rssBytes / 2 ** 20).toFixed(0)} MiB, CPU ${usage?.cpuSeconds.toFixed(0) ?? "?"} s`,
        );
      }
    }
    const end = performance.now();
    const endMicros = monotonicMicros();
    const atEnd = sampler.sample() ?? sampler.latest ?? atStart;
    sampler.stop();
    const timedOut = readyWatch.readyAt.size < flags.tenants && sampler.goneAt === undefined;
    if (sampler.goneAt !== undefined) log(`the provider-controller exited during the run; see ${controllerLog}`);
    const ready = readyWatch.readyAt.size;
    log(`${ready}/${flags.tenants} Ready after ${((end - firstOrder) / 1000).toFixed(1)} s${timedOut ? " (timeout)" : ""}`);

    const notReadyBy: Record<string, number> = {};
    for (const [key, state] of readyWatch.states) if (!readyWatch.readyAt.has(key)) notReadyBy[state] = (notReadyBy[state] ?? 0) + 1;
    const unseen = flags.tenants - readyWatch.states.size;
    if (unseen > 0) notReadyBy["not seen by the watch"] = unseen;
    await readyWatch.stop();

    const readyTimes = [...readyWatch.readyAt];
    const readiness: ReadinessFigures = {
      ordered: flags.tenants,
      reconciledOnce: readySummary([...readyWatch.reconciledAt.values()].map((at) => at - firstOrder)),
      reconciledOnceFromOwnOrder: readySummary([...readyWatch.reconciledAt].map(([key, at]) => at - (orderedAt.get(key) ?? firstOrder))),
      lag: lagFigures(sampler.lagSince(firstOrder)),
      ready,
      waitedSeconds: (end - firstOrder) / 1000,
      timedOut,
      fromFirstOrder: readySummary(readyTimes.map(([, at]) => at - firstOrder)),
      fromOwnOrder: readySummary(readyTimes.map(([key, at]) => at - (orderedAt.get(key) ?? firstOrder))),
      notReadyBy,
      readyAfter,
    };

    // Stop the controller with SIGTERM so that Node writes the profile.
    log(`stopping the provider-controller (SIGTERM, up to ${CONTROLLER_STOP_GRACE_MS / 1000} s before SIGKILL)`);
    t = performance.now();
    const exit = await platform.stopController(CONTROLLER_STOP_GRACE_MS);
    const stopMs = performance.now() - t;
    log(`provider-controller exited after ${(stopMs / 1000).toFixed(1)} s: code ${exit?.code ?? "none"}, signal ${exit?.signal ?? "none"}`);
    const controller: ControllerFigures = {
      pid,
      rssStartBytes: atStart.rssBytes,
      rssEndBytes: atEnd.rssBytes,
      peakSampledRssBytes: sampler.peakRssBytes,
      peakRssBytes: atEnd.peakRssBytes,
      cpuSecondsDuringRun: atEnd.cpuSeconds - atStart.cpuSeconds,
      cpuSecondsTotal: atEnd.cpuSeconds,
      coresDuringRun: (atEnd.cpuSeconds - atStart.cpuSeconds) / ((end - firstOrder) / 1000),
      exitedDuringRunAfterS: sampler.goneAt === undefined ? null : (sampler.goneAt - firstOrder) / 1000,
      exit: exit === undefined ? null : { code: exit.code, signal: exit.signal },
      stopMs,
    };

    let profile: { readonly run: ProfileSummary; readonly life: ProfileSummary } | undefined;
    let profileProblem: string | undefined;
    if (flags.profile) {
      const file = controllerProfile(profileDir, pid);
      if (file === undefined) profileProblem = `no .cpuprofile of pid ${pid} in ${profileDir} (the controller did not exit cleanly?)`;
      else {
        log(`analysing ${file} (${(statSync(file).size / 2 ** 20).toFixed(1)} MiB)`);
        const data = readCpuProfile(file);
        const options = { file, focus: FOCUS_PACKAGE, root: REPO_ROOT };
        profile = {
          run: summarizeProfile(data, { ...options, window: { fromMicros: firstOrderMicros, toMicros: endMicros } }),
          life: summarizeProfile(data, options),
        };
      }
    }
    const logLines = await countLogLevels(controllerLog);

    const setup: SetupFigures = {
      environmentMs,
      platformMs,
      workspacesMs,
      workspaceConcurrency: WORKSPACE_CONCURRENCY,
      ordersMs,
      orderConcurrency: ORDER_CONCURRENCY,
    };
    const finishedAt = new Date();
    const result = {
      benchmark: "provider",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      parameters: { ...flags, out, otcDelayMs: OTC_DELAY_MS, workspaceConcurrency: WORKSPACE_CONCURRENCY, orderConcurrency: ORDER_CONCURRENCY, stopGraceMs: CONTROLLER_STOP_GRACE_MS },
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? null,
        totalMemBytes: totalmem(),
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadavg(),
        node: process.version,
        platform: process.platform,
        arch: process.arch,
      },
      kcp: { binaryVersion: kcpBinaryVersion },
      dir,
      controllerLog,
      setup,
      readiness,
      controller: { ...controller, logLines },
      profile: profile ?? null,
      profileProblem: profileProblem ?? null,
      watchErrors: readyWatch.watchErrors,
      transientRetries: retries.count,
      timeline: sampler.timeline.map((s) => ({ t: Number(((s.t - firstOrder) / 1000).toFixed(1)), rssBytes: s.rssBytes, cpuSeconds: s.cpuSeconds, ready: s.ready })),
    };
    mkdirSync(dirname(out), { recursive: true });
    // JSON has no NaN; null marks a figure that had no samples.
    writeFileSync(out, `${JSON.stringify(result, (_, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
    process.stdout.write(
      `\nprovider benchmark: ${flags.tenants} tenants, one cluster each, OTC transitions ${OTC_DELAY_MS} ms, timeout ${flags.timeoutS} s; ` +
        `kcp ${kcpBinaryVersion}; ${cpus().length} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before; node ${process.version}\n\n` +
        `${renderProviderTable(flags.tenants, setup, readiness, controller)}\n\n` +
        `${profile !== undefined ? renderProfileTables(profile.run, profile.life) : (profileProblem ?? "not profiled (--no-profile)")}\n\n` +
        `controller log lines by level: ${JSON.stringify(logLines)}; exit ${JSON.stringify(controller.exit)} after ${(stopMs / 1000).toFixed(1)} s; ` +
        `watch errors ${readyWatch.watchErrors}; transient retries ${retries.count}\nJSON: ${out}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (err) {
        log(`cleanup failed (${cleanup.what}): ${errorText(err)}`);
      }
    }
  }
}

/** The profile Node wrote for `pid` (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`), the main thread's. */
function controllerProfile(profileDir: string, pid: number): string | undefined {
  const files = readdirSync(profileDir)
    .filter((file) => file.endsWith(".cpuprofile") && file.split(".")[3] === String(pid))
    .sort((a, b) => Number(a.split(".")[4]) - Number(b.split(".")[4]));
  return files[0] === undefined ? undefined : join(profileDir, files[0]);
}

/** The controller's log lines by level (pino's, by label or number), and lines that are not JSON (`other`). */
async function countLogLevels(file: string): Promise<Record<string, number>> {
  const names: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
  const counts: Record<string, number> = {};
  try {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      let level = "other";
      try {
        const parsed = JSON.parse(line) as { level?: number | string };
        level = typeof parsed.level === "string" ? parsed.level : (names[parsed.level ?? 0] ?? "other");
      } catch {
        // Not a pino line (a stack trace, Node's own output).
      }
      counts[level] = (counts[level] ?? 0) + 1;
    }
  } catch (err) {
    counts[`unreadable: ${errorText(err)}`] = 1;
  }
  return counts;
}

main().then(
  () => log("done"),
  (err: unknown) => {
    process.stderr.write(`\nprovider benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
