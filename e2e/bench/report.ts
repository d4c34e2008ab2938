/**
 * The benchmark's figures, their JSON shape and the tables printed on stdout:
 * one row per figure with the controller's value, the bare client's (the
 * ceiling) and ours / ceiling where both exist; with a peer controller, one
 * row per figure both controllers have, with ours / peer.
 */
import type { LatencySummary } from "./measure.js";

export interface BurstFigures extends LatencySummary {
  /** First create to last reconcile. */
  readonly spanMs: number;
  readonly reconcilesPerSecond: number;
}

export interface FloodFigures {
  readonly count: number;
  /** First flood create to last flood reconcile. */
  readonly drainMs: number;
  readonly reconcilesPerSecond: number;
  /** How fast the flood could be created at all; reconciles cannot outrun it. */
  readonly createsPerSecond: number;
  /** The quiet tenant's create→reconcile latency while the flood ran. */
  readonly quiet: LatencySummary;
}

export interface InitialSyncFigures {
  /** Process start to its first status write: loading, connecting, listing and one reconcile. */
  readonly bootMs: number;
  readonly objects: number;
  readonly syncedMs: number;
  readonly reconciledMs: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly rssDeltaBytes: number;
  readonly heapUsedAfterBytes: number;
}

/** A side's process, from /proc: CPU time (user + system) per phase, and memory. */
export interface ProcessFigures {
  readonly burstCpuSeconds: number;
  readonly floodCpuSeconds: number;
  readonly rssAfterFloodBytes: number;
}

/** Ours also has phases the bare client has not. */
export interface OursProcessFigures extends ProcessFigures {
  readonly initialSyncCpuSeconds: number;
  readonly isolationCpuSeconds: number;
  /** The highest RSS of the whole run (VmHWM). */
  readonly peakRssBytes: number;
}

/**
 * A quiet tenant's updates with nobody else busy, then the same updates while
 * noisy tenants' widgets keep failing slowly: what a few tenants cost another.
 */
export interface IsolationFigures {
  readonly noisyTenants: number;
  /** Per noisy tenant. */
  readonly noisyWidgets: number;
  readonly noisyReconcileMs: number;
  readonly workers: number;
  /** The cap the controller ran with (the flag, or the Controller's default). */
  readonly maxInFlightPerTenant: number;
  /** Update → status write of the quiet tenant's widgets, no noise. */
  readonly idle: LatencySummary;
  /** The same updates during the noise. */
  readonly noisy: LatencySummary;
  /** Noisy reconciles (all failing) per second while the noisy updates ran. */
  readonly noisyReconcilesPerSecond: number;
  readonly p50Ratio: number;
  readonly p99Ratio: number;
}

/** noisy / idle that the isolation phase aims to stay within. */
export const ISOLATION_TARGET = 2;

export function isolationRatios(idle: LatencySummary, noisy: LatencySummary): { p50Ratio: number; p99Ratio: number } {
  return { p50Ratio: noisy.p50Ms / idle.p50Ms, p99Ratio: noisy.p99Ms / idle.p99Ms };
}

export interface Ratios {
  readonly burstP50: number;
  readonly burstP99: number;
  readonly burstReconcilesPerSecond: number;
  readonly floodReconcilesPerSecond: number;
  readonly quietP50: number;
  readonly quietP99: number;
}

export function ratios(ours: { burst: BurstFigures; flood: FloodFigures }, ceiling: { burst: BurstFigures; flood: FloodFigures }): Ratios {
  return {
    burstP50: ours.burst.p50Ms / ceiling.burst.p50Ms,
    burstP99: ours.burst.p99Ms / ceiling.burst.p99Ms,
    burstReconcilesPerSecond: ours.burst.reconcilesPerSecond / ceiling.burst.reconcilesPerSecond,
    floodReconcilesPerSecond: ours.flood.reconcilesPerSecond / ceiling.flood.reconcilesPerSecond,
    quietP50: ours.flood.quiet.p50Ms / ceiling.flood.quiet.p50Ms,
    quietP99: ours.flood.quiet.p99Ms / ceiling.flood.quiet.p99Ms,
  };
}

type Row = readonly [figure: string, ours: string, ceiling: string, ratio: string];

export const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(value < 100 ? 1 : 0)} ms` : "n/a");
export const perSecond = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} /s` : "n/a");
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : "n/a");
const none = "-";
const seconds = (value: number): string => `${value.toFixed(2)} s`;

export function renderTable(
  initial: InitialSyncFigures,
  ours: { burst: BurstFigures; flood: FloodFigures; process: OursProcessFigures },
  ceiling: { burst: BurstFigures; flood: FloodFigures; process: ProcessFigures },
  r: Ratios,
): string {
  const cpu = ours.process;
  const rows: Row[] = [
    ["figure", "ours", "ceiling", "ours/ceiling"],
    ["boot: process start to first status write", ms(initial.bootMs), none, none],
    [`initial sync: ${initial.objects} objects, until source synced`, ms(initial.syncedMs), none, none],
    ["initial sync: until all reconciled", ms(initial.reconciledMs), none, none],
    ["controller process RSS before start", mib(initial.rssBeforeBytes), none, none],
    ["controller process RSS after initial sync", mib(initial.rssAfterBytes), none, none],
    ["controller process RSS delta", mib(initial.rssDeltaBytes), none, none],
    ["controller process CPU: initial sync", seconds(cpu.initialSyncCpuSeconds), none, none],
    [`burst (${ours.burst.count}, one per tenant): latency p50`, ms(ours.burst.p50Ms), ms(ceiling.burst.p50Ms), ratio(r.burstP50)],
    ["burst: latency p99", ms(ours.burst.p99Ms), ms(ceiling.burst.p99Ms), ratio(r.burstP99)],
    ["burst: latency max", ms(ours.burst.maxMs), ms(ceiling.burst.maxMs), ratio(ours.burst.maxMs / ceiling.burst.maxMs)],
    ["burst: reconciles/s", perSecond(ours.burst.reconcilesPerSecond), perSecond(ceiling.burst.reconcilesPerSecond), ratio(r.burstReconcilesPerSecond)],
    [`flood (${ours.flood.count} in one tenant): time to drain`, ms(ours.flood.drainMs), ms(ceiling.flood.drainMs), ratio(ours.flood.drainMs / ceiling.flood.drainMs)],
    ["flood: reconciles/s", perSecond(ours.flood.reconcilesPerSecond), perSecond(ceiling.flood.reconcilesPerSecond), ratio(r.floodReconcilesPerSecond)],
    ["flood: creates/s (client side)", perSecond(ours.flood.createsPerSecond), perSecond(ceiling.flood.createsPerSecond), ratio(ours.flood.createsPerSecond / ceiling.flood.createsPerSecond)],
    ["process CPU: burst", seconds(cpu.burstCpuSeconds), seconds(ceiling.process.burstCpuSeconds), ratio(cpu.burstCpuSeconds / ceiling.process.burstCpuSeconds)],
    ["process CPU: flood", seconds(cpu.floodCpuSeconds), seconds(ceiling.process.floodCpuSeconds), ratio(cpu.floodCpuSeconds / ceiling.process.floodCpuSeconds)],
    ["process RSS after flood", mib(cpu.rssAfterFloodBytes), mib(ceiling.process.rssAfterFloodBytes), ratio(cpu.rssAfterFloodBytes / ceiling.process.rssAfterFloodBytes)],
    [`quiet tenant during flood (${ours.flood.quiet.count} / ${ceiling.flood.quiet.count}): p50`, ms(ours.flood.quiet.p50Ms), ms(ceiling.flood.quiet.p50Ms), ratio(r.quietP50)],
    ["quiet tenant during flood: p99", ms(ours.flood.quiet.p99Ms), ms(ceiling.flood.quiet.p99Ms), ratio(r.quietP99)],
    ["quiet tenant during flood: max", ms(ours.flood.quiet.maxMs), ms(ceiling.flood.quiet.maxMs), ratio(ours.flood.quiet.maxMs / ceiling.flood.quiet.maxMs)],
    ["controller process CPU: isolation phase (below)", seconds(cpu.isolationCpuSeconds), none, none],
    ["controller process peak RSS", mib(cpu.peakRssBytes), none, none],
  ];
  return formatTable(rows);
}

/** Everything one controller's session (initial sync, burst, flood, isolation) measured: ours, or a peer's. */
export interface SessionFigures {
  readonly initialSync: InitialSyncFigures;
  readonly burst: BurstFigures;
  readonly flood: FloodFigures;
  readonly process: OursProcessFigures;
  readonly isolation: IsolationFigures;
}

interface PeerFigure {
  /** The key of its ratio in the JSON. */
  readonly id: string;
  readonly label: (ours: SessionFigures, peer: SessionFigures) => string;
  readonly value: (figures: SessionFigures) => number;
  readonly format: (value: number) => string;
}

/** The figures both controllers have, in the order of the table. Lower is better except for rates. */
const PEER_FIGURES: readonly PeerFigure[] = [
  { id: "bootMs", label: () => "boot: process start to first status write", value: (f) => f.initialSync.bootMs, format: ms },
  { id: "initialSyncedMs", label: (o) => `initial sync: ${o.initialSync.objects} objects, until synced`, value: (f) => f.initialSync.syncedMs, format: ms },
  { id: "initialReconciledMs", label: () => "initial sync: until all reconciled", value: (f) => f.initialSync.reconciledMs, format: ms },
  { id: "rssBeforeBytes", label: () => "RSS before start", value: (f) => f.initialSync.rssBeforeBytes, format: mib },
  { id: "rssAfterInitialSyncBytes", label: () => "RSS after initial sync", value: (f) => f.initialSync.rssAfterBytes, format: mib },
  { id: "heapAfterInitialSyncBytes", label: () => "heap in use after initial sync", value: (f) => f.initialSync.heapUsedAfterBytes, format: mib },
  { id: "initialSyncCpuSeconds", label: () => "CPU: initial sync", value: (f) => f.process.initialSyncCpuSeconds, format: seconds },
  { id: "burstP50Ms", label: (o) => `burst (${o.burst.count}, one per tenant): latency p50`, value: (f) => f.burst.p50Ms, format: ms },
  { id: "burstP99Ms", label: () => "burst: latency p99", value: (f) => f.burst.p99Ms, format: ms },
  { id: "burstMaxMs", label: () => "burst: latency max", value: (f) => f.burst.maxMs, format: ms },
  { id: "burstReconcilesPerSecond", label: () => "burst: reconciles/s (higher is better)", value: (f) => f.burst.reconcilesPerSecond, format: perSecond },
  { id: "burstCpuSeconds", label: () => "CPU: burst", value: (f) => f.process.burstCpuSeconds, format: seconds },
  { id: "floodDrainMs", label: (o) => `flood (${o.flood.count} in one tenant): time to drain`, value: (f) => f.flood.drainMs, format: ms },
  { id: "floodReconcilesPerSecond", label: () => "flood: reconciles/s (higher is better)", value: (f) => f.flood.reconcilesPerSecond, format: perSecond },
  { id: "floodCpuSeconds", label: () => "CPU: flood", value: (f) => f.process.floodCpuSeconds, format: seconds },
  { id: "rssAfterFloodBytes", label: () => "RSS after flood", value: (f) => f.process.rssAfterFloodBytes, format: mib },
  { id: "quietP50Ms", label: () => "quiet tenant during flood: p50", value: (f) => f.flood.quiet.p50Ms, format: ms },
  { id: "quietP99Ms", label: () => "quiet tenant during flood: p99", value: (f) => f.flood.quiet.p99Ms, format: ms },
  { id: "quietMaxMs", label: () => "quiet tenant during flood: max", value: (f) => f.flood.quiet.maxMs, format: ms },
  { id: "isolationIdleP50Ms", label: () => "isolation: quiet updates, idle: p50", value: (f) => f.isolation.idle.p50Ms, format: ms },
  { id: "isolationIdleP99Ms", label: () => "isolation: quiet updates, idle: p99", value: (f) => f.isolation.idle.p99Ms, format: ms },
  { id: "isolationNoisyP50Ms", label: (o) => `isolation: quiet updates, ${o.isolation.noisyTenants} noisy tenants: p50`, value: (f) => f.isolation.noisy.p50Ms, format: ms },
  { id: "isolationNoisyP99Ms", label: () => "isolation: quiet updates, noisy: p99", value: (f) => f.isolation.noisy.p99Ms, format: ms },
  { id: "isolationNoisyMaxMs", label: () => "isolation: quiet updates, noisy: max", value: (f) => f.isolation.noisy.maxMs, format: ms },
  { id: "isolationCpuSeconds", label: () => "CPU: isolation phase", value: (f) => f.process.isolationCpuSeconds, format: seconds },
  { id: "peakRssBytes", label: () => "peak RSS", value: (f) => f.process.peakRssBytes, format: mib },
];

/** ours / peer for every figure both have, by id. */
export function peerRatios(ours: SessionFigures, peer: SessionFigures): Record<string, number> {
  return Object.fromEntries(PEER_FIGURES.map((figure) => [figure.id, figure.value(ours) / figure.value(peer)]));
}

export function renderPeerTable(peerName: string, ours: SessionFigures, peer: SessionFigures): string {
  const r = peerRatios(ours, peer);
  const rows: Row[] = [
    ["figure", "ours", peerName, `ours/${peerName}`],
    ...PEER_FIGURES.map((figure): Row => [figure.label(ours, peer), figure.format(figure.value(ours)), figure.format(figure.value(peer)), ratio(r[figure.id] ?? Number.NaN)]),
  ];
  return formatTable(rows);
}

export function renderIsolationTable(figures: IsolationFigures): string {
  const { idle, noisy } = figures;
  const rows: Row[] = [
    ["figure", "idle", "noisy", "noisy/idle"],
    [`quiet tenant updates (${idle.count} / ${noisy.count}): p50`, ms(idle.p50Ms), ms(noisy.p50Ms), ratio(figures.p50Ratio)],
    ["quiet tenant updates: p99", ms(idle.p99Ms), ms(noisy.p99Ms), ratio(figures.p99Ratio)],
    ["quiet tenant updates: max", ms(idle.maxMs), ms(noisy.maxMs), ratio(noisy.maxMs / idle.maxMs)],
    ["noisy tenants: reconciles (all failing)", none, perSecond(figures.noisyReconcilesPerSecond), none],
  ];
  const met = figures.p50Ratio <= ISOLATION_TARGET && figures.p99Ratio <= ISOLATION_TARGET;
  return (
    `tenant isolation: ${figures.noisyTenants} noisy tenants with ${figures.noisyWidgets} widgets each, ` +
    `each reconcile failing after ${figures.noisyReconcileMs} ms; ` +
    `at most ${figures.maxInFlightPerTenant} of ${figures.workers} workers per tenant\n\n${formatTable(rows)}\n\n` +
    `target: noisy/idle p50 and p99 within ${ISOLATION_TARGET}x: ${met ? "met" : "missed"}`
  );
}

/**
 * A header row, a rule and the body: the first column left-aligned (the
 * figure's name), the others right-aligned (values), two spaces apart.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  const [header, ...body] = rows;
  return [header === undefined ? "" : line(header), rule, ...body.map(line)].join("\n");
}
