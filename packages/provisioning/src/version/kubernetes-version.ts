/**
 * CCE Kubernetes version strings: `vX.Y[.Z][-rN]` (`v1.30`, `v1.30.0`,
 * `v1.30.0-r0` all create 1.30). Tenants may omit the `v`; CCE wants it, and
 * comparisons must not see `1.31` and `v1.31` as different versions.
 */

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-r(\d+))?$/;

/** `vX.Y[.Z][-rN]` with a leading `v` and no leading zeros, or undefined when `version` is not of that form. */
export function normalizeKubernetesVersion(version: string): string | undefined {
  const parts = versionParts(version);
  if (parts === undefined) return undefined;
  const [major, minor, patch, revision] = parts;
  return `v${major}.${minor}${patch === undefined ? "" : `.${patch}`}${revision === undefined ? "" : `-r${revision}`}`;
}

/**
 * Whether two versions name the same release as far as both say: CCE reports
 * the patch it installed (`v1.31.10-r12`) for a cluster ordered as `v1.31`,
 * which is no change. Versions that are not of the CCE form are equal only
 * when they are the same string.
 */
export function sameKubernetesVersion(a: string, b: string): boolean {
  const left = versionParts(a);
  const right = versionParts(b);
  if (left === undefined || right === undefined) return a === b;
  return left.every((part, i) => part === undefined || right[i] === undefined || part === right[i]);
}

/**
 * Orders versions newest first (major, minor, patch, revision, a missing
 * part below any given one); versions that are not of the CCE form sort
 * last, as written.
 */
export function newerKubernetesVersionFirst(a: string, b: string): number {
  const left = versionParts(a);
  const right = versionParts(b);
  if (left === undefined || right === undefined) return left !== undefined ? -1 : right !== undefined ? 1 : a.localeCompare(b);
  for (let i = 0; i < left.length; i++) {
    const diff = (right[i] ?? -1) - (left[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

function versionParts(version: string): [number, number, number | undefined, number | undefined] | undefined {
  const match = VERSION.exec(version.trim());
  if (match === null) return undefined;
  const [, major, minor, patch, revision] = match;
  const number = (digits: string | undefined): number | undefined => (digits === undefined ? undefined : Number.parseInt(digits, 10));
  return [Number.parseInt(major ?? "", 10), Number.parseInt(minor ?? "", 10), number(patch), number(revision)];
}
