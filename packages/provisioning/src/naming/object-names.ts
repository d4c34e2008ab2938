/**
 * Names of everything one tenant KubernetesCluster needs, on the
 * infrastructure cluster (inside `kcp-<fingerprint>`) and in OTC.
 *
 * Derived, never random: a controller that restarts mid-way must find what it
 * created. Every name carries a short hash of its full identity, so inputs
 * that read alike (namespace `a-b`, name `c` and namespace `a`, name `b-c`)
 * never share a name, and truncation to the length limits cannot make two
 * names equal (up to the 32-bit hash).
 */
import { fingerprint } from "@edgeconnect/kcp-ts/logical-cluster";
import { shortHash } from "../hashing/short-hash.js";

export interface OtcObjectNames {
  /** CCE cluster: 4–128 characters, lowercase letter first, no trailing hyphen. */
  cluster: string;
  vpc: string;
  subnet: string;
  /** Public IP and its bandwidth. */
  eip: string;
  keypair: string;
  /** CCE node pool: ≤50 characters, unique within its cluster. */
  nodePool(flavor: string, zone: string): string;
}

export interface ClusterObjectNames {
  /** The common stem of the names below. */
  base: string;
  /** Managed resources, in the tenant namespace on the infrastructure cluster. */
  vpc: string;
  subnet: string;
  eip: string;
  keypair: string;
  cluster: string;
  /** Includes a hash of (flavor, zone): falling back to another flavor or zone makes a new node pool. */
  nodePool(flavor: string, zone: string): string;
  /**
   * The Cluster API Cluster of a ClusterAPI cluster, also `${CLUSTER_NAME}` of
   * its template: at most 40 characters, so that the names Cluster API derives
   * from it (`<cluster>-<worker>-xxxxx-xxxxx-xxxxx` for machines) mostly stay
   * within 63 and need no truncation there.
   */
  clusterApiCluster: string;
  /** The Secret with the workload kubeconfig, next to the KubernetesCluster in the tenant's workspace. */
  kubeconfigSecret: string;
  /**
   * The Crossplane ProviderConfig (and its credentials Secret) the managed
   * resources of this cluster use, one per cluster and tenant ProviderConfig:
   * it lives and dies with the cluster, so deleting one cluster never pulls
   * the credentials from under another. Its name also holds the logical
   * cluster: crossplane-runtime v2.0.0 counts a namespaced ProviderConfig's
   * usages by name across all namespaces, so two tenants' ProviderConfigs
   * of one name would hold each other in use, and the namespace of a tenant
   * that deleted its cluster would hang in Terminating: the tenant's
   * fingerprint is part of the name, not only of its 32-bit hash.
   */
  providerConfig(providerConfigNamespace: string, providerConfigName: string): string;
  /** Named like the ProviderConfig it serves. */
  credentialsSecret(providerConfigNamespace: string, providerConfigName: string): string;
  otc: OtcObjectNames;
}

const MAX_LABEL = 63;
const MAX_SUBDOMAIN = 253;
const MAX_OTC_NODE_POOL = 50;
const MAX_CLUSTER_API_CLUSTER = 40;
const HASH_CHARS = 8;
/** Room for the longest suffix, `-np-<hash>`. */
const MAX_BASE = MAX_LABEL - `-np-`.length - HASH_CHARS;

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The names for KubernetesCluster `name` in tenant namespace `tenantNamespace`.
 * `cluster` (the logical cluster) goes into the OTC names and the
 * ProviderConfig's: inside `kcp-<fingerprint>` the tenant is already fixed,
 * but one OTC project may serve several workspaces (CCE cluster and key pair
 * names are unique per project), and Crossplane counts ProviderConfig
 * usages by name across namespaces. Throws for a namespace or name the API server would not
 * have accepted.
 */
export function clusterObjectNames(tenantNamespace: string, name: string, cluster?: string): ClusterObjectNames {
  if (!isDnsLabel(tenantNamespace)) throw new TypeError(`namespace ${JSON.stringify(tenantNamespace)} is not a DNS-1123 label`);
  if (!isDnsSubdomain(name)) throw new TypeError(`name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  const base = stem(`${tenantNamespace}-${name}`, ["cluster", tenantNamespace, name], MAX_BASE);
  // With the tenant's fingerprint in it, two tenants' names can never meet (a shared fingerprint cannot get two namespaces).
  const tenant = cluster === undefined ? "" : `${fingerprint(cluster)}-`;
  const providerConfig = (providerConfigNamespace: string, providerConfigName: string): string =>
    `${stem(`${tenantNamespace}-${name}`, ["cluster", tenantNamespace, name], MAX_LABEL - "-pc-".length - tenant.length - HASH_CHARS)}-pc-${tenant}${shortHash(
      ["providerconfig", cluster ?? "", providerConfigNamespace, providerConfigName],
      HASH_CHARS,
    )}`;
  return {
    base,
    vpc: `${base}-vpc`,
    subnet: `${base}-subnet`,
    eip: `${base}-eip`,
    keypair: `${base}-keypair`,
    cluster: `${base}-cluster`,
    nodePool: (flavor, zone) => `${base}-np-${flavorZoneHash(flavor, zone)}`,
    clusterApiCluster: stem(`${tenantNamespace}-${name}`, ["clusterapi", tenantNamespace, name], MAX_CLUSTER_API_CLUSTER),
    kubeconfigSecret: kubeconfigSecretName(name),
    providerConfig,
    credentialsSecret: providerConfig,
    otc: otcObjectNames(tenantNamespace, name, cluster),
  };
}

function otcObjectNames(tenantNamespace: string, name: string, cluster: string | undefined): OtcObjectNames {
  const base = letterFirst(stem(`${tenantNamespace}-${name}`, ["otc", cluster ?? "", tenantNamespace, name], MAX_LABEL - "-keypair".length - "ec-".length));
  return {
    cluster: base,
    vpc: `${base}-vpc`,
    subnet: `${base}-subnet`,
    eip: `${base}-eip`,
    keypair: `${base}-keypair`,
    nodePool: (flavor, zone) =>
      letterFirst(`${readable(`${flavor}-${zone}`, MAX_OTC_NODE_POOL - HASH_CHARS - 1 - "ec-".length)}-${flavorZoneHash(flavor, zone)}`.replace(/^-/, "")),
  };
}

/** `<name>-kubeconfig`, or for a name too long for that a truncated name with a hash. */
export function kubeconfigSecretName(name: string): string {
  const suffix = "-kubeconfig";
  if (name.length + suffix.length <= MAX_SUBDOMAIN) return `${name}${suffix}`;
  const prefix = name.slice(0, MAX_SUBDOMAIN - suffix.length - HASH_CHARS - 1).replace(/[-.]+$/, "");
  const secret = `${prefix}-${shortHash(["kubeconfig", name], HASH_CHARS)}${suffix}`;
  if (!isDnsSubdomain(secret)) throw new TypeError(`cannot derive a Secret name from ${JSON.stringify(name)}`);
  return secret;
}

function flavorZoneHash(flavor: string, zone: string): string {
  return shortHash(["nodepool", flavor, zone], HASH_CHARS);
}

/** `<readable part of text, ≤ max − 9>-<hash of identity>`. */
function stem(text: string, identity: readonly string[], max: number): string {
  const hash = shortHash(identity, HASH_CHARS);
  const prefix = readable(text, max - HASH_CHARS - 1);
  return prefix === "" ? hash : `${prefix}-${hash}`;
}

/** `text` lowercased, with every character outside `[a-z0-9-]` a hyphen, cut to `max` and trimmed of hyphens. */
function readable(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, max)
    .replace(/^-+|-+$/g, "");
}

/** OTC names (CCE clusters, node pools) must start with a letter; a namespace may start with a digit. */
function letterFirst(name: string): string {
  return /^[a-z]/.test(name) ? name : `ec-${name}`;
}

export function isDnsLabel(value: string): boolean {
  return value.length <= MAX_LABEL && DNS_LABEL.test(value);
}

export function isDnsSubdomain(value: string): boolean {
  return value.length <= MAX_SUBDOMAIN && DNS_SUBDOMAIN.test(value);
}
