/**
 * `pnpm bench:boot`: how fast the provider-controller is back at work after
 * a restart, and whether a crash loop still gets every cluster Ready (the
 * issue: 1.2 s from process start to the first reconcile; with a SIGKILL
 * every 3 s, 19 of 32 clusters Ready after 10 minutes).
 *
 * It starts kcp and an infrastructure kube-apiserver (testenv), or takes
 * running ones (`--kcp-kubeconfig`, `--infra-kubeconfig`), then the
 * Platform (workload kube-apiserver, OTC simulator with `--otc-delay-ms`
 * (200) transitions,
 * Crossplane OTC simulator, the provider-controller as its own process).
 * `--tenants` workspaces order one cluster each and wait until it is Ready,
 * so that a restart finds what a running platform has. Then, `--runs`
 * times: the controller is stopped (SIGTERM) and a new one started, and its
 * log says, in milliseconds since its process started, when its module
 * graph was loaded, when its caches had synced (the manager starts the
 * controllers only then) and when its first reconcile of a
 * KubernetesCluster ended (boot-report.ts).
 *
 * Module load alone, for each of the three programs: `node --import
 * boot-load-probe.js <main> --help` (`--load-runs` times each), without
 * Node's compile cache (NODE_DISABLE_COMPILE_CACHE=1) and with a warm one
 * (NODE_COMPILE_CACHE, after one run that fills it).
 *
 * `--crash-loop`: `--crash-tenants` more workspaces order `--crash-clusters`
 * clusters between them (spread evenly) while the controller is SIGKILLed
 * every `--crash-interval-s` seconds and started again at once, as a kubelet
 * would restart it without its crash-loop backoff. The run counts the Ready
 * clusters through the APIExport's virtual workspace every second until all
 * are Ready or `--crash-timeout-s` after the first order, and reads how far
 * each killed process got.
 *
 * A table goes to stdout, progress to stderr, every figure to the JSON
 * file; state and logs stay in `.cache/bench/boot/` until the next run.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { API_EXPORT_NAME, collectionPath, KUBERNETES_CLUSTER_RESOURCE } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { clusterOf, RestClient } from "@edgeconnect/kcp-ts";
import { randomBytes } from "node:crypto";
import { apiExportEndpoints, deleteWorkspace, readKubeconfig, Reaper, REPO_ROOT, resolveBinary, TestEnvironment, type Workspace } from "@edgeconnect/testenv";
import { parseBootFlags, type BootBenchFlags } from "./boot-flags.js";
import { PROBE_PREFIX } from "./boot-probe-line.js";
import {
  bootMarks,
  mergeMarks,
  renderBootTable,
  renderCrashLoopTable,
  renderLoadTable,
  spread,
  summarizeBoots,
  type BootMarks,
  type BootRun,
  type CrashLoopFigures,
  type LoadFigures,
} from "./boot-report.js";
import { pool, retries, sleep, withRetry } from "./measure.js";
import { errorText, isReady, log, ORDER_CONCURRENCY, stateOf, WORKSPACE_CONCURRENCY, type Cluster } from "./platform-run.js";

/** The issue's targets. */
const BOOT_TARGET_MS = 300;
const CRASH_LOOP_TARGET_S = 300;
/** How often the controller's log is read while waiting for a mark; the figures come from the log, not from this. */
const LOG_POLL_MS = 50;
const BOOT_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 300_000;
const READY_POLL_MS = 1_000;
/**
 * How often the crash loop reads the running controller's log: Platform
 * hands out the last 400 lines of it, and a busy life may write more than
 * that after its boot lines.
 */
const LIFE_POLL_MS = 200;
const CLUSTERS = `/clusters/*${collectionPath(KUBERNETES_CLUSTER_RESOURCE)}`;
const PROBE = join(dirname(fileURLToPath(import.meta.url)), "boot-load-probe.js");
const PROGRAMS = [
  { program: "provider-controller", main: join(REPO_ROOT, "packages", "provider-controller", "dist", "main.js") },
  { program: "cluster-provider-capi", main: join(REPO_ROOT, "packages", "cluster-provider-capi", "dist", "main.js") },
  { program: "otc-cloud-controller-manager", main: join(REPO_ROOT, "packages", "cloud-provider-otc", "dist", "main.js") },
] as const;


/** The clusters of the given logical clusters, by `<cluster>|<namespace>/<name>`, through the export's virtual workspace. */
async function clusterStates(client: RestClient, tenants: ReadonlySet<string>): Promise<Map<string, Cluster>> {
  const list = await client.list<Cluster>(CLUSTERS);
  const states = new Map<string, Cluster>();
  for (const kc of list.items) {
    const cluster = clusterOf(kc) ?? "";
    if (tenants.has(cluster)) states.set(`${cluster}|${kc.metadata?.namespace ?? ""}/${kc.metadata?.name ?? ""}`, kc);
  }
  return states;
}

/** One program's load time: the probe's figures from `node --import probe <main> --help`. */
function probeLoad(main: string, env: NodeJS.ProcessEnv): Promise<{ wallMs: number; cpuMs: number; undici: boolean }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--import", PROBE, main, "--help"], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stderr.split("\n").find((text) => text.startsWith(PROBE_PREFIX));
      if (code !== 0 || line === undefined) {
        reject(new Error(`${main} --help exited ${code} without the probe's line: ${stderr.slice(-2000)}`));
        return;
      }
      const figures = JSON.parse(line.slice(PROBE_PREFIX.length)) as { sinceProcessStartMs: number; cpuMs: number; undici: boolean };
      resolvePromise({ wallMs: figures.sinceProcessStartMs, cpuMs: figures.cpuMs, undici: figures.undici });
    });
  });
}

async function measureLoads(runs: number, dir: string): Promise<LoadFigures[]> {
  const results: LoadFigures[] = [];
  for (const { program, main } of PROGRAMS) {
    const cacheDir = join(dir, "compile-cache", program);
    const base = { ...process.env };
    delete base.NODE_COMPILE_CACHE;
    delete base.NODE_DISABLE_COMPILE_CACHE;
    const cold = { ...base, NODE_DISABLE_COMPILE_CACHE: "1" };
    const warm = { ...base, NODE_COMPILE_CACHE: cacheDir };
    await probeLoad(main, warm); // fills the cache
    const coldRuns: { wallMs: number; cpuMs: number; undici: boolean }[] = [];
    const warmRuns: typeof coldRuns = [];
    // Alternating, so that a change in the machine's load hits both alike.
    for (let i = 0; i < runs; i++) {
      coldRuns.push(await probeLoad(main, cold));
      warmRuns.push(await probeLoad(main, warm));
    }
    const figures = (list: typeof coldRuns) => ({ wall: spread(list.map((r) => r.wallMs)), cpu: spread(list.map((r) => r.cpuMs)) });
    results.push({ program, runs, cold: figures(coldRuns), compileCache: figures(warmRuns), loadsUndici: coldRuns.some((r) => r.undici) });
    log(`${program}: module load ${coldRuns.map((r) => r.wallMs.toFixed(0)).join(", ")} ms; with a warm compile cache ${warmRuns.map((r) => r.wallMs.toFixed(0)).join(", ")} ms`);
  }
  return results;
}

/** Reads the running controller's log until `done` holds for its marks; fails after `timeoutMs` or when the process is gone. */
async function waitForMarks(platform: Platform, done: (marks: BootMarks) => boolean, timeoutMs: number): Promise<BootMarks> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const text = platform.controllerLog;
    const marks = bootMarks(text);
    if (done(marks)) return marks;
    if (performance.now() > deadline) throw new Error(`the provider-controller did not get there in ${timeoutMs} ms; its log ends:\n${text.split("\n").slice(-30).join("\n")}`);
    await sleep(LOG_POLL_MS);
  }
}

async function measureRestart(platform: Platform, index: number): Promise<BootRun> {
  await platform.stopController();
  const spawnedAt = Date.now();
  platform.resumeController();
  const marks = await waitForMarks(platform, (m) => m.firstReconcileMs !== undefined, BOOT_TIMEOUT_MS);
  const run: BootRun = {
    modulesLoadedMs: marks.modulesLoadedMs ?? Number.NaN,
    cachesSyncedMs: marks.cachesSyncedMs ?? Number.NaN,
    firstReconcileMs: marks.firstReconcileMs ?? Number.NaN,
    spawnToFirstReconcileMs: marks.firstReconcileAt === undefined ? Number.NaN : marks.firstReconcileAt - spawnedAt,
    firstReconcileResult: marks.firstReconcileResult ?? "?",
  };
  log(
    `restart ${index + 1}: modules ${run.modulesLoadedMs} ms, caches synced ${run.cachesSyncedMs} ms, first reconcile ${run.firstReconcileMs} ms (${run.firstReconcileResult}); ` +
      `spawn to first reconcile ${run.spawnToFirstReconcileMs} ms`,
  );
  return run;
}

/** Tenants of our type, one OTC account each from `firstAccount` on. */
async function createTenants(platform: Platform, prefix: string, count: number): Promise<Workspace[]> {
  const tenants: Workspace[] = [];
  await pool(count, WORKSPACE_CONCURRENCY, async (i) => {
    tenants[i] = await withRetry(`tenant workspace ${prefix}-${i}`, () => platform.createTenant(`${prefix}-${i}`), 3);
  });
  return tenants;
}

/** Orders `perTenant[i]` clusters in each tenant; returns when every order was answered. */
async function orderClusters(platform: Platform, tenants: readonly Workspace[], firstAccount: number, perTenant: readonly number[]): Promise<void> {
  const orders = tenants.flatMap((tenant, i) => Array.from({ length: perTenant[i] ?? 0 }, (_, j) => ({ tenant, account: firstAccount + i, name: `cluster-${j}` })));
  await pool(orders.length, ORDER_CONCURRENCY, async (k) => {
    const order = orders[k];
    if (order === undefined) return;
    await withRetry(`order ${order.name} in ${order.tenant.path}`, () =>
      orderCluster(order.tenant.client, { name: order.name, credentials: platform.passwordCredentials(order.account) }),
    );
  });
}

async function waitAllReady(client: RestClient, tenants: readonly Workspace[], expected: number, timeoutMs: number): Promise<void> {
  const logical = new Set(tenants.map((tenant) => tenant.cluster));
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const states = await clusterStates(client, logical);
    const ready = [...states.values()].filter(isReady).length;
    if (ready >= expected) return;
    if (performance.now() > deadline) throw new Error(`${ready}/${expected} clusters Ready after ${timeoutMs / 1000} s: ${[...states.values()].map(stateOf).join("; ")}`);
    await sleep(READY_POLL_MS);
  }
}

async function crashLoop(platform: Platform, client: RestClient, flags: BootBenchFlags, firstAccount: number, run: string | undefined, made: Workspace[]): Promise<CrashLoopFigures> {
  const tenants = await createTenants(platform, run === undefined ? "crash-tenant" : `crash-tenant-${run}`, flags.crashTenants);
  made.push(...tenants);
  const logical = new Set(tenants.map((tenant) => tenant.cluster));
  const perTenant = tenants.map((_, i) => Math.floor(flags.crashClusters / flags.crashTenants) + (i < flags.crashClusters % flags.crashTenants ? 1 : 0));
  log(`crash loop: ${flags.crashTenants} tenants (${perTenant.join(", ")} clusters); SIGKILL every ${flags.crashIntervalS} s from now`);

  const lives: BootMarks[] = [];
  let crashing = true;
  const killer = (async () => {
    let next = performance.now() + flags.crashIntervalS * 1000;
    let life: BootMarks = {};
    while (crashing) {
      life = mergeMarks(life, bootMarks(platform.controllerLog));
      const left = next - performance.now();
      if (left > 0) {
        await sleep(Math.min(LIFE_POLL_MS, left));
        continue;
      }
      next += flags.crashIntervalS * 1000;
      lives.push(life);
      life = {};
      await platform.crashController();
    }
  })();

  const firstOrder = performance.now();
  let figures: CrashLoopFigures;
  try {
    await orderClusters(platform, tenants, firstAccount, perTenant);
    log(`crash loop: ${flags.crashClusters} clusters ordered in ${((performance.now() - firstOrder) / 1000).toFixed(1)} s`);
    const deadline = firstOrder + flags.crashTimeoutS * 1000;
    const readyAfter: Record<string, number> = {};
    let nextMark = 60;
    let states = new Map<string, Cluster>();
    let ready = 0;
    let allReadyAt: number | undefined;
    while (performance.now() < deadline) {
      try {
        states = await clusterStates(client, logical);
      } catch (err) {
        log(`listing the clusters failed: ${errorText(err)}`);
      }
      ready = [...states.values()].filter(isReady).length;
      const now = performance.now();
      while ((now - firstOrder) / 1000 >= nextMark) {
        readyAfter[`${nextMark} s`] = ready;
        log(`crash loop: ${ready}/${flags.crashClusters} Ready after ${nextMark} s, ${lives.length} controller lives so far`);
        nextMark += 60;
      }
      if (ready >= flags.crashClusters) {
        allReadyAt = now;
        break;
      }
      await sleep(READY_POLL_MS);
    }
    const end = performance.now();
    const notReadyBy: Record<string, number> = {};
    for (const kc of states.values()) if (!isReady(kc)) notReadyBy[stateOf(kc)] = (notReadyBy[stateOf(kc)] ?? 0) + 1;
    const unseen = flags.crashClusters - states.size;
    if (unseen > 0) notReadyBy["not listed"] = unseen;
    const reconciled = lives.flatMap((life) => (life.firstReconcileMs === undefined ? [] : [life.firstReconcileMs]));
    figures = {
      tenants: flags.crashTenants,
      clusters: flags.crashClusters,
      intervalS: flags.crashIntervalS,
      timeoutS: flags.crashTimeoutS,
      ready,
      allReadyAfterS: allReadyAt === undefined ? null : (allReadyAt - firstOrder) / 1000,
      waitedS: (end - firstOrder) / 1000,
      readyAfter,
      lives: lives.length,
      livesSynced: lives.filter((life) => life.cachesSyncedMs !== undefined).length,
      livesReconciled: reconciled.length,
      firstReconcile: spread(reconciled),
      notReadyBy,
    };
  } finally {
    crashing = false;
    await killer;
  }
  log(`crash loop: ${figures.ready}/${figures.clusters} Ready${figures.allReadyAfterS === null ? "" : ` after ${figures.allReadyAfterS.toFixed(1)} s`}; ${figures.lives} lives`);
  return figures;
}

async function deleteWorkspaces(kubeconfig: string, workspaces: readonly Workspace[]): Promise<void> {
  const admin = RestClient.fromFile(kubeconfig);
  try {
    await pool(workspaces.length, WORKSPACE_CONCURRENCY, async (i) => {
      const workspace = workspaces[i];
      if (workspace !== undefined) await deleteWorkspace(admin, workspace);
    });
  } finally {
    admin.close();
  }
}

/** What `main` undoes at the end, whatever failed. */
interface Cleanup {
  readonly what: string;
  readonly run: () => Promise<unknown> | void;
}

/**
 * kcp's URL and admin kubeconfig and the infrastructure cluster's: the
 * running ones of `--kcp-kubeconfig` and `--infra-kubeconfig`, with a name
 * for what this run makes there (`run`), or a kcp and kube-apiserver started
 * here and stopped by a cleanup.
 */
async function kcpAndInfra(flags: BootBenchFlags, dir: string, cleanups: Cleanup[]): Promise<{ kcp: { url: string; kubeconfig: string }; infraKubeconfig: string; run: string | undefined }> {
  if (flags.running !== undefined) {
    const { kcpKubeconfig, infraKubeconfig } = flags.running;
    const url = new URL(readKubeconfig(kcpKubeconfig).server).origin;
    log(`on the running kcp ${url} and infrastructure cluster ${readKubeconfig(infraKubeconfig).server}`);
    return { kcp: { url, kubeconfig: kcpKubeconfig }, infraKubeconfig, run: randomBytes(3).toString("hex") };
  }
  const environment = await TestEnvironment.start({ infra: "kube-apiserver", dir, log });
  cleanups.push({ what: "stop kcp and the infrastructure cluster", run: () => environment.stop() });
  const { kcp, infra } = environment.state;
  if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
  return { kcp, infraKubeconfig: infra.kubeconfig, run: undefined };
}

async function main(): Promise<void> {
  const flags = parseBootFlags(process.argv.slice(2));
  const startedAt = new Date();
  const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "bench", `boot-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`));
  const dir = join(REPO_ROOT, ".cache", "bench", "boot");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const loadBefore = loadavg();

  const loads = await measureLoads(flags.loadRuns, dir);

  const cleanups: Cleanup[] = [];
  try {
    const kcpBinaryVersion = (await resolveBinary("kcp", { log })).version;
    const { kcp, infraKubeconfig, run } = await kcpAndInfra(flags, dir, cleanups);
    const reaper = Reaper.start();
    cleanups.push({ what: "close the reaper", run: () => reaper.close() });
    const platform = await Platform.start({
      kcpUrl: kcp.url,
      kcpKubeconfig: kcp.kubeconfig,
      infraKubeconfig,
      dir,
      // On a kcp and infrastructure cluster of others, names of this run only.
      ...(run === undefined ? {} : { providerWorkspace: `boot-bench-${run}`, runId: `boot-bench-${run}` }),
      reaper,
      log,
      tenantAccounts: flags.tenants + (flags.crashLoop ? flags.crashTenants : 0),
      otcDelays: { transitionDelayMs: flags.otcDelayMs, cceClusterCreateMs: flags.otcDelayMs, cceClusterDeleteMs: flags.otcDelayMs, nodePoolSyncMs: flags.otcDelayMs },
    });
    const made: Workspace[] = [platform.provider];
    // A kcp we did not start outlives the run: its workspaces go once the platform has stopped (a started one takes them along).
    if (run !== undefined) cleanups.push({ what: "delete workspaces", run: () => deleteWorkspaces(kcp.kubeconfig, made) });
    cleanups.push({ what: "stop the platform", run: () => platform.stop() });

    const tenants = await createTenants(platform, run === undefined ? "boot-tenant" : `boot-tenant-${run}`, flags.tenants);
    made.push(...tenants);
    const [endpoint] = await apiExportEndpoints(platform.provider, API_EXPORT_NAME);
    if (endpoint === undefined) throw new Error("the APIExport has no virtual-workspace endpoint");
    const exportClient = platform.kcp.withServer(endpoint);
    await orderClusters(platform, tenants, 0, tenants.map(() => 1));
    await waitAllReady(exportClient, tenants, tenants.length, SETTLE_TIMEOUT_MS);
    log(`${flags.tenants} tenants with a Ready cluster each; measuring ${flags.runs} restarts`);

    const runs: BootRun[] = [];
    for (let i = 0; i < flags.runs; i++) runs.push(await measureRestart(platform, i));
    const boot = summarizeBoots(runs);

    const crash = flags.crashLoop ? await crashLoop(platform, exportClient, flags, flags.tenants, run, made) : undefined;

    const finishedAt = new Date();
    const result = {
      benchmark: "boot",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      parameters: { ...flags, out, bootTargetMs: BOOT_TARGET_MS, crashLoopTargetS: CRASH_LOOP_TARGET_S },
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? null,
        totalMemBytes: totalmem(),
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadavg(),
        node: process.version,
        compileCacheEnv: { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? null, NODE_DISABLE_COMPILE_CACHE: process.env.NODE_DISABLE_COMPILE_CACHE ?? null },
      },
      kcp: { binaryVersion: kcpBinaryVersion },
      dir,
      loads,
      boot: { ...boot, targetMs: BOOT_TARGET_MS, met: boot.firstReconcile.medianMs <= BOOT_TARGET_MS, runs },
      crashLoop: crash === undefined ? null : { ...crash, targetS: CRASH_LOOP_TARGET_S },
      transientRetries: retries.count,
    };
    mkdirSync(dirname(out), { recursive: true });
    // JSON has no NaN; null marks a figure that had no samples.
    writeFileSync(out, `${JSON.stringify(result, (_, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
    process.stdout.write(
      `\nboot benchmark: ${flags.runs} restarts with ${flags.tenants} tenant(s) holding a Ready cluster each; kcp ${kcpBinaryVersion}; ` +
        `${cpus().length} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before; node ${process.version}\n\n` +
        `${renderLoadTable(loads)}\n\n${renderBootTable(boot, BOOT_TARGET_MS)}\n` +
        `${crash === undefined ? "" : `\n${renderCrashLoopTable(crash, CRASH_LOOP_TARGET_S)}\n`}` +
        `transient retries ${retries.count}\nJSON: ${out}\n`,
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

main().then(
  () => log("done"),
  (err: unknown) => {
    process.stderr.write(`\nboot benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
