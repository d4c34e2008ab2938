/**
 * `pnpm bench:provider -- --kcp simulator`: the provider-controller with
 * thousands of tenants on the kcp load simulator (provider-sim-environment.ts),
 * the OTC and Crossplane OTC simulators and an infrastructure kube-apiserver.
 *
 * Every tenant (a logical cluster binding the export, with the demo's
 * order: a labelled credentials Secret with distinct OTC credentials, a
 * ProviderConfig, MachineCapabilities, and 1–3 KubernetesClusters: tenant i
 * has 1 + i % 3) is seeded into the simulator before the controller starts;
 * then the controller (with the chart's leader election on a Lease the
 * simulator serves) starts and the clock runs until every cluster has its
 * first status condition with observedGeneration set ("reconciled once").
 * Then one new tenant orders `--flood` clusters at once and another new,
 * quiet tenant one cluster, and the quiet one's time to its first condition
 * is measured.
 *
 * Measured from outside the controller: /proc every second (RSS, CPU), its
 * prom-client metrics every second (`nodejs_eventloop_lag_{p50,p99,max}_seconds`,
 * which prom-client computes with perf_hooks.monitorEventLoopDelay and resets
 * at each scrape, so each scrape covers the second before it;
 * `controller_runtime_reconcile_total`), every write of the Lease as the
 * simulator sees it, and every status write of a KubernetesCluster.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { KubeApiServer, Reaper, REPO_ROOT, resolveControlPlaneBinaries } from "@edgeconnect/testenv";
import { readCpuProfile, summarizeProfile, type ProfileSummary } from "./cpu-profile.js";
import { processUsage } from "./proc-stats.js";
import type { ProviderBenchFlags } from "./provider-flags.js";
import { renderProfileTables } from "./provider-report.js";
import { SimPlatform, SIM_CLUSTERS, type ControllerLaunch } from "./provider-sim-environment.js";
import { lagFigures, renderSimTable, type LagSample, type SimFloodFigures, type SimInitialFigures, type SimLeaseFigures, type SimSetupFigures } from "./provider-sim-report.js";
import { percentile, sleep } from "./measure.js";
import { OTC_DELAY_MS } from "./platform-run.js";

const SAMPLE_INTERVAL_MS = 1_000;
const PROGRESS_INTERVAL_MS = 10_000;
const CONTROLLER_STOP_GRACE_MS = 180_000;
const LEASE_PLURAL = { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true, status: false } as const;

/** Clusters of tenant `index`: 1, 2 or 3. */
export const clustersOfTenant = (index: number): number => 1 + (index % 3);

type Log = (message: string) => void;

interface Scrape {
  readonly lag?: LagSample;
  readonly reconciles?: number;
}

/** One scrape of the controller's metrics; undefined figures when it did not answer (not up yet, or gone). */
export async function scrapeController(metricsUrl: string, t: number): Promise<Scrape> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
    const value = (name: string): number | undefined => {
      const match = new RegExp(`^${name} ([0-9.eE+-]+)$`, "m").exec(text);
      return match?.[1] === undefined ? undefined : Number(match[1]) * 1000;
    };
    let reconciles = 0;
    for (const match of text.matchAll(/^controller_runtime_reconcile_total\{[^}]*\} ([0-9.eE+-]+)$/gm)) reconciles += Number(match[1]);
    const [p50Ms, p99Ms, maxMs] = [value("nodejs_eventloop_lag_p50_seconds"), value("nodejs_eventloop_lag_p99_seconds"), value("nodejs_eventloop_lag_max_seconds")];
    return { ...(p50Ms === undefined || p99Ms === undefined || maxMs === undefined ? {} : { lag: { t, p50Ms, p99Ms, maxMs } }), reconciles };
  } catch {
    return {};
  }
}

/** First-condition times of KubernetesClusters, as the simulator stores their status writes. */
class FirstConditions {
  readonly at = new Map<string, number>();

  constructor(platform: SimPlatform) {
    platform.kcp.subscribe(SIM_CLUSTERS, (type, obj, cluster) => {
      if (type === "DELETED") return;
      const key = `${cluster}/${(obj.metadata as { name?: string } | undefined)?.name ?? ""}`;
      if (this.at.has(key)) return;
      const status = obj.status as { observedGeneration?: number; conditions?: unknown[] } | undefined;
      if (status?.observedGeneration !== undefined && (status.conditions?.length ?? 0) > 0) this.at.set(key, performance.now());
    });
  }
}

/** Every write of a Lease in the provider workspace, by time and holder. */
class LeaseWatch {
  readonly writes: { readonly t: number; readonly holder: string }[] = [];

  constructor(platform: SimPlatform) {
    platform.kcp.subscribe(LEASE_PLURAL, (type, obj) => {
      if (type === "DELETED") return;
      this.writes.push({ t: performance.now(), holder: String((obj.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? "") });
    });
  }

  figures(from: number, to: number, lost: boolean): SimLeaseFigures {
    const times = [from, ...this.writes.filter((w) => w.t >= from && w.t <= to).map((w) => w.t), to];
    let maxGap = 0;
    // The gap before the first write is the controller's boot and first acquire: counted too.
    for (let i = 1; i < times.length; i++) maxGap = Math.max(maxGap, (times[i] ?? 0) - (times[i - 1] ?? 0));
    return { renewals: this.writes.length, maxRenewGapMs: maxGap, holders: new Set(this.writes.map((w) => w.holder)).size, lost };
  }
}

/** /proc and metrics every second while the controller runs. */
class Sampler {
  readonly lag: LagSample[] = [];
  readonly rss: { t: number; rssBytes: number; cpuSeconds: number }[] = [];
  reconciles = 0;
  goneAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly pid: number,
    private readonly metricsUrl: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), SAMPLE_INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  latest(): { rssBytes: number; cpuSeconds: number } | undefined {
    return this.rss.at(-1);
  }

  peakRss(from: number, to: number): number {
    return Math.max(0, ...this.rss.filter((s) => s.t >= from && s.t <= to).map((s) => s.rssBytes));
  }

  lagBetween(from: number, to: number): LagSample[] {
    return this.lag.filter((s) => s.t >= from && s.t <= to);
  }

  private async sample(): Promise<void> {
    if (this.busy || this.goneAt !== undefined) return;
    this.busy = true;
    try {
      const t = performance.now();
      try {
        const usage = processUsage(this.pid);
        this.rss.push({ t, rssBytes: usage.rssBytes, cpuSeconds: usage.cpuSeconds });
      } catch {
        this.goneAt = t;
        return;
      }
      const scrape = await scrapeController(this.metricsUrl, performance.now());
      if (scrape.lag !== undefined) this.lag.push(scrape.lag);
      if (scrape.reconciles !== undefined) this.reconciles = scrape.reconciles;
    } finally {
      this.busy = false;
    }
  }
}

const controllerLostLease = (logFile: string): boolean => {
  try {
    return readFileSync(logFile, "utf8").includes("lost the leader Lease");
  } catch {
    return false;
  }
};

export async function runSimulatorBench(flags: ProviderBenchFlags, log: Log): Promise<void> {
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "reports", "bench-provider-simulator.json"));
  const dir = join(REPO_ROOT, ".cache", "bench", "provider-simulator");
  const profileDir = join(dir, "cpu-profile");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  const loadBefore = loadavg();
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const reaper = Reaper.start();
    cleanups.push(() => reaper.close());
    let t = performance.now();
    const infra = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries({ log })), reaper, dir: join(dir, "infra") });
    cleanups.push(() => infra.stop());
    const infraMs = performance.now() - t;
    log(`infrastructure kube-apiserver up in ${(infraMs / 1000).toFixed(1)} s`);

    t = performance.now();
    const platform = await SimPlatform.start({
      infraKubeconfig: infra.kubeconfigPath,
      dir,
      accounts: flags.tenants + 2,
      otcDelays: { transitionDelayMs: OTC_DELAY_MS, cceClusterCreateMs: OTC_DELAY_MS, cceClusterDeleteMs: OTC_DELAY_MS, nodePoolSyncMs: OTC_DELAY_MS },
      reaper,
      log,
    });
    cleanups.push(() => platform.stop());
    const platformMs = performance.now() - t;

    t = performance.now();
    let clusters = 0;
    for (let i = 0; i < flags.tenants; i++) {
      platform.seedTenant(i, clustersOfTenant(i));
      clusters += clustersOfTenant(i);
    }
    const seedMs = performance.now() - t;
    const setup: SimSetupFigures = { infraMs, platformMs, seedMs, objects: platform.kcp.objectCounts() };
    log(`${flags.tenants} tenants with ${clusters} clusters seeded in ${(seedMs / 1000).toFixed(1)} s: ${JSON.stringify(setup.objects)}`);

    const first = new FirstConditions(platform);
    const lease = new LeaseWatch(platform);
    const start = performance.now();
    const controller: ControllerLaunch = await platform.startController({
      nodeArgs: flags.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      // The flood tenant orders more than the default per-workspace bound (100): all of its clusters are work, not refusals.
      args: [`--max-clusters-per-workspace=${Math.max(100, flags.flood)}`, ...(flags.workers > 0 ? [`--max-concurrent-reconciles=${flags.workers}`] : [])],
    });
    const pid = controller.process.pid;
    if (pid === undefined) throw new Error("the provider-controller did not start");
    log(`provider-controller pid ${pid}${flags.profile ? " (profiling)" : ""}, log ${controller.logFile}`);
    const sampler = new Sampler(pid, controller.metricsUrl);
    sampler.start();
    cleanups.push(() => Promise.resolve(sampler.stop()));

    const wait = async (done: () => boolean, deadline: number, progress: () => string): Promise<boolean> => {
      let next = performance.now() + PROGRESS_INTERVAL_MS;
      while (!done() && performance.now() < deadline && sampler.goneAt === undefined) {
        await sleep(100);
        if (performance.now() >= next) {
          next += PROGRESS_INTERVAL_MS;
          const usage = sampler.latest();
          log(`${progress()}; controller RSS ${usage === undefined ? "?" : (usage.rssBytes / 2 ** 20).toFixed(0)} MiB, CPU ${usage?.cpuSeconds.toFixed(0) ?? "?"} s, lag max so far ${Math.max(0, ...sampler.lag.map((s) => s.maxMs)).toFixed(0)} ms`);
        }
      }
      return done();
    };
    const initialDone = await wait(() => first.at.size >= clusters, start + flags.timeoutS * 1000, () => `${first.at.size}/${clusters} reconciled once after ${((performance.now() - start) / 1000).toFixed(0)} s`);
    const initialEnd = initialDone ? Math.max(...first.at.values()) : performance.now();
    // One more scrape so that the phase's reconcile count and last lag interval are in.
    await sleep(SAMPLE_INTERVAL_MS + 100);
    const reconcilesInitial = sampler.reconciles;
    const usageInitial = sampler.latest();
    const firstTimes = [...first.at.values()].map((at) => at - start).sort((a, b) => a - b);
    const initial: SimInitialFigures = {
      tenants: flags.tenants,
      clusters,
      reconciled: first.at.size,
      timedOut: !initialDone,
      firstConditionMs: { p50: percentile(firstTimes, 50), p90: percentile(firstTimes, 90), max: firstTimes.at(-1) ?? Number.NaN },
      allReconciledMs: initialEnd - start,
      lag: lagFigures(sampler.lagBetween(start, initialEnd + SAMPLE_INTERVAL_MS + 100)),
      rssPeakBytes: sampler.peakRss(start, initialEnd + SAMPLE_INTERVAL_MS + 100),
      rssEndBytes: usageInitial?.rssBytes ?? Number.NaN,
      cpuSeconds: usageInitial?.cpuSeconds ?? Number.NaN,
      reconciles: reconcilesInitial,
      reconcilesPerSecond: reconcilesInitial / ((initialEnd - start) / 1000),
    };
    log(`${first.at.size}/${clusters} reconciled once ${initialDone ? "" : "(timeout) "}after ${(initial.allReconciledMs / 1000).toFixed(1)} s`);

    let flood: SimFloodFigures | null = null;
    if (flags.flood > 0 && sampler.goneAt === undefined) {
      const floodStart = performance.now();
      const noisy = platform.seedTenant(flags.tenants, flags.flood);
      const quiet = platform.seedTenant(flags.tenants + 1, 1);
      const floodKeys = Array.from({ length: flags.flood }, (_, i) => `${noisy}/cluster-${i}`);
      const quietKey = `${quiet}/cluster-0`;
      const floodDone = await wait(
        () => first.at.has(quietKey) && floodKeys.every((key) => first.at.has(key)),
        floodStart + flags.timeoutS * 1000,
        () => `flood: ${floodKeys.filter((key) => first.at.has(key)).length}/${flags.flood}, quiet tenant ${first.at.has(quietKey) ? "done" : "waiting"}`,
      );
      const floodEnd = performance.now();
      const floodTimes = floodKeys.flatMap((key) => {
        const at = first.at.get(key);
        return at === undefined ? [] : [at];
      });
      const quietAt = first.at.get(quietKey);
      flood = {
        floodClusters: flags.flood,
        quietFirstConditionMs: quietAt === undefined ? null : quietAt - floodStart,
        floodReconciled: floodTimes.length,
        floodAllReconciledMs: floodTimes.length === flags.flood ? Math.max(...floodTimes) - floodStart : null,
        lag: lagFigures(sampler.lagBetween(floodStart, floodEnd)),
        timedOut: !floodDone,
      };
      log(`flood: ${floodTimes.length}/${flags.flood} reconciled once; quiet tenant ${quietAt === undefined ? "not reached" : `after ${((quietAt - floodStart) / 1000).toFixed(1)} s`}`);
    }
    const end = performance.now();
    const exitedOnItsOwn = sampler.goneAt !== undefined;
    sampler.stop();
    const leaseFigures = lease.figures(start, exitedOnItsOwn ? (sampler.goneAt ?? end) : end, exitedOnItsOwn || controllerLostLease(controller.logFile));

    log(`stopping the provider-controller (SIGTERM, up to ${CONTROLLER_STOP_GRACE_MS / 1000} s)`);
    await controller.process.stop(CONTROLLER_STOP_GRACE_MS);
    const exit = await controller.process.exited;
    let profile: ProfileSummary | undefined;
    if (flags.profile) {
      const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile") && f.split(".")[3] === String(pid));
      if (file !== undefined) {
        const path = join(profileDir, file);
        log(`analysing ${path} (${(statSync(path).size / 2 ** 20).toFixed(1)} MiB)`);
        profile = summarizeProfile(readCpuProfile(path), { file: path, focus: "packages/runtime", root: REPO_ROOT });
      } else log(`no profile of pid ${pid} in ${profileDir}`);
    }

    const finishedAt = new Date();
    const result = {
      benchmark: "provider",
      kcp: "simulator",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      parameters: { ...flags, out, otcDelayMs: OTC_DELAY_MS, clustersPerTenant: "1 + index % 3", leaderElect: true },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, totalMemBytes: totalmem(), loadAverageBefore: loadBefore, loadAverageAfter: loadavg(), node: process.version },
      dir,
      controllerLog: controller.logFile,
      setup,
      initial,
      flood,
      lease: leaseFigures,
      controllerExit: exit,
      simulatorRequests: Object.fromEntries(platform.kcp.requests()),
      profile: profile ?? null,
      timeline: { rss: sampler.rss.map((s) => ({ t: Number(((s.t - start) / 1000).toFixed(1)), rssBytes: s.rssBytes, cpuSeconds: s.cpuSeconds })), lag: sampler.lag.map((s) => ({ ...s, t: Number(((s.t - start) / 1000).toFixed(1)) })) },
    };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, (_, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
    process.stdout.write(
      `\nprovider benchmark on the kcp load simulator: ${flags.tenants} tenants, ${clusters} clusters, flood ${flags.flood}, OTC transitions ${OTC_DELAY_MS} ms, ` +
        `timeout ${flags.timeoutS} s; ${cpus().length} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before; node ${process.version}\n\n` +
        `${renderSimTable(setup, initial, flood, leaseFigures)}\n\n` +
        `${profile === undefined ? (flags.profile ? "no profile" : "not profiled (--no-profile)") : renderProfileTables(profile)}\n\n` +
        `controller exit ${JSON.stringify(exit)}; JSON: ${out}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log(`cleanup failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
