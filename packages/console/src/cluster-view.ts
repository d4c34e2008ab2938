/**
 * A KubernetesCluster as the console shows it: its row in the tenants
 * table, its conditions, its Events. Pure functions over what kcp answered.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { ClusterRow, ConditionView, EventView } from "./view-model.js";

export type Cluster = KubernetesCluster & KubeObject;

interface RawCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

export function conditionView(condition: RawCondition): ConditionView {
  return {
    type: condition.type,
    status: condition.status,
    reason: condition.reason ?? "",
    message: condition.message ?? "",
    ...(condition.lastTransitionTime === undefined ? {} : { since: condition.lastTransitionTime }),
  };
}

export function conditionsOf(kc: Cluster): ConditionView[] {
  return (kc.status?.conditions ?? []).map(conditionView);
}

export function readyOf(kc: Cluster): ConditionView | undefined {
  const ready = kc.status?.conditions?.find((c) => c.type === "Ready");
  return ready === undefined ? undefined : conditionView(ready);
}

/** The row of `kc` under `tenant` (its key in links). A cluster being deleted is Deleting whatever its status says yet. */
export function clusterRow(tenant: string, kc: Cluster): ClusterRow {
  const meta = kc.metadata ?? {};
  const ready = readyOf(kc);
  const flavor = kc.status?.flavor?.name;
  const version = kc.spec?.kubernetes?.version;
  return {
    tenant,
    namespace: meta.namespace ?? "",
    name: meta.name ?? "",
    phase: meta.deletionTimestamp !== undefined ? "Deleting" : (kc.status?.phase ?? "Pending"),
    provider: kc.spec?.providerRef?.type ?? "OTC",
    ...(flavor === undefined ? {} : { flavor }),
    ...(version === undefined ? {} : { version }),
    ...(kc.spec?.nodeCount === undefined ? {} : { nodeCount: kc.spec.nodeCount }),
    ...(meta.creationTimestamp === undefined ? {} : { createdAt: meta.creationTimestamp }),
    ...(meta.deletionTimestamp === undefined ? {} : { deletingSince: meta.deletionTimestamp }),
    ...(ready === undefined ? {} : { ready }),
  };
}

/** Rows sorted by namespace and name, so that a live update does not reorder the table. */
export function sortRows(rows: readonly ClusterRow[]): ClusterRow[] {
  return [...rows].sort((a, b) => a.tenant.localeCompare(b.tenant) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

export interface CoreEvent extends KubeObject {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly series?: { readonly count?: number; readonly lastObservedTime?: string };
  readonly lastTimestamp?: string;
  readonly eventTime?: string;
  readonly involvedObject?: { readonly uid?: string; readonly kind?: string; readonly name?: string };
}

/** At most this many Events are shown, newest first: a flapping cluster has many. */
export const MAX_EVENTS = 50;

/** The Events of the object with `uid`, newest first. */
export function eventsOf(events: readonly CoreEvent[], uid: string | undefined): EventView[] {
  return events
    .filter((event) => uid === undefined || event.involvedObject?.uid === uid)
    .map((event) => {
      const last = event.series?.lastObservedTime ?? event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp;
      return {
        type: event.type ?? "Normal",
        reason: event.reason ?? "",
        message: event.message ?? "",
        count: event.series?.count ?? event.count ?? 1,
        ...(last === undefined ? {} : { last }),
      };
    })
    .sort((a, b) => (b.last ?? "").localeCompare(a.last ?? ""))
    .slice(0, MAX_EVENTS);
}
