/**
 * Where a Cluster API v1beta2 Cluster stands, from its status.
 *
 * `Available` is Cluster API's own summary (infrastructure, control plane,
 * workers, remote connection and topology), so it alone decides Ready; the
 * conditions it summarizes only explain why a cluster is not there yet.
 *
 * Messages are Cluster API's condition messages as they are. They can name
 * hosts, objects and provider errors; provisioning does not depend on
 * `@edgeconnect/redaction`, so the caller scrubs them before showing them.
 */

export type ClusterApiState = "Provisioning" | "Ready" | "Failed" | "Deleting";

export interface ClusterApiCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** The fields of a Cluster read here. */
export interface ObservedClusterApiCluster {
  metadata?: { generation?: number; deletionTimestamp?: string };
  spec?: { controlPlaneEndpoint?: { host?: string; port?: number } };
  status?: {
    phase?: string;
    observedGeneration?: number;
    conditions?: readonly ClusterApiCondition[];
    deprecated?: { v1beta1?: { failureReason?: string; failureMessage?: string } };
  };
}

export interface ClusterApiReadiness {
  state: ClusterApiState;
  /** CamelCase. */
  reason: string;
  message: string;
  /** `https://host:port`, once `spec.controlPlaneEndpoint` has both (Cluster API deems an endpoint without port unset). */
  apiServerEndpoint?: string;
}

/** The conditions `Available` summarizes, in the order a cluster gets through them. */
export const CLUSTER_API_PROGRESS_CONDITIONS: readonly string[] = ["InfrastructureReady", "ControlPlaneAvailable", "WorkersAvailable", "RemoteConnectionProbe", "TopologyReconciled"];

const AVAILABLE = "Available";
const DELETING = "Deleting";

export function clusterApiReadiness(cluster: ObservedClusterApiCluster): ClusterApiReadiness {
  const endpoint = apiServerEndpoint(cluster.spec?.controlPlaneEndpoint);
  const readiness = (state: ClusterApiState, reason: string, message: string): ClusterApiReadiness => ({
    state,
    reason,
    message,
    ...(endpoint === undefined ? {} : { apiServerEndpoint: endpoint }),
  });
  const status = cluster.status;
  const conditions = status?.conditions ?? [];
  const find = (type: string): ClusterApiCondition | undefined => conditions.find((condition) => condition.type === type);

  if (cluster.metadata?.deletionTimestamp !== undefined) return readiness("Deleting", "Deleting", nonEmpty(find(DELETING)?.message) ?? "the Cluster is being deleted");

  // Cluster API no longer sets this phase itself; it remains for v1beta1 failureReason/failureMessage, converted.
  if (status?.phase === "Failed") {
    const failure = status.deprecated?.v1beta1;
    return readiness("Failed", nonEmpty(failure?.failureReason) ?? "Failed", nonEmpty(failure?.failureMessage) ?? "Cluster API reports the Cluster as Failed");
  }

  const available = find(AVAILABLE);
  const generation = cluster.metadata?.generation;
  const observed = available?.observedGeneration ?? status?.observedGeneration;
  const current = generation === undefined || observed === undefined || observed >= generation;
  if (available?.status === "True" && current) return readiness("Ready", nonEmpty(available.reason) ?? AVAILABLE, nonEmpty(available.message) ?? "the Cluster is available");

  if (conditions.length === 0) return readiness("Provisioning", "WaitingForClusterApi", "waiting for Cluster API");
  const blocking = CLUSTER_API_PROGRESS_CONDITIONS.map(find).find((condition) => condition?.status === "False");
  if (blocking !== undefined) return readiness("Provisioning", nonEmpty(blocking.reason) ?? `${blocking.type}False`, nonEmpty(blocking.message) ?? `${blocking.type} is False`);
  if (available?.status === "True") return readiness("Provisioning", "Reconciling", "waiting for Cluster API to act on the latest change of the Cluster");
  return readiness("Provisioning", nonEmpty(available?.reason) ?? "NotAvailable", nonEmpty(available?.message) ?? "waiting for the Cluster to become available");
}

function apiServerEndpoint(endpoint: { host?: string; port?: number } | undefined): string | undefined {
  const host = endpoint?.host;
  const port = endpoint?.port;
  if (host === undefined || host === "" || port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return `https://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === "" ? undefined : text;
}
