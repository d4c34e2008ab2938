/**
 * What needs the platform team, from what the platform view already read:
 * clusters whose credentials IAM rejected (or that cannot be used at all),
 * failed clusters, clusters not
 * Ready (teardowns included) for longer than `stuckAfterMs`, SoldOut node
 * pools by flavor and zone, and orphaned infrastructure (the orphan audit's
 * metric, and tenant namespaces whose workspace shows no cluster).
 */
import { CONDITION, isSoldOut, LOGICAL_CLUSTER_ANNOTATION, REASON, type ObservedManagedResource } from "@edgeconnect/provisioning";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { Cluster } from "./cluster-view.js";
import type { AttentionItem } from "./view-model.js";

export interface AttentionInput {
  /** Clusters by tenant key (logical cluster). */
  readonly clusters: readonly { readonly tenant: string; readonly kc: Cluster }[];
  /** Node pools of those clusters on the infrastructure cluster. */
  readonly nodePools: readonly ObservedManagedResource[];
  /** The tenant namespaces (`kcp-*`) on the infrastructure cluster. */
  readonly tenantNamespaces: readonly KubeObject[];
  /** edgeconnect_orphaned_infrastructure summed over the scraped replicas. */
  readonly orphanedByAudit: number;
  readonly stuckAfterMs: number;
  readonly now: number;
}

export function needsAttention(input: AttentionInput): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const { tenant, kc } of input.clusters) {
    const where = { tenant, namespace: kc.metadata?.namespace ?? "", name: kc.metadata?.name ?? "" };
    const conditions = kc.status?.conditions ?? [];
    const credentials = conditions.find((c) => c.type === CONDITION.CredentialsValid);
    const ready = conditions.find((c) => c.type === CONDITION.Ready);
    if (credentials?.status === "False" && (credentials.reason === REASON.CredentialsRejected || credentials.reason === REASON.InvalidCredentials)) {
      items.push({ kind: "credentials-rejected", message: credentials.message ?? "", ...where, ...since(credentials.lastTransitionTime) });
    } else if (kc.status?.phase === "Failed" && kc.metadata?.deletionTimestamp === undefined) {
      items.push({ kind: "failed", message: `${ready?.reason ?? "Failed"}: ${ready?.message ?? ""}`, ...where, ...since(ready?.lastTransitionTime) });
    } else if (ready?.status !== "True") {
      const from = kc.metadata?.deletionTimestamp ?? ready?.lastTransitionTime ?? kc.metadata?.creationTimestamp;
      const waited = from === undefined ? 0 : input.now - Date.parse(from);
      if (waited > input.stuckAfterMs) {
        const what = kc.metadata?.deletionTimestamp === undefined ? "not Ready" : "teardown not finished";
        items.push({ kind: "stuck", message: `${what} for ${minutes(waited)}: ${ready?.reason ?? ""} ${ready?.message ?? ""}`.trim(), ...where, ...since(from) });
      }
    }
  }

  const soldOut = new Map<string, number>();
  for (const pool of input.nodePools) {
    if (!isSoldOut(pool)) continue;
    const forProvider = (pool as { spec?: { forProvider?: { flavor?: string; availabilityZone?: string } } }).spec?.forProvider;
    const key = `${forProvider?.flavor ?? "?"} in ${forProvider?.availabilityZone ?? "?"}`;
    soldOut.set(key, (soldOut.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...soldOut].sort()) items.push({ kind: "sold-out", message: `${key}: SoldOut for ${count} node pool(s)` });

  if (input.orphanedByAudit > 0) items.push({ kind: "orphaned", message: `the orphan audit reports ${input.orphanedByAudit} object(s) whose KubernetesCluster is gone` });
  const tenants = new Set(input.clusters.map(({ tenant }) => tenant));
  for (const namespace of input.tenantNamespaces) {
    const cluster = namespace.metadata?.annotations?.[LOGICAL_CLUSTER_ANNOTATION];
    if (cluster === undefined || tenants.has(cluster) || namespace.metadata?.deletionTimestamp !== undefined) continue;
    items.push({ kind: "orphaned", message: `namespace ${namespace.metadata?.name ?? "?"} belongs to workspace ${cluster}, which has no KubernetesCluster`, tenant: cluster });
  }
  return items;
}

function since(at: string | undefined): { since?: string } {
  return at === undefined ? {} : { since: at };
}

function minutes(ms: number): string {
  const total = Math.floor(ms / 60_000);
  return total >= 120 ? `${Math.floor(total / 60)} h` : `${total} min`;
}
