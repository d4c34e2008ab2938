/**
 * Kubernetes versions as Cluster API wants them in `topology.version`: its
 * Cluster webhook rejects anything but `v` followed by a strict semantic
 * version (`v1.34.1`, `v1.34.1-rc.0`, `v1.34.1+build.1`). Unlike CCE, a
 * minor version alone (`v1.34`) is not enough.
 */
import { ClusterTemplateError } from "./cluster-template-error.js";

export interface SupportedVersion {
  version: string;
  deprecated?: boolean;
}

const NUMBER = "(?:0|[1-9][0-9]*)";
const PRERELEASE_PART = `(?:${NUMBER}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)`;
const BUILD_PART = "[0-9A-Za-z-]+";
const SEMVER = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}(?:-${PRERELEASE_PART}(?:\\.${PRERELEASE_PART})*)?(?:\\+${BUILD_PART}(?:\\.${BUILD_PART})*)?$`);
/** The CRD's limit on `topology.version`. */
const MAX_LENGTH = 256;

/** `version` with a leading `v`; throws a ClusterTemplateError when it is not `[v]MAJOR.MINOR.PATCH[-pre][+build]`. */
export function normalizeClusterApiVersion(version: string): string {
  const bare = withoutV(version);
  if (!SEMVER.test(bare) || bare.length + 1 > MAX_LENGTH) {
    throw new ClusterTemplateError([`Kubernetes version ${JSON.stringify(version)} is not a full version such as v1.34.1 (major.minor.patch, the v is optional)`]);
  }
  return `v${bare}`;
}

function withoutV(version: string): string {
  const trimmed = version.trim();
  return trimmed.startsWith("v") ? trimmed.slice(1) : trimmed;
}

/** The highest of `versions` by semantic-version precedence (see `compareClusterApiVersions`), with its `v`. */
export function newestClusterApiVersion(versions: readonly string[]): string | undefined {
  return [...versions].sort((a, b) => compareClusterApiVersions(b, a)).map(normalizeClusterApiVersion)[0];
}

/**
 * Semantic-version precedence, negative when `a` is older: numeric parts
 * first, a pre-release below its release, pre-releases of one version by
 * their identifiers (numerically where both are numbers); build metadata
 * does not count. Throws a ClusterTemplateError for what
 * `normalizeClusterApiVersion` refuses.
 */
export function compareClusterApiVersions(a: string, b: string): number {
  const left = precedence(a);
  const right = precedence(b);
  for (let i = 0; i < 3; i++) {
    const diff = (left.parts[i] ?? 0) - (right.parts[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (left.pre === undefined || right.pre === undefined) return (left.pre === undefined ? 1 : 0) - (right.pre === undefined ? 1 : 0);
  return left.pre.localeCompare(right.pre, "en", { numeric: true });
}

/** Major and minor of a version, full or `[v]MAJOR.MINOR`; undefined for anything else. */
export function clusterApiMinorVersion(version: string): { readonly major: number; readonly minor: number } | undefined {
  const match = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:\.|$)/.exec(withoutV(version));
  return match === null ? undefined : { major: Number(match[1]), minor: Number(match[2]) };
}

function precedence(version: string): { parts: number[]; pre: string | undefined } {
  const [withoutBuild = ""] = normalizeClusterApiVersion(version).slice(1).split("+", 1);
  const dash = withoutBuild.indexOf("-");
  const core = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
  return { parts: core.split(".").map(Number), pre: dash === -1 ? undefined : withoutBuild.slice(dash + 1) };
}
