/**
 * The provider-controller's health as the platform team reads it: per
 * scraped replica its queue depths, reconcile totals and rates, and the
 * per-tenant queue counts the runtime exports (its bounded `tenant` label,
 * a fingerprint or "other"); and from the Leases in the provider workspace
 * which replica leads, or which slots each holds when sharded, with the
 * tenants that makes its own (runtime's slotOf over the tenant's
 * fingerprint).
 */
import { fingerprint } from "@edgeconnect/kcp-ts";
import { SHARD_GROUP_LABEL, slotOf, type Lease } from "@edgeconnect/runtime";
import { sumBy, sumOf, type Sample } from "./prometheus-text.js";
import type { ControllerHealth, ReplicaView, ScrapeView } from "./view-model.js";

export interface Scrape {
  readonly url: string;
  readonly at: number;
  readonly samples?: readonly Sample[];
  readonly error?: string;
}

export interface HealthInput {
  /** This scrape of each URL and the one before it (for rates). */
  readonly scrapes: readonly { readonly current: Scrape; readonly previous?: Scrape }[];
  readonly leases: readonly Lease[] | { readonly error: string };
  readonly leaseName: string;
  /** The tenants (logical clusters) in the platform view. */
  readonly tenants: readonly string[];
  readonly now: number;
}

/** Per-tenant rows shown per replica: the runtime labels at most 20 tenants plus "other" anyway. */
const MAX_TENANT_ROWS = 25;

export function controllerHealth(input: HealthInput): ControllerHealth {
  const names = new Map(input.tenants.map((tenant) => [fingerprint(tenant), tenant]));
  const scrapes = input.scrapes.map(({ current, previous }) => scrapeView(current, previous, names));
  if ("error" in input.leases) return { scrapes, mode: "unknown", replicas: [], leasesError: input.leases.error };
  return { scrapes, ...leadership(input.leases, input.leaseName, input.tenants, input.now) };
}

function scrapeView(current: Scrape, previous: Scrape | undefined, names: ReadonlyMap<string, string>): ScrapeView {
  if (current.samples === undefined) {
    return { url: current.url, up: false, error: current.error ?? "no answer", queueDepth: [], reconciles: 0, errors: 0, tenantQueue: [], orphaned: 0 };
  }
  const samples = current.samples;
  const seconds = previous?.samples === undefined ? 0 : (current.at - previous.at) / 1000;
  const rate = (now: number, before: number): { rate?: number } => (seconds > 0 && now >= before ? { rate: (now - before) / seconds } : {});
  const reconciles = sumOf(samples, "controller_runtime_reconcile_total");
  const errors = sumOf(samples, "controller_runtime_reconcile_errors_total");
  const before = previous?.samples ?? [];
  const reconcileRate = rate(reconciles, sumOf(before, "controller_runtime_reconcile_total")).rate;
  const errorRate = rate(errors, sumOf(before, "controller_runtime_reconcile_errors_total")).rate;
  const TENANT_COUNT = "edgeconnect_tenant_queue_duration_seconds_count";
  const earlier = sumBy(before, TENANT_COUNT, "tenant");
  const tenantQueue = [...sumBy(samples, TENANT_COUNT, "tenant")]
    .map(([tenant, queued]) => ({ tenant: names.get(tenant) ?? tenant, queued, ...rate(queued, earlier.get(tenant) ?? queued) }))
    .sort((a, b) => b.queued - a.queued || a.tenant.localeCompare(b.tenant))
    .slice(0, MAX_TENANT_ROWS);
  return {
    url: current.url,
    up: true,
    queueDepth: [...sumBy(samples, "workqueue_depth", "controller")].map(([controller, depth]) => ({ controller, depth })),
    reconciles,
    errors,
    ...(reconcileRate === undefined ? {} : { reconcileRate }),
    ...(errorRate === undefined ? {} : { errorRate }),
    tenantQueue,
    orphaned: sumOf(samples, "edgeconnect_orphaned_infrastructure"),
  };
}

function leadership(leases: readonly Lease[], leaseName: string, tenants: readonly string[], now: number): Pick<ControllerHealth, "mode" | "replicas"> {
  const holder = (lease: Lease): string | undefined => {
    const spec = lease.spec;
    if (spec?.holderIdentity === undefined || spec.holderIdentity === "") return undefined;
    const renewed = Date.parse(spec.renewTime ?? "");
    // A Lease not renewed within its duration is held by nobody, whatever it still names.
    if (!Number.isNaN(renewed) && now - renewed > (spec.leaseDurationSeconds ?? 15) * 1000) return undefined;
    return spec.holderIdentity;
  };
  const slotPattern = new RegExp(`^${escape(leaseName)}-slot-(\\d+)$`);
  const slotLeases = leases.flatMap((lease) => {
    const slot = slotPattern.exec(lease.metadata?.name ?? "")?.[1];
    return slot !== undefined && lease.metadata?.labels?.[SHARD_GROUP_LABEL] === leaseName ? [{ slot: Number(slot), lease }] : [];
  });
  if (slotLeases.length > 0) {
    const slots = slotLeases.length;
    const byHolder = new Map<string, { slots: number[]; renewTime?: string }>();
    for (const { slot, lease } of slotLeases) {
      const identity = holder(lease) ?? "";
      const entry = byHolder.get(identity) ?? { slots: [] };
      entry.slots.push(slot);
      if (lease.spec?.renewTime !== undefined && (entry.renewTime === undefined || lease.spec.renewTime > entry.renewTime)) entry.renewTime = lease.spec.renewTime;
      byHolder.set(identity, entry);
    }
    const replicas: ReplicaView[] = [...byHolder]
      .sort(([a], [b]) => (a === "" ? 1 : b === "" ? -1 : a.localeCompare(b)))
      .map(([identity, entry]) => {
        const held = new Set(entry.slots);
        return {
          identity: identity === "" ? "(no replica)" : identity,
          ...(entry.renewTime === undefined ? {} : { renewTime: entry.renewTime }),
          slots: entry.slots.sort((a, b) => a - b),
          tenants: tenants.filter((tenant) => held.has(slotOf(fingerprint(tenant), slots))),
        };
      });
    return { mode: "sharded", replicas };
  }
  const leader = leases.find((lease) => lease.metadata?.name === leaseName);
  const identity = leader === undefined ? undefined : holder(leader);
  if (identity === undefined) return { mode: "unknown", replicas: [] };
  return { mode: "leader", replicas: [{ identity, ...(leader?.spec?.renewTime === undefined ? {} : { renewTime: leader.spec.renewTime }), slots: [], tenants: [...tenants] }] };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
