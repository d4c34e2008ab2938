/**
 * The tenant's kubeconfig from the answer of CCE's `clustercert` call, which
 * is kubeconfig-shaped JSON with up to three clusters (`internalCluster`;
 * while an EIP is bound also `externalCluster`, which skips TLS
 * verification, and `externalClusterTLSVerify`) and one user `user`.
 *
 * The result has exactly one cluster, user and context, all named after the
 * tenant's cluster, so merging it into another kubeconfig does not clash
 * with other CCE clusters' `internalCluster`/`user`. Messages never quote
 * the input: it holds a private key.
 */
import { stringify } from "yaml";

/** Preferred first: verified TLS over the public endpoint, then the public endpoint, then the VPC-internal one. */
export const CLUSTER_PREFERENCE = ["externalClusterTLSVerify", "externalCluster", "internalCluster"] as const;
const USER = "user";

export type KubeconfigResult = { ok: true; kubeconfig: string; server: string } | { ok: false; message: string };

export function kubeconfigFromClusterCert(cert: unknown, contextName: string): KubeconfigResult {
  const clusters = namedEntries(cert, "clusters", "cluster");
  const users = namedEntries(cert, "users", "user");
  const chosen = CLUSTER_PREFERENCE.map((name) => clusters.get(name)).find((cluster) => cluster !== undefined);
  if (chosen === undefined) return { ok: false, message: `the cluster certificate names none of the clusters ${CLUSTER_PREFERENCE.join(", ")}` };
  const server = chosen["server"];
  if (typeof server !== "string" || !isHttpsUrl(server)) return { ok: false, message: "the cluster certificate's cluster has no https server URL" };
  const user = users.get(USER);
  if (user === undefined) return { ok: false, message: `the cluster certificate has no user "${USER}"` };
  for (const field of ["client-certificate-data", "client-key-data"]) {
    if (typeof user[field] !== "string" || user[field] === "") return { ok: false, message: `the cluster certificate's user lacks ${field}` };
  }
  const caData = chosen["certificate-authority-data"];
  const cluster: Record<string, unknown> = {
    server,
    ...(typeof caData === "string" && caData !== "" ? { "certificate-authority-data": caData } : {}),
    ...(chosen["insecure-skip-tls-verify"] === true ? { "insecure-skip-tls-verify": true } : {}),
  };
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name: contextName, cluster }],
    users: [{ name: contextName, user: { "client-certificate-data": user["client-certificate-data"], "client-key-data": user["client-key-data"] } }],
    contexts: [{ name: contextName, context: { cluster: contextName, user: contextName } }],
    "current-context": contextName,
  };
  return { ok: true, kubeconfig: stringify(kubeconfig), server };
}

/** `{name, <field>: {...}}` entries of the list `list`, by name; anything not of that shape is skipped. */
function namedEntries(config: unknown, list: string, field: string): Map<string, Record<string, unknown>> {
  const entries = new Map<string, Record<string, unknown>>();
  const items = isRecord(config) ? config[list] : undefined;
  if (!Array.isArray(items)) return entries;
  for (const item of items as unknown[]) {
    if (!isRecord(item) || typeof item["name"] !== "string") continue;
    const body = item[field];
    if (isRecord(body) && !entries.has(item["name"])) entries.set(item["name"], body);
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}
