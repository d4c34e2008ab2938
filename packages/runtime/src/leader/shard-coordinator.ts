/**
 * Splits tenants across replicas. Tenants map to a fixed number of slots
 * (by their fingerprint); each slot has a Lease, and a replica reconciles a
 * tenant only while it holds the Lease of the tenant's slot. Which replica
 * *should* hold a slot comes from rendezvous hashing over the live members,
 * each of which keeps a membership Lease; which replica *does* is decided by
 * the slot Leases alone, so two replicas never work on one tenant at once
 * even while they disagree about membership.
 *
 * Hand-over: a replica that should no longer own a slot stops admitting its
 * tenants, waits until their reconciles in flight end (`drainSlot`), then
 * releases the Lease, and the new owner acquires it at its next round. A dead
 * replica's slots are taken over once its Leases expire: about one lease
 * duration for the membership to lapse, within the same window for the slot
 * Leases, plus a retry period, so within two lease durations.
 *
 * RBAC: get, list, create, update on coordination.k8s.io leases in `namespace`.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { LeaseHolder } from "./lease-holder.js";
import { LeaseObservation } from "./lease-observation.js";
import { LeaseLock, type Lease, type LeaseClient } from "./lease.js";

export const SHARD_GROUP_LABEL = "runtime.edgeconnect.eu/shard-group";
const SHARD_ROLE_LABEL = "runtime.edgeconnect.eu/shard-role";

export interface ShardCoordinatorOptions {
  readonly client: LeaseClient;
  readonly namespace: string;
  /** Names the set of replicas that share the work, e.g. the controller name. */
  readonly group: string;
  readonly identity: string;
  /** Default 32. All replicas of a group must agree on it. */
  readonly slots?: number;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** A held slot not renewed for this long is given up. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Time between rounds. Default 2 s. */
  readonly retryPeriodMs?: number;
  /** The slot is ours: its tenants may be reconciled (re-enqueue them). */
  readonly onSlotAcquired?: (slot: number) => void;
  /** The slot is no longer ours: stop admitting its tenants. */
  readonly onSlotLost?: (slot: number) => void;
  /** Resolves when no reconcile of the slot's tenants is in flight. */
  readonly drainSlot?: (slot: number) => Promise<void>;
  readonly onError?: (err: unknown) => void;
  /** Milliseconds now. Default Date.now. */
  readonly now?: () => number;
}

/** The slot of a tenant: its fingerprint's first 32 bits modulo `slots`. */
export function slotOf(tenant: string, slots: number): number {
  return Number.parseInt(tenant.slice(0, 8), 16) % slots;
}

/** Rendezvous hashing: the member with the highest score for the slot owns it. */
export function preferredOwner(slot: number, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = "";
  for (const member of members) {
    const score = createHash("sha256").update(`${member}\0${slot}`).digest("hex");
    if (best === undefined || score > bestScore) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}

export class ShardCoordinator {
  readonly slots: number;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly membership: LeaseHolder;
  private readonly slotHolders: LeaseHolder[];
  private readonly slotByLease: Map<string, number>;
  private readonly owned = new Map<number, number>();
  /** Member Lease name → what we have seen of it. */
  private readonly members = new Map<string, LeaseObservation>();
  private lastMembers: string[];

  constructor(private readonly options: ShardCoordinatorOptions) {
    this.slots = options.slots ?? 32;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    const holder = (name: string, role: string): LeaseHolder =>
      new LeaseHolder({
        lock: new LeaseLock(options.client, options.namespace, name, {
          [SHARD_GROUP_LABEL]: options.group,
          [SHARD_ROLE_LABEL]: role,
        }),
        identity: options.identity,
        leaseDurationMs: this.leaseDurationMs,
        now: this.now,
      });
    this.lastMembers = [options.identity];
    this.membership = holder(`${options.group}-member-${options.identity}`, "member");
    this.slotHolders = Array.from({ length: this.slots }, (_, slot) => holder(`${options.group}-slot-${slot}`, "slot"));
    this.slotByLease = new Map(this.slotHolders.map((_, slot) => [`${options.group}-slot-${slot}`, slot]));
  }

  /** Whether this replica may reconcile `tenant` (a fingerprint) now. */
  owns(tenant: string): boolean {
    return this.owned.has(slotOf(tenant, this.slots));
  }

  ownedSlots(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  /** Rounds every retry period until `signal` aborts, then hands every slot back. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.round();
      await sleep(this.retryPeriodMs, undefined, { signal }).catch(() => undefined);
    }
    await this.releaseAll();
  }

  /** One round: renew membership, see who is alive, acquire, renew or hand over slots. */
  async round(): Promise<void> {
    await this.attempt(this.membership);
    const members = await this.liveMembers();
    await Promise.all(
      this.slotHolders.map(async (holder, slot) => {
        if (preferredOwner(slot, members) === this.options.identity) await this.keep(slot, holder);
        else if (this.owned.has(slot)) await this.handOver(slot, holder);
      }),
    );
  }

  /** Gives back every slot (after draining it) and the membership. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.owned.keys()].map((slot) => this.handOver(slot, this.slotHolders[slot])));
    await this.membership.release().catch((err: unknown) => this.options.onError?.(err));
  }

  private async keep(slot: number, holder: LeaseHolder): Promise<void> {
    const now = this.now();
    if (await this.attempt(holder)) {
      const acquired = !this.owned.has(slot);
      // Owned before the callback: it re-enqueues the slot's tenants, which
      // the admission gate checks against ownership.
      this.owned.set(slot, now);
      if (acquired) this.options.onSlotAcquired?.(slot);
      return;
    }
    const renewed = this.owned.get(slot);
    // Lost to another holder, or unable to renew for too long: stop at once,
    // before the Lease can expire for the others.
    if (renewed !== undefined && (!holder.held || now - renewed > this.renewDeadlineMs)) {
      this.owned.delete(slot);
      this.options.onSlotLost?.(slot);
    }
  }

  private async handOver(slot: number, holder: LeaseHolder | undefined): Promise<void> {
    this.owned.delete(slot);
    this.options.onSlotLost?.(slot);
    await this.options.drainSlot?.(slot);
    await holder?.release().catch((err: unknown) => this.options.onError?.(err));
  }

  /**
   * Lists every Lease of the group once: slot Leases feed their holders'
   * observations (so a dead holder's expiry is timed from its last renewal),
   * membership Leases give the live members.
   */
  private async liveMembers(): Promise<string[]> {
    const now = this.now();
    const alive = new Set([this.options.identity]);
    let leases: Lease[];
    try {
      const list = await this.options.client.list<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases`, {
        query: { labelSelector: `${SHARD_GROUP_LABEL}=${this.options.group}` },
      });
      leases = list.items;
    } catch (err) {
      // Without a fresh view, the last one is better than shuffling slots.
      this.options.onError?.(err);
      return this.lastMembers;
    }
    for (const lease of leases) {
      const name = lease.metadata?.name ?? "";
      const slot = this.slotByLease.get(name);
      if (slot !== undefined) {
        this.slotHolders[slot]?.observe(lease);
        continue;
      }
      if (lease.metadata?.labels?.[SHARD_ROLE_LABEL] !== "member") continue;
      const member = this.members.get(name) ?? new LeaseObservation();
      member.observe(lease, now);
      this.members.set(name, member);
      const holder = member.validHolder(now);
      if (holder !== undefined) alive.add(holder);
    }
    this.lastMembers = [...alive].sort();
    return this.lastMembers;
  }

  private async attempt(holder: LeaseHolder): Promise<boolean> {
    try {
      return await holder.tryAcquireOrRenew();
    } catch (err) {
      this.options.onError?.(err);
      return false;
    }
  }
}
