/**
 * The cloud controller manager benchmark's figures, their JSON shape and the
 * table printed on stdout: one row per figure, grouped by phase. Problems
 * (OTC writes in the steady state, leaked or left-over OTC objects) are
 * listed again under the table in capitals, so that they cannot be missed.
 */
import type { ResourceCounts } from "@edgeconnect/otc-simulator";
import { percentile } from "./measure.js";
import { formatTable, mib, ms } from "./report.js";

/** Create (or delete) → observed latencies of one group of Services. */
export interface LatencyFigures {
  readonly count: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  /** First request to last observation. */
  readonly spanMs: number;
  readonly servicesPerSecond: number;
}

export function latencyFigures(latencies: readonly number[], spanMs: number): LatencyFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    maxMs: sorted.at(-1) ?? Number.NaN,
    spanMs,
    servicesPerSecond: sorted.length / (spanMs / 1000),
  };
}

/** OTC requests of one window, from the simulator's request log. */
export interface OtcFigures {
  readonly total: number;
  readonly gets: number;
  /** Everything but GET: POST, PUT, DELETE. */
  readonly mutating: number;
  /** Answers of 400 and above, injected faults and 409s of busy LBs included. */
  readonly errors: number;
  /** Errors by `METHOD /path/{id} status`, to tell injected faults, busy LBs and mistakes apart. */
  readonly errorKinds: Readonly<Record<string, number>>;
  readonly byMethod: Readonly<Record<string, number>>;
  /** Requests by `METHOD /path/{id}`: which calls the figures are made of. */
  readonly byKind: Readonly<Record<string, number>>;
  readonly perService: number;
  readonly getsPerService: number;
  readonly mutatingPerService: number;
}

export interface MemoryFigures {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

export interface BurstPhase {
  readonly latency: LatencyFigures;
  /** From the first create until the controller's queue was idle and nothing was written for a while. */
  readonly settledMs: number;
  readonly otc: OtcFigures;
  readonly memoryBefore: MemoryFigures;
  readonly memoryAfter: MemoryFigures;
}

export interface KubeWrites {
  /** The controller's own writes: finalizers, status. */
  readonly service: number;
  /** Event creates and aggregation patches of its EventRecorder. */
  readonly events: number;
}

export interface SteadyPhase {
  readonly windowMs: number;
  readonly otc: OtcFigures;
  readonly kubeWrites: KubeWrites;
  /** Reconciles started in the window. */
  readonly reconciles: number;
}

export interface ChurnPhase {
  /** Pools (all Services) that had to gain the new node. */
  readonly pools: number;
  /** Node create → every pool holds the new member. */
  readonly convergedMs: number;
  /** Node create → controller idle again. */
  readonly settledMs: number;
  readonly otc: OtcFigures;
}

/** What the simulator holds per Service after a phase; a healthy run has none listed. */
export interface LeakFigures {
  readonly servicesChecked: number;
  /** `namespace/name: n` for Services with other than one LB of their name. */
  readonly notOneLoadBalancer: readonly string[];
  /** `namespace/name: n` for Services with other than one EIP with the alias `k8s-svc-<uid>`. */
  readonly notOneEip: readonly string[];
  readonly loadBalancers: number;
  readonly eips: number;
}

export interface FaultPhase {
  readonly latency: LatencyFigures;
  readonly settledMs: number;
  /** ELB POSTs in the burst, injected 500s among them. */
  readonly elbPosts: number;
  readonly injected500s: number;
  readonly otc: OtcFigures;
  readonly leaks: LeakFigures;
}

/** Simulator objects of each kind; all zero after the last Service is gone. */
export type Leftovers = ResourceCounts;

export interface DeletePhase {
  /** DELETE of the collection → each Service's deletion observed. */
  readonly latency: LatencyFigures;
  /** DELETE → the simulator holds nothing (or gave up waiting). */
  readonly cloudEmptyMs: number;
  readonly otc: OtcFigures;
  readonly leftovers: Leftovers;
}

export interface CcmPhases {
  readonly burst: BurstPhase;
  readonly steady: SteadyPhase;
  readonly churn: ChurnPhase;
  readonly faults: FaultPhase;
  readonly delete: DeletePhase;
}

const count = (value: number): string => String(value);
/** Services per second; slow controllers manage less than one. */
const rate = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(value < 1 ? 3 : 1)} /s` : "n/a");
const per = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : "n/a");

function latencyRows(phase: string, latency: LatencyFigures): string[][] {
  return [
    [`${phase}: latency p50`, ms(latency.p50Ms)],
    [`${phase}: latency p95`, ms(latency.p95Ms)],
    [`${phase}: latency max`, ms(latency.maxMs)],
    [`${phase}: span, first request to last observed`, ms(latency.spanMs)],
    [`${phase}: Services/s`, rate(latency.servicesPerSecond)],
  ];
}

function otcRows(phase: string, otc: OtcFigures): string[][] {
  return [
    [`${phase}: OTC requests (GET / mutating / errors)`, `${otc.total} (${otc.gets} / ${otc.mutating} / ${otc.errors})`],
    // The window's every request: resyncs of Services already in step count too.
    [`${phase}: OTC requests per Service (resyncs included)`, per(otc.perService)],
    [`${phase}: OTC mutating requests per Service`, per(otc.mutatingPerService)],
  ];
}

export function renderCcmTable(phases: CcmPhases): string {
  const { burst, steady, churn, faults } = phases;
  const removed = phases.delete;
  const rows: string[][] = [
    ["figure", "value"],
    ...latencyRows(`burst (${burst.latency.count} Services): create → ingress`, burst.latency),
    ["burst: until the controller settled", ms(burst.settledMs)],
    ...otcRows("burst", burst.otc),
    ["burst: RSS before / after", `${mib(burst.memoryBefore.rssBytes)} / ${mib(burst.memoryAfter.rssBytes)}`],
    ["burst: heap used before / after", `${mib(burst.memoryBefore.heapUsedBytes)} / ${mib(burst.memoryAfter.heapUsedBytes)}`],
    [`steady (${ms(steady.windowMs)}, one resync period): reconciles`, count(steady.reconciles)],
    ["steady: OTC GETs per Service per resync", per(steady.otc.getsPerService)],
    ["steady: OTC non-GET requests (must be 0)", count(steady.otc.mutating)],
    ["steady: Kubernetes writes, Service / Events", `${steady.kubeWrites.service} / ${steady.kubeWrites.events}`],
    [`node churn (${churn.pools} pools): until every pool has the new member`, ms(churn.convergedMs)],
    ["node churn: until the controller settled", ms(churn.settledMs)],
    ...otcRows("node churn", churn.otc),
    ...latencyRows(`faults (${faults.latency.count} Services): create → ingress`, faults.latency),
    ["faults: until the controller settled", ms(faults.settledMs)],
    ["faults: injected 500s / ELB POSTs", `${faults.injected500s} / ${faults.elbPosts}`],
    ...otcRows("faults", faults.otc),
    [`faults: leaks (Services without exactly one LB / EIP, of ${faults.leaks.servicesChecked})`, `${faults.leaks.notOneLoadBalancer.length} / ${faults.leaks.notOneEip.length}`],
    ...latencyRows(`delete (${removed.latency.count} Services): DELETE → gone`, removed.latency),
    ["delete: until the simulator was empty", ms(removed.cloudEmptyMs)],
    ...otcRows("delete", removed.otc),
    ["delete: left in the simulator (LB/listener/pool/member/monitor/EIP)", Object.values(removed.leftovers).join("/")],
  ];
  return formatTable(rows);
}

/** Loud lines for whatever a correct controller never does; empty when all is well. */
export function problems(phases: CcmPhases): string[] {
  const found: string[] = [];
  if (phases.steady.otc.mutating > 0) {
    found.push(`STEADY STATE WROTE TO OTC: ${phases.steady.otc.mutating} non-GET requests ${JSON.stringify(phases.steady.otc.byMethod)}`);
  }
  if (phases.steady.kubeWrites.service > 0) found.push(`STEADY STATE WROTE TO SERVICES: ${phases.steady.kubeWrites.service} writes`);
  const { leaks } = phases.faults;
  if (leaks.notOneLoadBalancer.length > 0) found.push(`LB LEAK AFTER FAULTS: ${leaks.notOneLoadBalancer.join(", ")}`);
  if (leaks.notOneEip.length > 0) found.push(`EIP LEAK AFTER FAULTS: ${leaks.notOneEip.join(", ")}`);
  const left = Object.entries(phases.delete.leftovers).filter(([, n]) => n > 0);
  if (left.length > 0) found.push(`LEFT IN OTC AFTER DELETING EVERY SERVICE: ${left.map(([kind, n]) => `${n} ${kind}`).join(", ")}`);
  return found;
}
