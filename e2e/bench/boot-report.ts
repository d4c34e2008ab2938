/**
 * The boot benchmark's figures, read from what the programs say about
 * themselves, and the tables printed on stdout.
 *
 * A controller's boot is read from its own log: the start line of main
 * carries `modulesLoadedMs` (every static import evaluated), each
 * controller logs "starting workers" when the manager starts it (the caches
 * it reads have synced) and "first reconcile finished" once, each with
 * `sinceProcessStartMs`. All three count from the process's start
 * (performance.timeOrigin), so they need no clock shared with the
 * benchmark; the spawn-to-first-reconcile figure is the benchmark's own
 * wall clock against the line's `time`, as a cross-check.
 */
import { percentile } from "./measure.js";
import { formatTable, ms } from "./report.js";

/** The controller whose reconciles make clusters Ready. */
export const BOOT_CONTROLLER = "kubernetesclusters";

/** What one controller process said about its boot, so far. */
export interface BootMarks {
  modulesLoadedMs?: number;
  cachesSyncedMs?: number;
  firstReconcileMs?: number;
  /** `time` of the first-reconcile line, epoch milliseconds. */
  firstReconcileAt?: number;
  firstReconcileResult?: string;
}

interface LogLine {
  readonly msg?: unknown;
  readonly controller?: unknown;
  readonly modulesLoadedMs?: unknown;
  readonly sinceProcessStartMs?: unknown;
  readonly result?: unknown;
  readonly time?: unknown;
}

const numberOr = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The boot marks in a process's log (pino JSON lines; others are skipped). */
export function bootMarks(log: string, program = "provider-controller"): BootMarks {
  const marks: BootMarks = {};
  for (const text of log.split("\n")) {
    if (!text.startsWith("{")) continue;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      continue;
    }
    if (line.msg === `starting ${program}`) marks.modulesLoadedMs ??= numberOr(line.modulesLoadedMs);
    if (line.controller !== BOOT_CONTROLLER) continue;
    if (line.msg === "starting workers") marks.cachesSyncedMs ??= numberOr(line.sinceProcessStartMs);
    if (line.msg === "first reconcile finished" && marks.firstReconcileMs === undefined) {
      marks.firstReconcileMs = numberOr(line.sinceProcessStartMs);
      marks.firstReconcileAt = typeof line.time === "string" ? Date.parse(line.time) : undefined;
      marks.firstReconcileResult = typeof line.result === "string" ? line.result : undefined;
    }
  }
  return marks;
}

/** `earlier`, completed by what `later` saw that it had not: a mark, once seen, stays. */
export function mergeMarks(earlier: BootMarks, later: BootMarks): BootMarks {
  const merged: BootMarks = { ...earlier };
  for (const [key, value] of Object.entries(later) as [keyof BootMarks, BootMarks[keyof BootMarks]][]) {
    if (merged[key] === undefined && value !== undefined) Object.assign(merged, { [key]: value });
  }
  return merged;
}

/** One measured restart of the provider-controller. */
export interface BootRun {
  readonly modulesLoadedMs: number;
  readonly cachesSyncedMs: number;
  readonly firstReconcileMs: number;
  /** The benchmark's clock: spawn to the first-reconcile line's `time` (millisecond resolution). */
  readonly spawnToFirstReconcileMs: number;
  readonly firstReconcileResult: string;
}

export interface Spread {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianMs: percentile(sorted, 50), minMs: sorted[0] ?? Number.NaN, maxMs: sorted.at(-1) ?? Number.NaN };
}

export interface BootSummary {
  readonly runs: number;
  readonly modulesLoaded: Spread;
  readonly cachesSynced: Spread;
  readonly firstReconcile: Spread;
  readonly spawnToFirstReconcile: Spread;
}

export function summarizeBoots(runs: readonly BootRun[]): BootSummary {
  return {
    runs: runs.length,
    modulesLoaded: spread(runs.map((run) => run.modulesLoadedMs)),
    cachesSynced: spread(runs.map((run) => run.cachesSyncedMs)),
    firstReconcile: spread(runs.map((run) => run.firstReconcileMs)),
    spawnToFirstReconcile: spread(runs.map((run) => run.spawnToFirstReconcileMs)),
  };
}

/** One program's module-load probe (`node --import boot-load-probe.js <main> --help`), with and without Node's compile cache. */
export interface LoadFigures {
  readonly program: string;
  readonly runs: number;
  readonly cold: { readonly wall: Spread; readonly cpu: Spread };
  readonly compileCache: { readonly wall: Spread; readonly cpu: Spread };
  /** Whether loading the program loaded Node's undici (an `import` of node:http somewhere in its graph). */
  readonly loadsUndici: boolean;
}

export interface CrashLoopFigures {
  readonly tenants: number;
  readonly clusters: number;
  readonly intervalS: number;
  readonly timeoutS: number;
  readonly ready: number;
  /** Seconds from the first order until every cluster was Ready; null when some were not by the timeout. */
  readonly allReadyAfterS: number | null;
  readonly waitedS: number;
  /** Ready clusters at each minute after the first order. */
  readonly readyAfter: Readonly<Record<string, number>>;
  /** Controller processes killed, and how far each got before its SIGKILL. */
  readonly lives: number;
  readonly livesSynced: number;
  readonly livesReconciled: number;
  /** Of the lives that got there: process start to first reconcile. */
  readonly firstReconcile: Spread;
  readonly notReadyBy: Readonly<Record<string, number>>;
}

const figure = (s: Spread): [string, string, string] => [ms(s.medianMs), ms(s.minMs), ms(s.maxMs)];

export function renderBootTable(summary: BootSummary, target: number): string {
  const rows = [
    ["provider-controller restart (since process start)", "median", "min", "max"],
    ["module graph loaded", ...figure(summary.modulesLoaded)],
    ["caches synced (controllers started)", ...figure(summary.cachesSynced)],
    ["first reconcile finished", ...figure(summary.firstReconcile)],
    ["spawn to first reconcile (benchmark's clock)", ...figure(summary.spawnToFirstReconcile)],
  ];
  const met = summary.firstReconcile.medianMs <= target;
  return `${formatTable(rows)}\n\ntarget: first reconcile within ${target} ms of process start (median of ${summary.runs}): ${met ? "met" : "missed"}`;
}

export function renderLoadTable(loads: readonly LoadFigures[]): string {
  const rows = [
    ["module load (node <main> --help, medians)", "wall", "CPU", "wall, compile cache", "CPU, compile cache", "loads undici"],
    ...loads.map((load) => [
      `${load.program} (${load.runs} runs)`,
      ms(load.cold.wall.medianMs),
      ms(load.cold.cpu.medianMs),
      ms(load.compileCache.wall.medianMs),
      ms(load.compileCache.cpu.medianMs),
      load.loadsUndici ? "yes" : "no",
    ]),
  ];
  return formatTable(rows);
}

export function renderCrashLoopTable(crash: CrashLoopFigures, targetS: number): string {
  const rows = [
    ["crash loop", "value"],
    ["clusters ordered (tenants)", `${crash.clusters} (${crash.tenants})`],
    ["SIGKILL interval, restart at once", `${crash.intervalS} s`],
    ["Ready at the end", `${crash.ready}/${crash.clusters}`],
    ["all Ready after (from the first order)", crash.allReadyAfterS === null ? `not within ${crash.waitedS.toFixed(0)} s` : `${crash.allReadyAfterS.toFixed(1)} s`],
    ...Object.entries(crash.readyAfter).map(([at, ready]) => [`Ready after ${at}`, String(ready)]),
    ["controller lives killed", String(crash.lives)],
    ["of which synced / reconciled", `${crash.livesSynced} / ${crash.livesReconciled}`],
    ["first reconcile in a life: median (min, max)", `${ms(crash.firstReconcile.medianMs)} (${ms(crash.firstReconcile.minMs)}, ${ms(crash.firstReconcile.maxMs)})`],
  ];
  const met = crash.allReadyAfterS !== null && crash.allReadyAfterS <= targetS;
  const notReady = Object.keys(crash.notReadyBy).length === 0 ? "" : `\nnot Ready by state: ${JSON.stringify(crash.notReadyBy)}`;
  return `${formatTable(rows)}${notReady}\n\ntarget: all ${crash.clusters} Ready within ${targetS} s: ${met ? "met" : "missed"}`;
}
