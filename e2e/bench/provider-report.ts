/**
 * The provider benchmark's figures, their JSON shape and the tables printed
 * on stdout: readiness of the ordered clusters, the provider-controller
 * process's memory and CPU time, and where its CPU profile says the time
 * went.
 */
import type { ProfileSummary } from "./cpu-profile.js";
import { percentile } from "./measure.js";
import type { LagFigures } from "./provider-sim-report.js";
import { formatTable, mib, ms } from "./report.js";

export interface ReadySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly maxMs: number;
}

export function readySummary(latencies: readonly number[]): ReadySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: percentile(sorted, 50), p90Ms: percentile(sorted, 90), maxMs: sorted.at(-1) ?? Number.NaN };
}

export interface SetupFigures {
  /** kcp and the infrastructure kube-apiserver started and ready. */
  readonly environmentMs: number;
  /** Platform.start: workload cluster, simulators, provider workspace, controller launched. */
  readonly platformMs: number;
  /** Every tenant workspace created with the platform API bound. */
  readonly workspacesMs: number;
  readonly workspaceConcurrency: number;
  /** First order sent to last order's answer. */
  readonly ordersMs: number;
  readonly orderConcurrency: number;
}

export interface ReadinessFigures {
  readonly ordered: number;
  /** First order → each cluster's first condition: the controller's first pass over it had ended. */
  readonly reconciledOnce: ReadySummary;
  /** Each cluster's own order → its first condition. */
  readonly reconciledOnceFromOwnOrder: ReadySummary;
  /** The controller's event-loop lag from the first order until the run stopped waiting. */
  readonly lag: LagFigures;
  /** Ready (condition Ready True and the kubeconfig Secret named) when the run stopped waiting. */
  readonly ready: number;
  /** Seconds from the first order until the run stopped waiting. */
  readonly waitedSeconds: number;
  readonly timedOut: boolean;
  /** First order → each cluster Ready. */
  readonly fromFirstOrder: ReadySummary;
  /** Each cluster's own order → its Ready. */
  readonly fromOwnOrder: ReadySummary;
  /** The clusters not Ready at the end, by `phase / Ready reason`. */
  readonly notReadyBy: Readonly<Record<string, number>>;
  /** Ready counts over time, seconds after the first order. */
  readonly readyAfter: Readonly<Record<string, number>>;
}

export interface ControllerFigures {
  readonly pid: number;
  /** Just before the first order (the controller up, synced, the workspaces bound). */
  readonly rssStartBytes: number;
  /** When the run stopped waiting. */
  readonly rssEndBytes: number;
  /** The highest VmRSS of the 1-second samples. */
  readonly peakSampledRssBytes: number;
  /** VmHWM: the kernel's high-water mark over the process's life. */
  readonly peakRssBytes: number;
  /** utime + stime from the first order until the run stopped waiting. */
  readonly cpuSecondsDuringRun: number;
  /** utime + stime over the process's life until the run stopped waiting. */
  readonly cpuSecondsTotal: number;
  /** CPU seconds per wall second during the run (1 = one core busy). */
  readonly coresDuringRun: number;
  /** When the process ended on its own during the run (seconds after the first order). */
  readonly exitedDuringRunAfterS: number | null;
  /** How it ended when stopped: code 0 is a clean shutdown (the profile is written only then). */
  readonly exit: { readonly code: number | null; readonly signal: string | null } | null;
  readonly stopMs: number;
}

const percent = (share: number): string => (Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : "n/a");
const seconds = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} s` : "n/a");
const duration = (valueMs: number): string => (valueMs >= 100_000 ? seconds(valueMs / 1000) : ms(valueMs));

export function renderProviderTable(tenants: number, setup: SetupFigures, readiness: ReadinessFigures, controller: ControllerFigures): string {
  const { fromFirstOrder: first, fromOwnOrder: own } = readiness;
  const rows: (readonly string[])[] = [
    ["figure", "value"],
    ["tenants (workspaces, distinct OTC credentials, one cluster each)", String(tenants)],
    ["setup: kcp + infrastructure kube-apiserver", duration(setup.environmentMs)],
    ["setup: platform (workload cluster, simulators, controller)", duration(setup.platformMs)],
    [`setup: ${tenants} tenant workspaces, ${setup.workspaceConcurrency} at a time`, duration(setup.workspacesMs)],
    [`orders: all ${readiness.ordered} sent, ${setup.orderConcurrency} at a time`, duration(setup.ordersMs)],
    [`clusters reconciled once (a first condition) after ${seconds(readiness.waitedSeconds)}`, `${readiness.reconciledOnce.count} / ${readiness.ordered}`],
    ["first order -> reconciled once: p50", duration(readiness.reconciledOnce.p50Ms)],
    ["first order -> every cluster reconciled once", readiness.reconciledOnce.count === readiness.ordered ? duration(readiness.reconciledOnce.maxMs) : "not all"],
    ["own order -> reconciled once: p50 / p90 / max", [readiness.reconciledOnceFromOwnOrder.p50Ms, readiness.reconciledOnceFromOwnOrder.p90Ms, readiness.reconciledOnceFromOwnOrder.maxMs].map(duration).join(" / ")],
    [`controller event-loop lag p50 / p99 / max (${readiness.lag.samples} 1 s samples)`, `${ms(readiness.lag.p50Ms)} / ${ms(readiness.lag.p99Ms)} / ${ms(readiness.lag.maxMs)}`],
    [`clusters Ready after ${seconds(readiness.waitedSeconds)}${readiness.timedOut ? " (timeout)" : ""}`, `${readiness.ready} / ${readiness.ordered}`],
    ["first order -> Ready: p50", duration(first.p50Ms)],
    ["first order -> Ready: p90", duration(first.p90Ms)],
    ["first order -> Ready: max", duration(first.maxMs)],
    ["own order -> Ready: p50", duration(own.p50Ms)],
    ["own order -> Ready: p90", duration(own.p90Ms)],
    ["own order -> Ready: max", duration(own.maxMs)],
    ["controller RSS at start (before the first order)", mib(controller.rssStartBytes)],
    ["controller RSS at the end", mib(controller.rssEndBytes)],
    ["controller RSS peak (1 s samples)", mib(controller.peakSampledRssBytes)],
    ["controller RSS peak (VmHWM)", mib(controller.peakRssBytes)],
    ["controller CPU during the run (utime+stime)", seconds(controller.cpuSecondsDuringRun)],
    ["controller CPU cores busy during the run (average)", Number.isFinite(controller.coresDuringRun) ? controller.coresDuringRun.toFixed(2) : "n/a"],
    ["controller CPU over its life", seconds(controller.cpuSecondsTotal)],
  ];
  if (controller.exitedDuringRunAfterS !== null) rows.push(["controller exited on its own after", seconds(controller.exitedDuringRunAfterS)]);
  const notReady = Object.entries(readiness.notReadyBy).map(([state, count]) => `${count} ${state}`);
  return `${formatTable(rows)}${notReady.length > 0 ? `\nnot Ready at the end: ${notReady.join(", ")}` : ""}`;
}

/** The tables of `summary` (the run), and one line on the process's whole `life` when given. */
export function renderProfileTables(summary: ProfileSummary, life?: ProfileSummary, packages = 8): string {
  const { focus } = summary;
  const where = (fn: { file: string; line: number }): string => (fn.file === "(no script)" ? fn.file : `${fn.file}:${fn.line}`);
  const overview: (readonly string[])[] = [
    ["profile figure", "value"],
    ["samples", String(summary.totalSamples)],
    ["of which (idle)", `${summary.idleSamples} (${percent(summary.idleSamples / summary.totalSamples)})`],
    [`self frame in ${focus.package}`, `${focus.selfSamples} (${percent(focus.selfShare)})`],
    [`${focus.package} anywhere on the stack (inclusive)`, `${focus.inclusiveSamples} (${percent(focus.inclusiveShare)})`],
    [`${focus.package} inclusive, of non-idle samples`, percent(focus.inclusiveShareOfBusy)],
  ];
  const byPackage: (readonly string[])[] = [
    ["self samples by package", "samples", "share"],
    ...summary.selfByPackage.slice(0, packages).map((entry) => [entry.package, String(entry.samples), percent(entry.share)]),
  ];
  const top: (readonly string[])[] = [
    ["top functions by self time", "file:line", "samples", "share", "self"],
    ...summary.topSelf.map((fn) => [fn.functionName, where(fn), String(fn.selfSamples), percent(fn.selfShare), ms(fn.selfMs)]),
  ];
  const callers: (readonly string[])[] = [
    [`callers into ${focus.package} (inclusive)`, "file:line", "samples", "share"],
    ...focus.callers.slice(0, 5).map((fn) => [fn.functionName, where(fn), String(fn.samples), percent(fn.share)]),
  ];
  const span = summary.window === null ? "the whole process life" : `the run (first order to the end of the wait, ${seconds(summary.durationMs / 1000)})`;
  const lifeLine =
    life === undefined
      ? []
      : [
          `whole process life (${seconds(life.durationMs / 1000)}, setup included): ${life.totalSamples} samples, ${percent(life.idleSamples / life.totalSamples)} idle, ` +
            `${life.focus.package} self ${percent(life.focus.selfShare)}, inclusive ${percent(life.focus.inclusiveShare)} (${percent(life.focus.inclusiveShareOfBusy)} of non-idle)`,
        ];
  return [`CPU profile ${summary.file}, samples of ${span}`, formatTable(overview), formatTable(byPackage), formatTable(top), formatTable(callers), ...lifeLine].join("\n\n");
}
