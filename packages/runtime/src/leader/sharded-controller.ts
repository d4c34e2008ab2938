/**
 * Runs a controller on a share of the tenants: the glue between a
 * ShardCoordinator and a Controller.
 *
 * - The controller admits a request only while this replica holds the slot
 *   of the request's tenant (checked on enqueue and before reconciling).
 * - A slot that is lost or handed over has its reconciles in flight aborted
 *   at once (their signals, hence their calls), and is released only after
 *   they ended or the drain timeout passed.
 * - A slot that becomes ours is resynced: every known object of its tenants
 *   is enqueued, since the events that concerned them went to the old owner.
 *
 * Every replica watches everything (reads are cheap and keep its store warm
 * for take-overs); only reconciles are split.
 */
import type { Controller } from "../reconcile/controller.js";
import { tenantOf, type Request } from "../reconcile/request.js";
import { ShardCoordinator, slotOf, type ShardCoordinatorOptions } from "./shard-coordinator.js";

export interface ShardedControllerOptions<S>
  extends Omit<ShardCoordinatorOptions, "onSlotAcquired" | "onSlotLost" | "drainSlot"> {
  /** Builds the controller with the admission gate it must use. */
  readonly controller: (admit: (request: Request) => boolean) => Controller<S>;
  /** Every request this replica knows of now (e.g. from its stores), for resyncs. */
  readonly knownRequests: () => Iterable<Request>;
}

export interface ShardedController<S> {
  readonly controller: Controller<S>;
  readonly coordinator: ShardCoordinator;
  /** Runs both until `signal` aborts; hands every slot back on the way out. */
  run(signal: AbortSignal): Promise<void>;
}

export function shardedController<S>(options: ShardedControllerOptions<S>): ShardedController<S> {
  const { controller: build, knownRequests, ...coordinatorOptions } = options;
  const slots = options.slots ?? 32;
  const inSlot = (slot: number) => (request: Request) => slotOf(tenantOf(request), slots) === slot;
  // The coordinator and the controller refer to each other; the gate runs
  // only once requests flow, after both exist.
  const controller = build((request) => coordinator.owns(tenantOf(request)));
  const coordinator = new ShardCoordinator({
    ...coordinatorOptions,
    slots,
    onSlotAcquired: (slot) => {
      for (const request of knownRequests()) if (inSlot(slot)(request)) controller.enqueue(request);
    },
    onSlotLost: (slot) => controller.abortInFlight(inSlot(slot), `slot ${slot} is no longer this replica's`),
    drainSlot: (slot) => controller.whenIdle(inSlot(slot)),
  });
  return {
    controller,
    coordinator,
    run: async (signal) => {
      const work = new AbortController();
      const controllerRun = controller.start(work.signal);
      await coordinator.run(signal);
      work.abort();
      await controllerRun;
    },
  };
}
