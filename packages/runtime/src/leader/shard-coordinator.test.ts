import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "../queue/clock.js";
import { memoryLeases } from "./memory-leases.fixture.js";
import { memberLeaseName, preferredOwner, SHARD_GROUP_LABEL, ShardCoordinator, slotOf, type ShardLeaseClient } from "./shard-coordinator.js";

function cluster(names: string[], slots = 16) {
  const client = memoryLeases();
  const clock = new ManualClock(5_000_000);
  const events: string[] = [];
  const replicas = new Map(
    names.map((identity) => [
      identity,
      new ShardCoordinator({
        client,
        namespace: "ns",
        group: "provider-controller",
        identity,
        slots,
        clock,
        onSlotAcquired: (slot) => events.push(`${identity}+${slot}`),
        onSlotLost: (slot) => events.push(`${identity}-${slot}`),
      }),
    ]),
  );
  return { clock, replicas, events, leases: client };
}

/** Every slot is owned by at most one replica. */
function assertExclusive(replicas: Iterable<ShardCoordinator>): void {
  const owners = new Map<number, number>();
  for (const r of replicas) for (const slot of r.ownedSlots()) owners.set(slot, (owners.get(slot) ?? 0) + 1);
  for (const count of owners.values()) expect(count).toBe(1);
}

async function rounds(replicas: Iterable<ShardCoordinator>, n: number, clock: ManualClock, stepMs = 2_000): Promise<void> {
  const list = [...replicas];
  for (let i = 0; i < n; i++) {
    for (const r of list) {
      await r.round();
      assertExclusive(list);
    }
    clock.advance(stepMs);
  }
}

describe("slotOf and preferredOwner", () => {
  it("map a fingerprint to a stable slot and a slot to one member, whatever the member order", () => {
    expect(slotOf("ffffffff0000", 32)).toBe(0xffffffff % 32);
    expect(preferredOwner(3, ["a", "b", "c"])).toBe(preferredOwner(3, ["c", "a", "b"]));
    expect(preferredOwner(3, [])).toBeUndefined();
  });

  it("moves only the slots of a member that leaves", () => {
    const before = Array.from({ length: 64 }, (_, s) => preferredOwner(s, ["a", "b", "c"]));
    const after = Array.from({ length: 64 }, (_, s) => preferredOwner(s, ["a", "b"]));
    before.forEach((owner, slot) => {
      if (owner !== "c") expect(after[slot]).toBe(owner);
    });
  });
});

describe("ShardCoordinator", () => {
  it("splits all slots among the replicas, each slot to exactly one", async () => {
    const { replicas, clock } = cluster(["a", "b", "c"]);
    await rounds(replicas.values(), 3, clock);
    const all = [...replicas.values()].flatMap((r) => r.ownedSlots()).sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 16 }, (_, s) => s));
    for (const r of replicas.values()) expect(r.ownedSlots().length).toBeGreaterThan(0);
  });

  it("hands slots over to a replica that joins, never owning one twice", async () => {
    const { replicas, clock } = cluster(["a", "b", "c"]);
    const a = replicas.get("a");
    if (!a) throw new Error("no replica");
    await rounds([a], 2, clock);
    expect(a.ownedSlots()).toHaveLength(16);
    await rounds(replicas.values(), 4, clock);
    expect(a.ownedSlots().length).toBeLessThan(16);
    expect([...replicas.values()].flatMap((r) => r.ownedSlots())).toHaveLength(16);
  });

  it("takes over a dead replica's slots within two lease durations", async () => {
    const { replicas, clock } = cluster(["a", "b", "c"]);
    await rounds(replicas.values(), 3, clock);
    const dead = replicas.get("c");
    if (!dead) throw new Error("no replica");
    const orphaned = dead.ownedSlots();
    replicas.delete("c");
    const diedAt = clock.now();
    let recovered: number | undefined;
    for (let i = 0; i < 20 && recovered === undefined; i++) {
      await rounds(replicas.values(), 1, clock);
      const covered = [...replicas.values()].flatMap((r) => r.ownedSlots());
      if (orphaned.every((slot) => covered.includes(slot))) recovered = clock.now() - diedAt;
    }
    // The dead replica still believes it owns its slots; the others must not
    // take them before its Leases have expired.
    expect(recovered).toBeDefined();
    expect(recovered ?? Infinity).toBeGreaterThanOrEqual(15_000);
    // Observed continuously, the Leases lapse one duration after the last
    // renewal: well inside two.
    expect(recovered ?? Infinity).toBeLessThanOrEqual(15_000 + 2 * 2_000);
  });

  it("stops admitting, drains, then releases when it leaves", async () => {
    const { replicas, clock, events } = cluster(["a", "b"]);
    await rounds(replicas.values(), 3, clock);
    const a = replicas.get("a");
    const b = replicas.get("b");
    if (!a || !b) throw new Error("no replicas");
    const owned = a.ownedSlots();
    const before = events.length;
    await a.releaseAll();
    expect(a.ownedSlots()).toEqual([]);
    expect(events.slice(before).sort()).toEqual(owned.map((slot) => `a-${slot}`).sort());
    replicas.delete("a");
    await rounds([b], 1, clock);
    // Released Leases are free at once; the membership lapses, so b takes all.
    expect(b.ownedSlots().length).toBeGreaterThanOrEqual(owned.length);
  });

  it("names member Leases validly whatever the identity, and deletes those dead for long, never a live one", async () => {
    const { replicas, clock, leases } = cluster(["host-0_1f2e", "host-1_9a8b"]);
    await rounds(replicas.values(), 2, clock);
    const memberNames = () => [...leases.leases.values()].filter((l) => l.metadata?.labels?.[SHARD_GROUP_LABEL] !== undefined && l.metadata.name?.includes("-member-")).map((l) => l.metadata?.name ?? "");
    expect(memberNames()).toHaveLength(2);
    for (const name of memberNames()) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    replicas.delete("host-1_9a8b");
    // Expired after one lease duration, but kept for STALE_MEMBER_LEASES of them.
    for (let i = 0; i < 20; i++) await rounds(replicas.values(), 1, clock);
    expect(memberNames()).toHaveLength(2);
    for (let i = 0; i < 80; i++) await rounds(replicas.values(), 1, clock);
    await new Promise((resolve) => setImmediate(resolve));
    expect(memberNames()).toEqual([memberLeaseName("provider-controller", "host-0_1f2e")]);
  });

  it("answers owns() for tenants by their slot", async () => {
    const { replicas, clock } = cluster(["solo"], 8);
    const solo = replicas.get("solo");
    if (!solo) throw new Error("no replica");
    expect(solo.owns("0123456789ab")).toBe(false);
    await rounds([solo], 1, clock);
    expect(solo.owns("0123456789ab")).toBe(true);
  });
});

describe("ShardCoordinator callbacks", () => {
  it("counts a slot as owned by the time onSlotAcquired runs", async () => {
    const seen: boolean[] = [];
    const coordinator: ShardCoordinator = new ShardCoordinator({
      client: memoryLeases(),
      namespace: "ns",
      group: "g",
      identity: "solo",
      slots: 4,
      clock: new ManualClock(),
      onSlotAcquired: (slot) => seen.push(coordinator.ownedSlots().includes(slot)),
    });
    await coordinator.round();
    expect(seen).toEqual([true, true, true, true]);
  });

  it("reports a slot lost at the start of its last renewal plus the renew deadline, however late the answer came", async () => {
    const clock = new ManualClock();
    const leases = memoryLeases();
    let answerDelayMs = 0;
    // A slot's write commits at once; its answer reaches us `answerDelayMs` later.
    const slow: ShardLeaseClient = {
      ...leases,
      replace: async (path, ...rest) => {
        const answer = await leases.replace(path, ...rest);
        if (path.includes("-slot-")) clock.advance(answerDelayMs);
        return answer as never;
      },
    };
    const lost: number[] = [];
    const coordinator = new ShardCoordinator({ client: slow, namespace: "ns", group: "g", identity: "solo", slots: 1, clock, onSlotLost: () => lost.push(clock.now()) });
    await coordinator.round();
    clock.advance(2_000);
    const renewalStart = clock.now();
    answerDelayMs = 7_000;
    await coordinator.round();
    expect(coordinator.ownedSlots()).toEqual([0]);
    clock.advance(renewalStart + 10_000 - clock.now() - 1);
    expect(lost).toEqual([]);
    clock.advance(1);
    expect(lost).toEqual([renewalStart + 10_000]);
  });
});
