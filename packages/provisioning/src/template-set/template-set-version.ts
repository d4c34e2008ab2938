/**
 * The Kubernetes version of a Cluster API cluster, for every user of Cluster
 * API templates: the provider controller's ClusterAPI KubernetesClusters
 * (whose template sets are the Cluster API cluster provider's
 * ProviderConfigs) and that provider's openMCP Clusters.
 *
 * A request names a minor (`v1.31`, `1.31`: the newest offered patch of
 * it) or a full version (`1.31.2`), or nothing (the newest offered); an
 * offered version that is not deprecated is preferred. A running cluster
 * keeps its version unless the request asks for a newer offered one: an
 * offer added later upgrades nothing by itself, and an offer withdrawn never
 * downgrades or refuses a cluster that runs it. Cluster API refuses
 * downgrades and minor skips, so they are refused here, saying what to set.
 */
import { clusterApiMinorVersion, compareClusterApiVersions, newestClusterApiVersion, normalizeClusterApiVersion, type SupportedVersion } from "../cluster-api/kubernetes-version.js";

export interface TemplateSetVersionRequest {
  /** `spec.kubernetes.version`; empty or absent asks for the newest offered. */
  readonly requested?: string | undefined;
  /** Who offers the versions, as messages name it: `template set "in-memory"`. */
  readonly offeredBy: string;
  readonly offered: readonly SupportedVersion[];
  /** The version the cluster runs, once it exists. */
  readonly current?: string | undefined;
}

export type TemplateSetVersion =
  | { readonly ok: true; /** With the leading `v`, as Cluster API wants it. */ readonly version: string }
  | { readonly ok: false; readonly reason: "UnsupportedVersion" | "UnsupportedChange"; readonly message: string };

/** Throws a ClusterTemplateError when an offered version is no full version: the offer's fault, not the request's. */
export function templateSetVersion(request: TemplateSetVersionRequest): TemplateSetVersion {
  const { current } = request;
  const requested = request.requested?.trim() ?? "";
  const offered = [...request.offered].sort((a, b) => compareClusterApiVersions(b.version, a.version));
  if (current !== undefined && (requested === "" || names(requested, current))) return { ok: true, version: normalizeClusterApiVersion(current) };
  // Older than what runs is refused whatever is offered: setting it back is the fix, not picking another offer.
  if (current !== undefined && olderThan(requested, current)) return { ok: false, reason: "UnsupportedChange", message: downgradeRefusal(current, requested) };
  const chosen = requested === "" ? newestClusterApiVersion(offered.filter((entry) => entry.deprecated !== true).map((entry) => entry.version)) : pick(offered, requested);
  if (chosen === undefined) return { ok: false, reason: "UnsupportedVersion", message: unsupported(request.offeredBy, requested, offered) };
  if (current === undefined) return { ok: true, version: chosen };
  const refusal = changeRefusal(current, chosen, requested);
  return refusal === undefined ? { ok: true, version: chosen } : { ok: false, reason: "UnsupportedChange", message: refusal };
}

/** Whether `requested` names `version`: the same minor for a minor, the same version (with or without `v`) otherwise. */
function names(requested: string, version: string): boolean {
  const minor = minorOnly(requested);
  if (minor === undefined) return requested.replace(/^v/, "") === version.replace(/^v/, "");
  const of = clusterApiMinorVersion(version);
  return of !== undefined && of.major === minor.major && of.minor === minor.minor;
}

/** The newest offered version `requested` names, preferring one that is not deprecated. */
function pick(newestFirst: readonly SupportedVersion[], requested: string): string | undefined {
  const named = newestFirst.filter((entry) => names(requested, entry.version));
  const chosen = named.find((entry) => entry.deprecated !== true) ?? named[0];
  return chosen === undefined ? undefined : normalizeClusterApiVersion(chosen.version);
}

/** Why a running cluster cannot move from `current` to `next`, or undefined when it can. */
function changeRefusal(current: string, next: string, requested: string): string | undefined {
  const from = normalizeClusterApiVersion(current);
  if (compareClusterApiVersions(next, from) < 0) return downgradeRefusal(from, requested);
  const a = clusterApiMinorVersion(from);
  const b = clusterApiMinorVersion(next);
  if (a !== undefined && b !== undefined && a.major === b.major && b.minor > a.minor + 1) {
    return `kubernetes.version cannot skip minor versions from ${from} to ${next}; upgrade to v${a.major}.${a.minor + 1} first`;
  }
  return undefined;
}

function downgradeRefusal(current: string, requested: string): string {
  const from = normalizeClusterApiVersion(current);
  return `kubernetes.version cannot change from ${from} to ${requested} in place; set it back to ${from}`;
}

/** Whether `requested` (a minor or a full version) names only versions older than `current`; false for what is no version at all. */
function olderThan(requested: string, current: string): boolean {
  const minor = minorOnly(requested);
  const running = clusterApiMinorVersion(current);
  if (minor !== undefined) return running !== undefined && (minor.major < running.major || (minor.major === running.major && minor.minor < running.minor));
  try {
    return compareClusterApiVersions(requested, current) < 0;
  } catch {
    return false;
  }
}

function unsupported(offeredBy: string, requested: string, newestFirst: readonly SupportedVersion[]): string {
  if (newestFirst.length === 0) return `${offeredBy} offers no Kubernetes version`;
  if (requested === "") return `${offeredBy} offers no Kubernetes version that is not deprecated; name one in kubernetes.version`;
  const offers = newestFirst.map((entry) => `${normalizeClusterApiVersion(entry.version)}${entry.deprecated === true ? " (deprecated)" : ""}`);
  return `${offeredBy} offers no Kubernetes ${requested}; set kubernetes.version to one of ${offers.join(", ")}`;
}

/** `[v]MAJOR.MINOR` and nothing more. */
function minorOnly(version: string): { major: number; minor: number } | undefined {
  return /^v?[0-9]+\.[0-9]+$/.test(version) ? clusterApiMinorVersion(version) : undefined;
}
