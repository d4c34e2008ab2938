/**
 * Which ECS flavor a KubernetesCluster's nodes get: the smallest flavor of
 * the catalogue (ProviderMachineFlavors) that has the requested capabilities
 * and is offered in the requested zone, or the flavor the tenant pinned.
 *
 * Deterministic for a given catalogue: fewest vCPUs, then least memory,
 * then name. Flavors found sold out are excluded by the caller, so each
 * fallback picks the next smallest.
 */
import type { ProviderMachineFlavor } from "@edgeconnect/api";
import { formatBytes, parseQuantity } from "../quantity/quantity.js";

/** The zone value that lets CCE place nodes in any zone with capacity. */
export const RANDOM_ZONE = "random";

/** Rejections kept for the status: the closest misses. */
export const MAX_REJECTED = 10;

export interface RequestedCapabilities {
  vCPUCount: number;
  memorySize: string | number;
  gpuModelName?: string | null;
}

export interface FlavorZone {
  flavor: string;
  /** A zone, or `random`. */
  zone: string;
}

export interface FlavorRequest {
  providerType: string;
  capabilities: RequestedCapabilities;
  flavors: readonly ProviderMachineFlavor[];
  /** A zone or `random`. */
  zone: string;
  /** `spec.nodeFlavor`. */
  pinned?: string;
  /** (flavor, zone) pairs found sold out; with zone `random`, the pair is (flavor, `random`). */
  exclude?: readonly FlavorZone[];
  /**
   * The region of the credentials: only its zones count (`eu-de-01` is in
   * `eu-de`), also for `random`, where CCE places nodes in the cluster's region.
   */
  region?: string;
}

export interface RejectedFlavor {
  flavor: string;
  reason: string;
}

/** The flavor and zone the node pool gets, and why (for `status.flavor`). */
export interface FlavorChoice {
  flavor: string;
  /** The requested zone, or `random`. */
  zone: string;
  source: "Matched" | "Pinned";
  reason: string;
}

export type FlavorMatch = ({ ok: true; rejected: RejectedFlavor[] } & FlavorChoice) | { ok: false; message: string; rejected: RejectedFlavor[] };

interface Candidate {
  name: string;
  available: boolean;
  vCPUs: number;
  memory: bigint | undefined;
  gpu: string | undefined;
  zones: readonly string[];
}

interface Evaluation {
  candidate: Candidate;
  misses: string[];
  /** How far the flavor falls short of the request, relative to it (0 when it has enough). */
  shortfall: number;
}

/** Picks the node flavor; see the module comment. */
export function matchFlavor(request: FlavorRequest): FlavorMatch {
  const { capabilities, zone } = request;
  let memory: bigint;
  try {
    memory = parseQuantity(capabilities.memorySize);
  } catch {
    return { ok: false, message: `memorySize ${JSON.stringify(String(capabilities.memorySize))} of the MachineCapabilities is not a quantity such as 8Gi`, rejected: [] };
  }
  const wanted = { vCPUs: capabilities.vCPUCount, memory, gpu: normalizeGpu(capabilities.gpuModelName) };
  const candidates = request.flavors.filter((f) => f.spec?.providerRef.type === request.providerType).map((f) => toCandidate(f, request.region));
  const excluded = new Set((request.exclude ?? []).map((e) => pairKey(e.flavor, e.zone)));
  const soldOut = (c: Candidate): boolean => excluded.has(pairKey(c.name, zone));

  if (request.pinned !== undefined) return matchPinned(request, candidates, soldOut);

  const evaluations = candidates.map((candidate) => evaluate(candidate, wanted, zone, soldOut(candidate), request.region));
  const matches = evaluations.filter((e) => e.misses.length === 0).map((e) => e.candidate).sort(bySize);
  const rejected = evaluations
    .filter((e) => e.misses.length > 0)
    .sort(byCloseness)
    .slice(0, MAX_REJECTED)
    .map((e) => ({ flavor: e.candidate.name, reason: e.misses.join(", ") }));
  const best = matches[0];
  if (best === undefined) {
    return { ok: false, message: `no available ${request.providerType} flavor offers ${describeRequest(wanted, zone)}; ${hint(request.providerType, candidates, wanted, zone, soldOut)}`, rejected };
  }
  return {
    ok: true,
    flavor: best.name,
    zone,
    source: "Matched",
    reason: `smallest match${matches.length === 1 ? "" : ` of ${matches.length}`}: ${describeCandidate(best)}`,
    rejected,
  };
}

function matchPinned(request: FlavorRequest, candidates: readonly Candidate[], soldOut: (c: Candidate) => boolean): FlavorMatch {
  const { pinned = "", zone, providerType } = request;
  const fail = (problem: string, change: string): FlavorMatch => ({
    ok: false,
    message: `nodeFlavor ${pinned} ${problem}; ${change}`,
    rejected: [{ flavor: pinned, reason: problem }],
  });
  const other = "remove spec.nodeFlavor to have one matched, or pin another flavor";
  const found = candidates.filter((c) => c.name === pinned);
  if (found.length === 0) return fail(`is not an ${providerType} flavor of the catalogue`, other);
  if (!found.some((c) => c.available)) return fail("is not available", other);
  const available = found.find((c) => c.available && c.zones.length > 0);
  if (available === undefined) return fail(`is offered in no zone of region ${request.region ?? ""}`, other);
  const offered = zone === RANDOM_ZONE ? available : found.find((c) => c.available && c.zones.includes(zone));
  if (offered === undefined) {
    return fail(`is not offered in ${zone} (only in ${available.zones.join(", ")})`, `set spec.nodeAvailableZone to one of those or to "random", or ${other}`);
  }
  if (soldOut(offered)) return fail(`is sold out ${zone === RANDOM_ZONE ? "in every zone" : `in ${zone}`}`, `pin another flavor${zone === RANDOM_ZONE ? "" : ` or zone`}, or remove spec.nodeFlavor`);
  return { ok: true, flavor: offered.name, zone, source: "Pinned", reason: `pinned by spec.nodeFlavor: ${describeCandidate(offered)}`, rejected: [] };
}

/**
 * What `flavor` lacks of `capabilities` (vCPUs, memory, GPU), whatever the
 * catalogue says of its availability and zones: whether a running node
 * pool still gives what its MachineCapabilities ask. Empty when it does;
 * undefined when the catalogue does not know the flavor.
 */
export function capabilityMisses(request: Pick<FlavorRequest, "providerType" | "capabilities" | "flavors">, flavor: string): string[] | undefined {
  let memory: bigint;
  try {
    memory = parseQuantity(request.capabilities.memorySize);
  } catch {
    return [`memorySize ${JSON.stringify(String(request.capabilities.memorySize))} is not a quantity`];
  }
  const known = request.flavors.filter((f) => f.spec?.providerRef.type === request.providerType).map((f) => toCandidate(f, undefined)).find((c) => c.name === flavor);
  if (known === undefined) return undefined;
  const wanted = { vCPUs: request.capabilities.vCPUCount, memory, gpu: normalizeGpu(request.capabilities.gpuModelName) };
  return evaluate({ ...known, available: true, zones: [RANDOM_ZONE] }, wanted, RANDOM_ZONE, false, undefined).misses;
}

function toCandidate(flavor: ProviderMachineFlavor, region: string | undefined): Candidate {
  const spec = flavor.spec;
  let memory: bigint | undefined;
  try {
    memory = spec === undefined ? undefined : parseQuantity(spec.capabilities.memorySize);
  } catch {
    memory = undefined;
  }
  return {
    name: spec?.flavor ?? flavor.metadata?.name ?? "",
    available: spec?.available === true,
    vCPUs: spec?.capabilities.vCPUCount ?? 0,
    memory,
    gpu: normalizeGpu(spec?.capabilities.gpuModelName),
    zones: (spec?.availableZones ?? []).filter((zone) => region === undefined || zone.startsWith(`${region}-`)),
  };
}

interface Wanted {
  vCPUs: number;
  memory: bigint;
  gpu: string | undefined;
}

function evaluate(candidate: Candidate, wanted: Wanted, zone: string, soldOut: boolean, region: string | undefined): Evaluation {
  const misses: string[] = [];
  if (!candidate.available) misses.push("not available");
  if (candidate.memory === undefined) misses.push("memory size is not a quantity");
  if (candidate.vCPUs < wanted.vCPUs) misses.push(`${candidate.vCPUs} vCPUs (needs ${wanted.vCPUs})`);
  if (candidate.memory !== undefined && candidate.memory < wanted.memory) misses.push(`${formatBytes(candidate.memory)} memory (needs ${formatBytes(wanted.memory)})`);
  if (!sameGpu(candidate.gpu, wanted.gpu)) {
    if (wanted.gpu === undefined) misses.push(`GPU ${candidate.gpu ?? ""} (none requested)`);
    else misses.push(candidate.gpu === undefined ? `no GPU (needs ${wanted.gpu})` : `GPU ${candidate.gpu} (needs ${wanted.gpu})`);
  }
  if (!offers(candidate, zone)) misses.push(zone === RANDOM_ZONE ? `offered in no zone${region === undefined ? "" : ` of ${region}`}` : `not offered in ${zone}`);
  else if (soldOut) misses.push(zone === RANDOM_ZONE ? "sold out" : `sold out in ${zone}`);
  const cpuShort = Math.max(0, wanted.vCPUs - candidate.vCPUs) / Math.max(1, wanted.vCPUs);
  const memoryShort =
    candidate.memory === undefined || candidate.memory >= wanted.memory || wanted.memory === 0n
      ? 0
      : Number(((wanted.memory - candidate.memory) * 1000n) / wanted.memory) / 1000;
  return { candidate, misses, shortfall: cpuShort + memoryShort };
}

function offers(candidate: Candidate, zone: string): boolean {
  return zone === RANDOM_ZONE ? candidate.zones.length > 0 : candidate.zones.includes(zone);
}

function bySize(a: Candidate, b: Candidate): number {
  if (a.vCPUs !== b.vCPUs) return a.vCPUs - b.vCPUs;
  const am = a.memory ?? 0n;
  const bm = b.memory ?? 0n;
  if (am !== bm) return am < bm ? -1 : 1;
  return compareStrings(a.name, b.name);
}

/** Fewest misses first, then the smallest shortfall, then the smaller flavor. */
function byCloseness(a: Evaluation, b: Evaluation): number {
  if (a.misses.length !== b.misses.length) return a.misses.length - b.misses.length;
  if (a.shortfall !== b.shortfall) return a.shortfall - b.shortfall;
  return bySize(a.candidate, b.candidate);
}

/** The most specific reason why nothing matched, checking one requirement after the other. */
function hint(providerType: string, candidates: readonly Candidate[], wanted: Wanted, zone: string, soldOut: (c: Candidate) => boolean): string {
  if (candidates.length === 0) return `the catalogue has no ${providerType} flavors`;
  const available = candidates.filter((c) => c.available && c.memory !== undefined);
  if (available.length === 0) return "none is available";
  const offered = available.filter((c) => offers(c, zone));
  if (offered.length === 0) return zone === RANDOM_ZONE ? "none is offered in any zone" : `none is offered in ${zone}`;
  const notSoldOut = offered.filter((c) => !soldOut(c));
  if (notSoldOut.length === 0) return `all that are offered ${zone === RANDOM_ZONE ? "" : `in ${zone} `}were found sold out`;
  const gpu = notSoldOut.filter((c) => sameGpu(c.gpu, wanted.gpu));
  if (gpu.length === 0) return wanted.gpu === undefined ? "all of them have a GPU" : `none has GPU ${wanted.gpu}`;
  const cpu = gpu.filter((c) => c.vCPUs >= wanted.vCPUs);
  if (cpu.length === 0) return `the largest offers ${Math.max(...gpu.map((c) => c.vCPUs))} vCPUs`;
  const most = cpu.reduce((max, c) => ((c.memory ?? 0n) > max ? (c.memory ?? 0n) : max), 0n);
  return `the most memory with ${wanted.vCPUs} or more vCPUs is ${formatBytes(most)}`;
}

function describeRequest(wanted: Wanted, zone: string): string {
  const gpu = wanted.gpu === undefined ? "" : ` and GPU ${wanted.gpu}`;
  return `${wanted.vCPUs} vCPUs with ${formatBytes(wanted.memory)} memory${gpu}${zone === RANDOM_ZONE ? "" : ` in ${zone}`}`;
}

function describeCandidate(c: Candidate): string {
  return `${c.vCPUs} vCPUs, ${c.memory === undefined ? "unknown" : formatBytes(c.memory)} memory${c.gpu === undefined ? "" : `, GPU ${c.gpu}`}`;
}

function normalizeGpu(gpu: string | null | undefined): string | undefined {
  const trimmed = gpu?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

function sameGpu(a: string | undefined, b: string | undefined): boolean {
  return a?.toLowerCase() === b?.toLowerCase();
}

function pairKey(flavor: string, zone: string): string {
  return `${flavor}\0${zone}`;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
