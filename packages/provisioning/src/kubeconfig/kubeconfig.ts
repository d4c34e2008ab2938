/**
 * The tenant's kubeconfig, from the answer of CCE's `clustercert` call (OTC)
 * or from the admin kubeconfig Cluster API writes for a cluster (ClusterAPI).
 * CCE's is kubeconfig-shaped JSON with up to three clusters
 * (`internalCluster`; while an EIP is bound also `externalCluster`, which
 * skips TLS verification, and `externalClusterTLSVerify`) and one user
 * `user`; Cluster API's is a kubeconfig whose current context names the
 * cluster and its admin user.
 *
 * The result has exactly one cluster, user and context, all named after the
 * tenant's cluster, so merging it into another kubeconfig does not clash
 * with other clusters' `internalCluster`/`user` or show the infrastructure's
 * name for the cluster. It never skips TLS verification: a tenant's
 * kubeconfig that does would hand its client key to whoever sits between the
 * tenant and the endpoint. Messages never quote the input: it holds a private
 * key.
 */
import { parse, stringify } from "yaml";

/** Preferred first: verified TLS over the public endpoint, then the public endpoint (verified with another cluster's CA), then the VPC-internal one. */
export const CLUSTER_PREFERENCE = ["externalClusterTLSVerify", "externalCluster", "internalCluster"] as const;
const USER = "user";

export type KubeconfigResult = { ok: true; kubeconfig: string; server: string } | { ok: false; message: string };

export function kubeconfigFromClusterCert(cert: unknown, contextName: string): KubeconfigResult {
  const clusters = namedEntries(cert, "clusters", "cluster");
  const users = namedEntries(cert, "users", "user");
  const chosenName = CLUSTER_PREFERENCE.find((name) => clusters.has(name));
  const chosen = chosenName === undefined ? undefined : clusters.get(chosenName);
  if (chosen === undefined) return { ok: false, message: `the cluster certificate names none of the clusters ${CLUSTER_PREFERENCE.join(", ")}` };
  const server = chosen["server"];
  if (typeof server !== "string" || !isHttpsUrl(server)) return { ok: false, message: "the cluster certificate's cluster has no https server URL" };
  const user = users.get(USER);
  if (user === undefined) return { ok: false, message: `the cluster certificate has no user "${USER}"` };
  for (const field of ["client-certificate-data", "client-key-data"]) {
    if (typeof user[field] !== "string" || user[field] === "") return { ok: false, message: `the cluster certificate's user lacks ${field}` };
  }
  // The clusters of one answer are endpoints of one API server with one CA; `externalCluster` just leaves it out.
  const caData = caDataOf(chosen) ?? [...clusters.values()].map(caDataOf).find((data) => data !== undefined);
  if (caData === undefined) {
    const problem = chosen["insecure-skip-tls-verify"] === true ? "skips TLS verification" : "has no certificate-authority-data";
    return { ok: false, message: `the cluster certificate's cluster "${chosenName}" ${problem} and none of its other clusters has certificate-authority-data to verify it with` };
  }
  return singleContext(contextName, server, { "certificate-authority-data": caData }, { "client-certificate-data": user["client-certificate-data"], "client-key-data": user["client-key-data"] });
}

/**
 * The cluster and user of `text`'s current context, renamed: the user's
 * credentials whatever their kind (client certificate, token), the
 * cluster's server, CA and TLS settings except a skip of TLS verification.
 */
export function kubeconfigForTenant(text: string, contextName: string): KubeconfigResult {
  let config: unknown;
  try {
    config = parse(text);
  } catch {
    return { ok: false, message: "the kubeconfig is no YAML" };
  }
  const current = isRecord(config) ? config["current-context"] : undefined;
  const context = typeof current === "string" ? namedEntries(config, "contexts", "context").get(current) : undefined;
  if (context === undefined) return { ok: false, message: "the kubeconfig has no current context" };
  const cluster = typeof context["cluster"] === "string" ? namedEntries(config, "clusters", "cluster").get(context["cluster"]) : undefined;
  const user = typeof context["user"] === "string" ? namedEntries(config, "users", "user").get(context["user"]) : undefined;
  const server = cluster?.["server"];
  if (cluster === undefined || typeof server !== "string" || !isHttpsUrl(server)) return { ok: false, message: "the kubeconfig's cluster has no https server URL" };
  if (user === undefined || Object.keys(user).length === 0) return { ok: false, message: "the kubeconfig's context has no user credentials" };
  const { "insecure-skip-tls-verify": insecure, ...verified } = cluster;
  if (insecure === true && caDataOf(verified) === undefined) return { ok: false, message: "the kubeconfig's cluster skips TLS verification and has no certificate-authority-data to verify it with" };
  return singleContext(contextName, server, verified, user);
}

function singleContext(contextName: string, server: string, cluster: Record<string, unknown>, user: Record<string, unknown>): KubeconfigResult {
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name: contextName, cluster: { server, ...cluster } }],
    users: [{ name: contextName, user }],
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

function caDataOf(cluster: Record<string, unknown>): string | undefined {
  const data = cluster["certificate-authority-data"];
  return typeof data === "string" && data !== "" ? data : undefined;
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
