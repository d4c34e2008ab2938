import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "../queue/clock.js";
import { tenantOf, type Request } from "../reconcile/request.js";
import { memoryLeases } from "./memory-leases.fixture.js";
import { slotOf } from "./shard-coordinator.js";
import { TenantShards } from "./tenant-shards.js";

/** What TenantShards asks of a controller, recorded. */
function fakeController(shards: () => TenantShards) {
  const enqueued: Request[] = [];
  const aborted: string[] = [];
  return {
    enqueued,
    aborted,
    enqueue: (request: Request) => {
      if (shards().admit(request)) enqueued.push(request);
    },
    abortInFlight: (predicate: (request: Request) => boolean, reason: string) => aborted.push(reason),
    whenIdle: () => Promise.resolve(),
  };
}

const requests: Request[] = Array.from({ length: 64 }, (_, i) => ({ cluster: `tenant-${i}`, namespace: "default", name: `obj-${i}` }));
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe("TenantShards", () => {
  it("resyncs every controller it serves once per round, with only the requests of the slots it won", async () => {
    const clock = new ManualClock(1_000_000);
    const client = memoryLeases();
    const shards = new TenantShards({ client, namespace: "ns", group: "g", identity: "solo", slots: 8, clock });
    const clusters = fakeController(() => shards);
    const configs = fakeController(() => shards);
    let listed = 0;
    shards.serve(clusters, () => (listed++, requests));
    shards.serve(configs, () => requests.slice(0, 10));
    // The other replica came first and holds every slot; it hands ours over once it sees us.
    const other = new TenantShards({ client, namespace: "ns", group: "g", identity: "other", slots: 8, clock });
    await other.coordinator.round();
    await shards.coordinator.round();
    expect(shards.coordinator.ownedSlots()).toEqual([]);
    await other.coordinator.round();
    await nextTick();
    await shards.coordinator.round();
    await nextTick();
    const ours = shards.coordinator.ownedSlots();
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.length).toBeLessThan(8);
    const inOurs = (request: Request) => ours.includes(slotOf(tenantOf(request), 8));
    expect(listed).toBe(1);
    expect(clusters.enqueued).toEqual(requests.filter(inOurs));
    expect(configs.enqueued).toEqual(requests.slice(0, 10).filter(inOurs));
  });

  it("aborts the reconciles of a lost slot in every controller", async () => {
    const clock = new ManualClock(1_000_000);
    const shards = new TenantShards({ client: memoryLeases(), namespace: "ns", group: "g", identity: "solo", slots: 2, clock });
    const a = fakeController(() => shards);
    const b = fakeController(() => shards);
    shards.serve(a, () => []);
    shards.serve(b, () => []);
    await shards.coordinator.round();
    // No renewal within the renew deadline (10 s by default): both slots are lost.
    clock.advance(10_000);
    expect(a.aborted).toHaveLength(2);
    expect(b.aborted).toHaveLength(2);
    expect(requests.some((request) => shards.admit(request))).toBe(false);
  });
});
