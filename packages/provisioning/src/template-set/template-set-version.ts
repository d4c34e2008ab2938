/**
 * The Kubernetes version of a ClusterAPI KubernetesCluster. A tenant writes
 * a version as for OTC (`v1.31`, `v1.31.2`); a template set offers full
 * versions (`1.31.2`). What the tenant wrote picks the newest offered
 * version it names, preferring one that is not deprecated.
 *
 * A cluster keeps the version it was made with: a template set that offers a
 * newer patch later, or stops offering the running one, changes nothing
 * that runs. A tenant's new version that no longer names the running one is
 * refused, as upgrades are for OTC: nothing is rebuilt silently.
 */
import { normalizeClusterApiVersion, type SupportedVersion } from "../cluster-api/kubernetes-version.js";
import { newerKubernetesVersionFirst, normalizeKubernetesVersion, sameKubernetesVersion } from "../version/kubernetes-version.js";

export interface TemplateSetVersionRequest {
  /** `spec.kubernetes.version`. */
  readonly requested: string;
  readonly templateSet: string;
  readonly offered: readonly SupportedVersion[];
  /** The version the cluster runs, once it exists. */
  readonly current?: string;
}

export type TemplateSetVersion =
  | { readonly ok: true; /** With the leading `v`, as Cluster API wants it. */ readonly version: string }
  | { readonly ok: false; readonly reason: "UnsupportedVersion" | "UnsupportedChange"; readonly message: string };

export function templateSetVersion(request: TemplateSetVersionRequest): TemplateSetVersion {
  const { requested, current } = request;
  if (current !== undefined) {
    if (sameKubernetesVersion(requested, current)) return { ok: true, version: current };
    return { ok: false, reason: "UnsupportedChange", message: `kubernetes.version cannot change from ${current} to ${requested} in place; set it back to ${current}` };
  }
  const newest = [...request.offered].sort((a, b) => newerKubernetesVersionFirst(a.version, b.version));
  const named = newest.filter((entry) => sameKubernetesVersion(requested, entry.version));
  const chosen = named.find((entry) => entry.deprecated !== true) ?? named[0];
  if (chosen !== undefined) return { ok: true, version: normalizeClusterApiVersion(chosen.version) };
  const offers = newest.map((entry) => `${normalizeKubernetesVersion(entry.version) ?? entry.version}${entry.deprecated === true ? " (deprecated)" : ""}`);
  return {
    ok: false,
    reason: "UnsupportedVersion",
    message:
      offers.length === 0
        ? `template set "${request.templateSet}" offers no Kubernetes version`
        : `template set "${request.templateSet}" offers no Kubernetes ${requested}; set kubernetes.version to one of ${offers.join(", ")}`,
  };
}
