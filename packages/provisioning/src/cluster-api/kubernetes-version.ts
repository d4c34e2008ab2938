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

/**
 * Whether `requested` is one of the `supported` versions, deprecated or not,
 * with or without the `v` on either side. Versions compare as written
 * otherwise: `1.34` does not support `1.34.1`.
 */
export function supportsVersion(supported: readonly SupportedVersion[], requested: string): boolean {
  const wanted = withoutV(requested);
  return supported.some((entry) => withoutV(entry.version) === wanted);
}

function withoutV(version: string): string {
  const trimmed = version.trim();
  return trimmed.startsWith("v") ? trimmed.slice(1) : trimmed;
}

/**
 * The highest of `versions` by semantic-version precedence: numeric parts
 * first, a pre-release below its release, pre-releases of one version by
 * their identifiers (numerically where both are numbers); build metadata
 * does not count.
 */
export function newestClusterApiVersion(versions: readonly string[]): string | undefined {
  const parsed = versions.map((v) => {
    const normalized = normalizeClusterApiVersion(v);
    const [withoutBuild = ""] = normalized.slice(1).split("+", 1);
    const dash = withoutBuild.indexOf("-");
    const core = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
    return { normalized, parts: core.split(".").map(Number), pre: dash === -1 ? undefined : withoutBuild.slice(dash + 1) };
  });
  parsed.sort((a, b) => {
    for (let i = 0; i < 3; i++) {
      const diff = (b.parts[i] ?? 0) - (a.parts[i] ?? 0);
      if (diff !== 0) return diff;
    }
    if (a.pre === undefined || b.pre === undefined) return (a.pre === undefined ? 0 : 1) - (b.pre === undefined ? 0 : 1);
    return b.pre.localeCompare(a.pre, "en", { numeric: true });
  });
  return parsed[0]?.normalized;
}
