/**
 * Runs controllers on a share of the tenants: the glue between a
 * ShardCoordinator and the controllers of one process.
 *
 * - A controller built with `admit` takes a request only while this replica
 *   holds the slot of the request's tenant (checked on enqueue and before
 *   reconciling).
 * - A slot that is lost or handed over has its reconciles in flight aborted
 *   at once in every controller (their signals, hence their calls), and is
 *   released only after they ended or the drain timeout passed.
 * - A slot that becomes ours is resynced: every known object of its tenants
 *   is enqueued, since the events that concerned them went to the old owner.
 *   The slots won in one round are resynced in one pass over what is known,
 *   not one pass per slot.
 *
 * Every replica watches everything (reads are cheap and keep its stores warm
 * for take-overs); only reconciles are split. Run it only once the stores
 * the resyncs read have synced.
 */
import type { Controller } from "../reconcile/controller.js";
import { tenantOf, type Request } from "../reconcile/request.js";
import { ShardCoordinator, slotOf, type ShardCoordinatorOptions } from "./shard-coordinator.js";

export type TenantShardsOptions = Omit<ShardCoordinatorOptions, "onSlotAcquired" | "onSlotLost" | "drainSlot">;

interface Served {
  readonly controller: Pick<Controller<never>, "enqueue" | "abortInFlight" | "whenIdle">;
  readonly knownRequests: () => Iterable<Request>;
}

export class TenantShards {
  readonly coordinator: ShardCoordinator;
  private readonly served: Served[] = [];
  /** Slots acquired since the last resync pass. */
  private readonly acquired = new Set<number>();

  constructor(options: TenantShardsOptions) {
    const slots = options.slots ?? 32;
    const inSlot = (slot: number) => (request: Request) => slotOf(tenantOf(request), slots) === slot;
    this.coordinator = new ShardCoordinator({
      ...options,
      slots,
      onSlotAcquired: (slot) => {
        // A round acquires its slots one after another in the same tick: collect them, resync once.
        if (this.acquired.size === 0) setImmediate(() => this.resync());
        this.acquired.add(slot);
      },
      onSlotLost: (slot) => {
        this.acquired.delete(slot);
        for (const { controller } of this.served) controller.abortInFlight(inSlot(slot), `slot ${slot} is no longer this replica's`);
      },
      drainSlot: async (slot) => {
        await Promise.all(this.served.map(({ controller }) => controller.whenIdle(inSlot(slot))));
      },
    });
  }

  /** The admission gate of the controllers this replica runs for these shards. */
  readonly admit = (request: Request): boolean => this.coordinator.owns(tenantOf(request));

  /** A controller built with `admit`, and every request it knows of now (e.g. from its stores), for take-overs. */
  serve(controller: Served["controller"], knownRequests: () => Iterable<Request>): void {
    this.served.push({ controller, knownRequests });
  }

  /** Takes part in the sharding until `signal` aborts; hands every slot back (after draining it) on the way out. */
  run(signal: AbortSignal): Promise<void> {
    return this.coordinator.run(signal);
  }

  private resync(): void {
    const slots = new Set(this.acquired);
    this.acquired.clear();
    for (const { controller, knownRequests } of this.served) {
      // Enqueue admits only what is ours now: a slot lost since it was acquired drops out there.
      for (const request of knownRequests()) if (slots.has(slotOf(tenantOf(request), this.coordinator.slots))) controller.enqueue(request);
    }
  }
}
