/**
 * The figures of `bench:provider --kcp simulator` and their table: time
 * from the controller's start to every cluster reconciled once (its first
 * status condition, observedGeneration set), the controller's event-loop
 * lag, RSS and CPU per tenant, reconciles per second, the Lease, and a
 * quiet tenant's first condition while another tenant orders many clusters;
 * each against the target for 10,000 tenants on one replica.
 */
import { percentile } from "./measure.js";
import { formatTable, mib, ms } from "./report.js";

/** The targets for 10,000 tenants on one replica. */
export const SIM_TARGETS = {
  allReconciledS: 120,
  lagP99Ms: 100,
  lagMaxMs: 1_000,
  rssBytes: 1.5 * 2 ** 30,
} as const;

/** One scrape of the controller's prom-client metrics (figures of the interval since the previous scrape). */
export interface LagSample {
  readonly t: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LagFigures {
  /** Scrapes that answered. */
  readonly samples: number;
  /** Median of the per-interval medians. */
  readonly p50Ms: number;
  /** The highest per-interval p99: an upper bound of the run's p99. */
  readonly p99Ms: number;
  /** The 99th percentile of the per-interval p99s. */
  readonly p99OfIntervalsMs: number;
  readonly maxMs: number;
}

export function lagFigures(samples: readonly LagSample[]): LagFigures {
  const sorted = (pick: (s: LagSample) => number): number[] => samples.map(pick).sort((a, b) => a - b);
  const p99s = sorted((s) => s.p99Ms);
  return {
    samples: samples.length,
    p50Ms: percentile(sorted((s) => s.p50Ms), 50),
    p99Ms: p99s.at(-1) ?? Number.NaN,
    p99OfIntervalsMs: percentile(p99s, 99),
    maxMs: samples.length === 0 ? Number.NaN : Math.max(...samples.map((s) => s.maxMs)),
  };
}

export interface SimInitialFigures {
  readonly tenants: number;
  readonly clusters: number;
  /** Clusters with a first condition when the phase ended. */
  readonly reconciled: number;
  readonly timedOut: boolean;
  /** Controller process start → its first condition written, per cluster. */
  readonly firstConditionMs: { readonly p50: number; readonly p90: number; readonly max: number };
  /** Controller process start → the last cluster's first condition (or the end of the wait). */
  readonly allReconciledMs: number;
  readonly lag: LagFigures;
  readonly rssPeakBytes: number;
  readonly rssEndBytes: number;
  readonly cpuSeconds: number;
  /** controller_runtime_reconcile_total (both controllers), over the phase. */
  readonly reconciles: number;
  readonly reconcilesPerSecond: number;
}

export interface SimFloodFigures {
  readonly floodClusters: number;
  /** The flood's and the quiet tenant's orders seeded → the quiet tenant's cluster's first condition. */
  readonly quietFirstConditionMs: number | null;
  /** The flood's clusters with a first condition when the phase ended, and when the last one got it. */
  readonly floodReconciled: number;
  readonly floodAllReconciledMs: number | null;
  readonly lag: LagFigures;
  readonly timedOut: boolean;
}

export interface SimLeaseFigures {
  /** Lease writes seen by the simulator (acquire and renewals). */
  readonly renewals: number;
  /** The longest time between two writes of the Lease while the controller ran. */
  readonly maxRenewGapMs: number;
  readonly holders: number;
  /** The controller exited on its own, or logged that it lost the Lease. */
  readonly lost: boolean;
}

export interface SimSetupFigures {
  readonly infraMs: number;
  readonly platformMs: number;
  readonly seedMs: number;
  readonly objects: Readonly<Record<string, number>>;
}

const seconds = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} s` : "n/a");
const verdict = (met: boolean): string => (met ? "met" : "NOT met");

export function renderSimTable(setup: SimSetupFigures, initial: SimInitialFigures, flood: SimFloodFigures | null, lease: SimLeaseFigures): string {
  const perTenant = (value: number): string => (initial.tenants > 0 ? value / initial.tenants : Number.NaN).toString();
  const rows: (readonly string[])[] = [
    ["figure", "value", `target (10k tenants)`],
    ["tenants / clusters (1-3 each) seeded", `${initial.tenants} / ${initial.clusters}`, ""],
    ["setup: infrastructure kube-apiserver", seconds(setup.infraMs / 1000), ""],
    ["setup: load simulator, OTC and Crossplane simulators", seconds(setup.platformMs / 1000), ""],
    ["setup: seeding the tenants' objects", seconds(setup.seedMs / 1000), ""],
    [
      `start -> every cluster reconciled once${initial.timedOut ? " (timeout)" : ""}`,
      `${seconds(initial.allReconciledMs / 1000)} (${initial.reconciled}/${initial.clusters})`,
      `< ${SIM_TARGETS.allReconciledS} s: ${verdict(!initial.timedOut && initial.allReconciledMs < SIM_TARGETS.allReconciledS * 1000)}`,
    ],
    ["start -> first condition: p50 / p90 / max", `${seconds(initial.firstConditionMs.p50 / 1000)} / ${seconds(initial.firstConditionMs.p90 / 1000)} / ${seconds(initial.firstConditionMs.max / 1000)}`, ""],
    ["event-loop lag p50 (median of 1 s intervals)", ms(initial.lag.p50Ms), ""],
    ["event-loop lag p99 (worst 1 s interval)", ms(initial.lag.p99Ms), `< ${SIM_TARGETS.lagP99Ms} ms: ${verdict(initial.lag.p99Ms < SIM_TARGETS.lagP99Ms)}`],
    ["event-loop lag max", ms(initial.lag.maxMs), `< ${SIM_TARGETS.lagMaxMs} ms: ${verdict(initial.lag.maxMs < SIM_TARGETS.lagMaxMs)}`],
    ["controller RSS peak", mib(initial.rssPeakBytes), `< 1.5 GiB: ${verdict(initial.rssPeakBytes < SIM_TARGETS.rssBytes)}`],
    ["controller RSS per tenant (peak / tenants)", `${(Number(perTenant(initial.rssPeakBytes)) / 1024).toFixed(1)} KiB`, ""],
    ["controller CPU (utime+stime), start -> all reconciled", seconds(initial.cpuSeconds), ""],
    ["controller CPU per tenant", ms((Number(perTenant(initial.cpuSeconds)) || 0) * 1000), ""],
    ["reconciles (both controllers) / per second", `${initial.reconciles} / ${initial.reconcilesPerSecond.toFixed(1)} /s`, ""],
    ["Lease: writes / longest gap / lost", `${lease.renewals} / ${seconds(lease.maxRenewGapMs / 1000)} / ${lease.lost ? "LOST" : "no"}`, `no Lease lost: ${verdict(!lease.lost)}`],
  ];
  if (flood !== null) {
    rows.push(
      [`quiet tenant's first condition while one tenant orders ${flood.floodClusters}${flood.timedOut ? " (timeout)" : ""}`, flood.quietFirstConditionMs === null ? "not reached" : seconds(flood.quietFirstConditionMs / 1000), ""],
      ["the flood: reconciled once / all after", `${flood.floodReconciled}/${flood.floodClusters} / ${flood.floodAllReconciledMs === null ? "n/a" : seconds(flood.floodAllReconciledMs / 1000)}`, ""],
      ["event-loop lag during the flood p50 / p99 / max", `${ms(flood.lag.p50Ms)} / ${ms(flood.lag.p99Ms)} / ${ms(flood.lag.maxMs)}`, ""],
    );
  }
  return formatTable(rows);
}
