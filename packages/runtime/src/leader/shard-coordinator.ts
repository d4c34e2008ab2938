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
 * tenants, aborts and waits for their reconciles in flight (`drainSlot`, in
 * the background: a slow drain never delays the renewal of other slots),
 * then releases the Lease, and the new owner acquires it at its next round.
 * A dead replica's slots are taken over once its Leases expire: about one
 * lease duration for the membership to lapse, within the same window for the
 * slot Leases, plus a retry period, so within two lease durations.
 *
 * Exclusivity when calls hang: ownership is derived from time. A slot counts
 * as ours only until the start of its last successful renewal plus the renew
 * deadline (by a monotonic clock; the start, since the server may commit at
 * once and answer late), so `owns` turns false by itself while a renewal
 * hangs, and a timer reports the loss (`onSlotLost`) at that moment; each
 * attempt is bounded by what is left of that deadline. Other replicas wait a
 * whole lease duration from their own observation, which is longer.
 *
 * Membership Leases are named after a hash of the identity (identities such
 * as `<hostname>_<random>` are no valid object names), and every process has
 * one of its own, so a crash loop leaves one behind per life: a member Lease
 * expired for `STALE_MEMBER_LEASES` lease durations is deleted by whichever
 * replica sees it (on its resourceVersion, so a member that came back keeps
 * its Lease), which keeps the round's list from growing without bound.
 *
 * RBAC: get, list, create, update, delete on coordination.k8s.io leases in `namespace`.
 */
import { createHash } from "node:crypto";
import { HttpStatusError, type RestClient } from "@edgeconnect/kcp-ts";
import { setTimeout as sleep } from "node:timers/promises";
import { realClock, type Clock, type TimerHandle } from "../queue/clock.js";
import { settlesWithin } from "../reconcile/bounded-wait.js";
import { DEFAULT_LEASE_TIMINGS } from "./leader-elector.js";
import { LeaseHolder } from "./lease-holder.js";
import { LeaseObservation } from "./lease-observation.js";
import { LeaseLock, type Lease, type LeaseClient } from "./lease.js";

export const SHARD_GROUP_LABEL = "runtime.edgeconnect.eu/shard-group";
/** How many lease durations a member Lease stays expired before it is deleted. */
export const STALE_MEMBER_LEASES = 10;
const SHARD_ROLE_LABEL = "runtime.edgeconnect.eu/shard-role";

/** Lease locks, and deleting the Leases of long-dead members. */
export type ShardLeaseClient = LeaseClient & Pick<RestClient, "delete">;

export interface ShardCoordinatorOptions {
  readonly client: ShardLeaseClient;
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
  /** The slot is no longer ours: stop admitting its tenants and abort their reconciles. */
  readonly onSlotLost?: (slot: number) => void;
  /** Resolves when no reconcile of the slot's tenants is in flight. */
  readonly drainSlot?: (slot: number) => Promise<void>;
  /** A drain that takes longer is given up and the Lease released anyway. Default the renew deadline. */
  readonly drainTimeoutMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Time, and the timers that report lost slots. Default `realClock`. */
  readonly clock?: Clock;
}

/** The slot of a tenant: its fingerprint's first 32 bits modulo `slots`. */
export function slotOf(tenant: string, slots: number): number {
  return Number.parseInt(tenant.slice(0, 8), 16) % slots;
}

/** The membership Lease of `identity`: a valid object name whatever characters the identity has. */
export function memberLeaseName(group: string, identity: string): string {
  return `${group}-member-${createHash("sha256").update(identity).digest("hex").slice(0, 16)}`;
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
  private readonly clock: Clock;
  private readonly membership: LeaseHolder;
  private readonly memberName: string;
  private readonly slotHolders: LeaseHolder[];
  private readonly slotByLease: Map<string, number>;
  /** Owned slot → when its last successful renewal began (monotonic ms). */
  private readonly owned = new Map<number, number>();
  /** Owned slot → the timer that reports its loss at its renew deadline. */
  private readonly expiries = new Map<number, TimerHandle>();
  /** Slots being handed over: drained, then released; not taken again meanwhile. */
  private readonly releasing = new Map<number, Promise<void>>();
  /** Member Lease name → what we have seen of it. */
  private readonly members = new Map<string, LeaseObservation>();
  private lastMembers: string[];

  constructor(private readonly options: ShardCoordinatorOptions) {
    this.slots = options.slots ?? 32;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs;
    this.clock = options.clock ?? realClock;
    const holder = (name: string, role: string): LeaseHolder =>
      new LeaseHolder({
        lock: new LeaseLock(options.client, options.namespace, name, {
          [SHARD_GROUP_LABEL]: options.group,
          [SHARD_ROLE_LABEL]: role,
        }),
        identity: options.identity,
        leaseDurationMs: this.leaseDurationMs,
        now: () => this.clock.now(),
      });
    this.lastMembers = [options.identity];
    this.memberName = memberLeaseName(options.group, options.identity);
    this.membership = holder(this.memberName, "member");
    this.slotHolders = Array.from({ length: this.slots }, (_, slot) => holder(`${options.group}-slot-${slot}`, "slot"));
    this.slotByLease = new Map(this.slotHolders.map((_, slot) => [`${options.group}-slot-${slot}`, slot]));
  }

  /** Whether this replica may reconcile `tenant` (a fingerprint) now. */
  owns(tenant: string): boolean {
    return this.ownsSlot(slotOf(tenant, this.slots));
  }

  ownedSlots(): number[] {
    return [...this.owned.keys()].filter((slot) => this.ownsSlot(slot)).sort((a, b) => a - b);
  }

  private ownsSlot(slot: number): boolean {
    const renewed = this.owned.get(slot);
    return renewed !== undefined && this.clock.now() - renewed < this.renewDeadlineMs;
  }

  /** Rounds every retry period until `signal` aborts, then hands every slot back. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.round();
      await sleep(this.retryPeriodMs, undefined, { signal }).catch(() => undefined);
    }
    await this.releaseAll();
  }

  /**
   * One round: renew membership, see who is alive, acquire, renew or hand
   * over slots. Every call in it is bounded, and hand-overs go on in the
   * background, so a round ends within the renew deadline.
   */
  async round(): Promise<void> {
    await this.attempt(this.membership, this.renewDeadlineMs);
    const members = await this.liveMembers();
    await Promise.all(
      this.slotHolders.map(async (holder, slot) => {
        if (this.releasing.has(slot)) return;
        if (preferredOwner(slot, members) === this.options.identity) await this.keep(slot, holder);
        else if (this.owned.has(slot)) this.handOver(slot, holder);
      }),
    );
  }

  /** Gives back every slot (after draining it) and the membership. */
  async releaseAll(): Promise<void> {
    for (const slot of [...this.owned.keys()]) this.handOver(slot, this.slotHolders[slot]);
    await Promise.all(this.releasing.values());
    await this.membership.release(AbortSignal.timeout(this.retryPeriodMs)).catch((err: unknown) => this.options.onError?.(err));
  }

  private async keep(slot: number, holder: LeaseHolder): Promise<void> {
    const renewed = this.owned.get(slot);
    const started = this.clock.now();
    const left = renewed === undefined ? this.renewDeadlineMs : renewed + this.renewDeadlineMs - started;
    if (left > 0 && (await this.attempt(holder, left))) {
      if (this.owned.get(slot) !== renewed) return;
      // Owned before the callback: it re-enqueues the slot's tenants, which
      // the admission gate checks against ownership. The renewal counts from
      // when the attempt began, the latest moment the server can have seen it.
      this.owned.set(slot, started);
      this.armExpiry(slot, started);
      if (renewed === undefined) this.options.onSlotAcquired?.(slot);
      return;
    }
    // Lost to another holder, or unable to renew in time: stop at once,
    // before the Lease can expire for the others.
    if (renewed !== undefined && (!holder.held || !this.ownsSlot(slot))) this.lose(slot);
  }

  /** Reports the loss at `renewedAt` plus the renew deadline, unless a renewal re-arms it first. */
  private armExpiry(slot: number, renewedAt: number): void {
    this.clearExpiry(slot);
    this.expiries.set(slot, this.clock.setTimeout(() => this.lose(slot), renewedAt + this.renewDeadlineMs - this.clock.now()));
  }

  private clearExpiry(slot: number): void {
    const timer = this.expiries.get(slot);
    if (timer !== undefined) this.clock.clearTimeout(timer);
    this.expiries.delete(slot);
  }

  private lose(slot: number): void {
    this.clearExpiry(slot);
    if (!this.owned.delete(slot)) return;
    this.options.onSlotLost?.(slot);
  }

  private handOver(slot: number, holder: LeaseHolder | undefined): void {
    this.lose(slot);
    const drainTimeoutMs = this.options.drainTimeoutMs ?? this.renewDeadlineMs;
    const release = (async () => {
      const drained = this.options.drainSlot?.(slot) ?? Promise.resolve();
      await settlesWithin(drained, drainTimeoutMs);
      await holder?.release(AbortSignal.timeout(this.retryPeriodMs)).catch((err: unknown) => this.options.onError?.(err));
    })().finally(() => this.releasing.delete(slot));
    this.releasing.set(slot, release);
  }

  /**
   * Lists every Lease of the group once: slot Leases feed their holders'
   * observations (so a dead holder's expiry is timed from its last renewal),
   * membership Leases give the live members.
   */
  private async liveMembers(): Promise<string[]> {
    const alive = new Set([this.options.identity]);
    let leases: Lease[];
    try {
      const list = await this.options.client.list<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases`, {
        query: { labelSelector: `${SHARD_GROUP_LABEL}=${this.options.group}` },
        signal: AbortSignal.timeout(this.renewDeadlineMs),
      });
      leases = list.items;
    } catch (err) {
      // Without a fresh view, the last one is better than shuffling slots.
      this.options.onError?.(err);
      return this.lastMembers;
    }
    // Clocked from the answer: a member may have renewed while the list travelled.
    const now = this.clock.now();
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
      else if (name !== this.memberName && member.expiredFor(now) > (STALE_MEMBER_LEASES - 1) * this.leaseDurationMs) this.forget(name, lease);
    }
    this.lastMembers = [...alive].sort();
    return this.lastMembers;
  }

  /** Deletes a long-dead member's Lease, in the background; a failure only means another round tries again. */
  private forget(name: string, lease: Lease): void {
    this.members.delete(name);
    const path = `/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases/${name}`;
    const preconditions = { resourceVersion: lease.metadata?.resourceVersion };
    this.options.client
      .delete(path, { body: { apiVersion: "v1", kind: "DeleteOptions", preconditions }, signal: AbortSignal.timeout(this.renewDeadlineMs) })
      .catch((err: unknown) => {
        // Gone already, or renewed since it was listed: both fine.
        if (!(err instanceof HttpStatusError && (err.status === 404 || err.status === 409))) this.options.onError?.(err);
      });
  }

  private async attempt(holder: LeaseHolder, withinMs: number): Promise<boolean> {
    try {
      return await holder.tryAcquireOrRenew(AbortSignal.timeout(Math.max(1, Math.ceil(withinMs))));
    } catch (err) {
      this.options.onError?.(err);
      return false;
    }
  }
}
