/**
 * Tenancy on the infrastructure cluster: each logical cluster (tenant
 * workspace) gets one namespace `kcp-<fingerprint>`, and every object we
 * create there is labelled with the tenant and the tenant object it serves.
 *
 * The fingerprint is 48 bits of a hash, so two logical clusters can in
 * principle share one; the namespace therefore carries the full logical
 * cluster name in an annotation, and `namespaceOwner` tells our namespace
 * from another tenant's before anything is written into it.
 */
import { fingerprint } from "@edgeconnect/kcp-ts/logical-cluster";
import { shortHash } from "../hashing/short-hash.js";

/** The tenant's fingerprint (`fingerprint(cluster)`), for selecting everything of one tenant. */
export const TENANT_LABEL = "platform.edgeconnect.eu/tenant";
/** The full logical cluster name; an annotation because `root:org:ws` is no valid label value. */
export const LOGICAL_CLUSTER_ANNOTATION = "platform.edgeconnect.eu/logical-cluster";
/** Namespace, name and uid of the tenant object an infrastructure object serves. */
export const NAMESPACE_LABEL = "platform.edgeconnect.eu/namespace";
export const NAME_LABEL = "platform.edgeconnect.eu/name";
export const UID_LABEL = "platform.edgeconnect.eu/uid";
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "provider-controller";

/** Prefix of every tenant namespace on the infrastructure cluster. */
export const TENANT_NAMESPACE_PREFIX = "kcp-";

export interface TenantNamespace {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The infrastructure namespace of logical cluster `cluster`, with the labels and annotations it is created with. */
export function tenantNamespace(cluster: string): TenantNamespace {
  const tenant = fingerprint(cluster);
  return {
    name: `${TENANT_NAMESPACE_PREFIX}${tenant}`,
    labels: { [TENANT_LABEL]: tenant, [MANAGED_BY_LABEL]: MANAGED_BY },
    annotations: { [LOGICAL_CLUSTER_ANNOTATION]: cluster },
  };
}

export type NamespaceOwner = "ours" | "foreign" | "unclaimed";

/**
 * Who an existing `kcp-<fingerprint>` namespace belongs to: `ours` when it
 * is annotated with `cluster`; `foreign` when it is annotated with another
 * logical cluster (a fingerprint collision: never write into it);
 * `unclaimed` when it exists without the annotation (created by hand, or by
 * a run that died before annotating it).
 */
export function namespaceOwner(namespace: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } }, cluster: string): NamespaceOwner {
  const claimed = namespace.metadata?.annotations?.[LOGICAL_CLUSTER_ANNOTATION];
  if (claimed === undefined) return "unclaimed";
  return claimed === cluster ? "ours" : "foreign";
}

/** The tenant object an infrastructure object serves. */
export interface Owner {
  /** Logical cluster name. */
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
}

/**
 * Labels that tie an infrastructure object to its tenant object. Values that
 * are no valid label value (a name longer than 63 characters) are replaced
 * by `labelValue`; `ownerAnnotations` keeps the full ones.
 */
export function ownerLabels(owner: Owner): Record<string, string> {
  return {
    [TENANT_LABEL]: fingerprint(owner.cluster),
    [NAMESPACE_LABEL]: labelValue(owner.namespace),
    [NAME_LABEL]: labelValue(owner.name),
    [UID_LABEL]: labelValue(owner.uid),
    [MANAGED_BY_LABEL]: MANAGED_BY,
  };
}

/** The full logical cluster name, and the full value of every owner label that `labelValue` had to shorten. */
export function ownerAnnotations(owner: Owner): Record<string, string> {
  const annotations: Record<string, string> = { [LOGICAL_CLUSTER_ANNOTATION]: owner.cluster };
  for (const [key, value] of [
    [NAMESPACE_LABEL, owner.namespace],
    [NAME_LABEL, owner.name],
    [UID_LABEL, owner.uid],
  ] as const) {
    if (labelValue(value) !== value) annotations[key] = value;
  }
  return annotations;
}

const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const MAX_LABEL_VALUE = 63;
const HASH_CHARS = 8;

/** Whether `value` may be a label value: empty, or ≤63 characters of `[A-Za-z0-9-_.]` starting and ending alphanumeric. */
export function isLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL_VALUE && LABEL_VALUE.test(value);
}

/**
 * `value` itself when it is a valid label value; otherwise a readable prefix
 * of it (invalid characters replaced by `-`) and 8 hex characters of its
 * hash. Deterministic, so selectors can be computed from the full value;
 * a shortened value can equal another object's, so readers that must be
 * exact compare the annotation too.
 */
export function labelValue(value: string): string {
  if (isLabelValue(value)) return value;
  const prefix = value
    .replace(/[^-A-Za-z0-9_.]/g, "-")
    .slice(0, MAX_LABEL_VALUE - HASH_CHARS - 1)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  const hash = shortHash([value], HASH_CHARS);
  return prefix === "" ? hash : `${prefix}-${hash}`;
}
