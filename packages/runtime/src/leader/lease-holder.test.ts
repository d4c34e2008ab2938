import { describe, expect, it } from "@jest/globals";
import { LeaseHolder } from "./lease-holder.js";
import { LeaseLock, type LeaseClient } from "./lease.js";
import { memoryLeases } from "./memory-leases.fixture.js";


function replicas(names: string[]): { clock: { t: number }; holders: Record<string, LeaseHolder>; store: ReturnType<typeof memoryLeases> } {
  const store = memoryLeases();
  const clock = { t: 1_000_000 };
  const holders: Record<string, LeaseHolder> = {};
  for (const identity of names) {
    holders[identity] = new LeaseHolder({ lock: new LeaseLock(store, "kube-system", "ccm"), identity, leaseDurationMs: 15_000, now: () => clock.t, wallClock: () => new Date(clock.t) });
  }
  return { clock, holders, store };
}

describe("LeaseHolder", () => {
  it("creates the Lease when there is none and then renews it", async () => {
    const { holders, store, clock } = replicas(["a"]);
    expect(await holders.a?.tryAcquireOrRenew()).toBe(true);
    const created = store.leases.values().next().value;
    expect(created?.spec).toMatchObject({ holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 });
    clock.t += 2_000;
    expect(await holders.a?.tryAcquireOrRenew()).toBe(true);
    const renewed = store.leases.values().next().value;
    expect(renewed?.spec?.acquireTime).toBe(created?.spec?.acquireTime);
    expect(renewed?.spec?.renewTime).not.toBe(created?.spec?.renewTime);
  });

  it("leaves a valid Lease of another holder alone", async () => {
    const { holders, clock } = replicas(["a", "b"]);
    await holders.a?.tryAcquireOrRenew();
    expect(await holders.b?.tryAcquireOrRenew()).toBe(false);
    clock.t += 14_000;
    expect(await holders.b?.tryAcquireOrRenew()).toBe(false);
    expect(holders.b?.observedHolder).toBe("a");
  });

  it("takes over only after the record stood still for the lease duration, by its own clock", async () => {
    const { holders, clock, store } = replicas(["a", "b"]);
    await holders.a?.tryAcquireOrRenew();
    clock.t += 10_000;
    // b sees the record for the first time now: its 15 s start now, whatever renewTime says.
    expect(await holders.b?.tryAcquireOrRenew()).toBe(false);
    clock.t += 14_999;
    expect(await holders.b?.tryAcquireOrRenew()).toBe(false);
    clock.t += 2;
    expect(await holders.b?.tryAcquireOrRenew()).toBe(true);
    expect(store.leases.values().next().value?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    expect(await holders.a?.tryAcquireOrRenew()).toBe(false);
    expect(holders.a?.held).toBe(false);
  });

  it("restarts its wait whenever the holder renews", async () => {
    const { holders, clock } = replicas(["a", "b"]);
    await holders.a?.tryAcquireOrRenew();
    await holders.b?.tryAcquireOrRenew();
    for (let i = 0; i < 5; i++) {
      clock.t += 10_000;
      expect(await holders.a?.tryAcquireOrRenew()).toBe(true);
      expect(await holders.b?.tryAcquireOrRenew()).toBe(false);
    }
  });

  it("loses a race cleanly: of two replicas taking a free Lease at once, one wins", async () => {
    const { holders } = replicas(["a", "b"]);
    const results = await Promise.all([holders.a?.tryAcquireOrRenew(), holders.b?.tryAcquireOrRenew()]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("releases so that another replica takes over at once", async () => {
    const { holders } = replicas(["a", "b"]);
    await holders.a?.tryAcquireOrRenew();
    await holders.b?.tryAcquireOrRenew();
    await holders.a?.release();
    expect(holders.a?.held).toBe(false);
    expect(await holders.b?.tryAcquireOrRenew()).toBe(true);
  });

  it("clocks another holder's record from when the answer arrived, not from when it asked", async () => {
    const { holders, clock, store } = replicas(["a", "b"]);
    await holders.a?.tryAcquireOrRenew();
    // b's first read travels 10 s: a may have renewed just before the server answered it.
    let slow = true;
    const slowOnce: LeaseClient = {
      ...store,
      get: async (...args) => {
        if (slow) clock.t += 10_000;
        slow = false;
        return store.get(...args);
      },
    };
    const b = new LeaseHolder({ lock: new LeaseLock(slowOnce, "kube-system", "ccm"), identity: "b", leaseDurationMs: 15_000, now: () => clock.t });
    const askedAt = clock.t;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.t = askedAt + 15_001;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.t = askedAt + 10_000 + 15_001;
    expect(await b.tryAcquireOrRenew()).toBe(true);
  });
});
