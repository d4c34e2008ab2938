/**
 * The views the page shows, built per signed-in user: kcp is asked with the
 * user's token (UserSession), the infrastructure cluster with the console's
 * own identity but only for clusters that answer returned.
 */
import { clusterOf } from "@edgeconnect/kcp-ts";
import { needsAttention } from "./attention.js";
import { clusterRow, conditionsOf, eventsOf, readyOf, sortRows } from "./cluster-view.js";
import { controllerHealth } from "./controller-health.js";
import { describeInfraFailure, type InfrastructureReader } from "./infrastructure-reader.js";
import { infrastructureTree } from "./infrastructure-tree.js";
import type { MetricsScraper } from "./metrics-scraper.js";
import { describeFailure, type TenantCluster, type UserSession } from "./user-session.js";
import type { ClusterDetail, LiveView, Overview, TenantView } from "./view-model.js";

export interface ViewSources {
  readonly infra: InfrastructureReader;
  readonly scraper: MetricsScraper;
  readonly leaseName: string;
  readonly stuckAfterMs: number;
}

export interface ClusterRef {
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
}

export async function overview(session: UserSession, sources: ViewSources): Promise<Overview> {
  const viewer = session.viewer;
  const problems: string[] = [];
  let clusters: TenantCluster[] = [];
  try {
    clusters = await session.listClusters();
  } catch (err) {
    problems.push(`clusters: ${describeFailure(err)}`);
  }
  const byTenant = new Map<string, TenantView["clusters"][number][]>();
  for (const { tenant, kc } of clusters) byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), clusterRow(tenant, kc)]);
  const tenants = [...byTenant].sort(([a], [b]) => a.localeCompare(b)).map(([tenant, rows]) => ({ tenant, clusters: sortRows(rows) }));
  if (viewer.kind === "tenant") return { viewer, tenants, problems };

  const uids = new Set(clusters.flatMap(({ kc }) => (kc.metadata?.uid === undefined ? [] : [kc.metadata.uid])));
  const [nodePools, namespaces, scrapes, leases] = await Promise.all([
    sources.infra.nodePoolsOf(uids).catch((err: unknown) => (problems.push(`node pools: ${describeInfraFailure(err)}`), [])),
    sources.infra.tenantNamespaces().catch((err: unknown) => (problems.push(`tenant namespaces: ${describeInfraFailure(err)}`), [])),
    sources.scraper.scrapes(),
    session.controllerLeases().catch((err: unknown) => ({ error: describeFailure(err) })),
  ]);
  const health = controllerHealth({ scrapes, leases, leaseName: sources.leaseName, tenants: tenants.map(({ tenant }) => tenant), now: Date.now() });
  const attention = needsAttention({
    clusters,
    nodePools,
    // Until the clusters are read, every namespace would look orphaned.
    tenantNamespaces: problems.some((p) => p.startsWith("clusters:")) ? [] : namespaces,
    orphanedByAudit: health.scrapes.reduce((sum, scrape) => sum + scrape.orphaned, 0),
    stuckAfterMs: sources.stuckAfterMs,
    now: Date.now(),
  });
  return { viewer, tenants, attention, health, problems };
}

/** One cluster with its conditions, Events and tree; undefined when the user's identity finds no such cluster. */
export async function clusterDetail(session: UserSession, sources: ViewSources, ref: ClusterRef): Promise<ClusterDetail | undefined> {
  const kc = await session.readCluster(ref.tenant, ref.namespace, ref.name);
  if (kc === undefined) return undefined;
  const tenant = session.viewer.kind === "tenant" ? session.viewer.workspace : ref.tenant;
  const logicalCluster = clusterOf(kc);
  const [events, infra] = await Promise.all([
    session.events(tenant, ref.namespace, ref.name).then(
      (items) => ({ events: eventsOf(items, kc.metadata?.uid) }),
      (err: unknown) => ({ events: [], eventsError: describeFailure(err) }),
    ),
    logicalCluster === undefined ? undefined : sources.infra.objectsOf(kc, logicalCluster),
  ]);
  const tree = infrastructureTree(
    kc,
    infra ?? { namespaceName: "", namespace: undefined, managed: [], clusterApi: [], error: "kcp did not say which workspace the cluster is in" },
    session.viewer.kind,
  );
  const deletionTimestamp = kc.metadata?.deletionTimestamp;
  return {
    cluster: clusterRow(tenant, kc),
    conditions: conditionsOf(kc),
    ...events,
    tree,
    ...(deletionTimestamp === undefined ? {} : { teardown: { since: deletionTimestamp, waitingFor: readyOf(kc)?.message ?? "" } }),
  };
}

export async function liveView(session: UserSession, sources: ViewSources, ref: ClusterRef | undefined): Promise<LiveView> {
  const [view, detail] = await Promise.all([
    overview(session, sources),
    ref === undefined
      ? undefined
      : clusterDetail(session, sources, ref).then(
          (found) => found ?? "no such cluster is visible to you",
          (err: unknown) => describeFailure(err),
        ),
  ]);
  if (detail === undefined) return { overview: view };
  return typeof detail === "string" ? { overview: view, detailError: detail } : { overview: view, detail };
}
