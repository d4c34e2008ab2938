import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "./clock.js";
import { defaultMaxInFlightPerTenant, FairQueue, reservedWorkers, type FairQueueOptions } from "./fair-queue.js";
import type { QueueMetrics } from "./queue-metrics.js";
import { ExponentialFailureRateLimiter, type RateLimiter } from "./rate-limiter.js";

interface Req {
  readonly tenant: string;
  readonly name: string;
  readonly version?: number;
}

const req = (tenant: string, name: string, version?: number): Req => ({ tenant, name, version });

function makeQueue(
  clock = new ManualClock(),
  metrics?: QueueMetrics,
  options: Pick<FairQueueOptions<Req>, "maxInFlightPerTenant" | "rateLimiter" | "workers"> = {},
): FairQueue<Req> {
  return new FairQueue<Req>({
    key: (r) => `${r.tenant}/${r.name}`,
    tenant: (r) => r.tenant,
    clock,
    rateLimiter: new ExponentialFailureRateLimiter({ baseDelayMs: 100, jitter: 0 }),
    metrics,
    ...options,
  });
}

const capped = (maxInFlightPerTenant: number, clock = new ManualClock(), metrics?: QueueMetrics): FairQueue<Req> =>
  makeQueue(clock, metrics, { maxInFlightPerTenant });

// A queue for `workers` workers with the Controller's default cap.
const forWorkers = (workers: number, clock = new ManualClock(), metrics?: QueueMetrics): FairQueue<Req> =>
  makeQueue(clock, metrics, { workers, maxInFlightPerTenant: defaultMaxInFlightPerTenant(workers) });

const flood = (queue: FairQueue<Req>, tenant: string, count = 100): void => {
  for (let i = 0; i < count; i++) queue.add(req(tenant, `${i}`));
};

// Only for queues with items ready: a get that would wait is a test bug.
async function takeNames(queue: FairQueue<Req>, count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const item = await queue.get();
    if (item === undefined) throw new Error(`get ${i} resolved undefined`);
    names.push(`${item.tenant}/${item.name}`);
  }
  return names;
}

// Lets every pending promise callback run; no time passes on any clock.
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function track<T>(promise: Promise<T>): { settled: () => boolean; value: () => T | undefined } {
  let settled = false;
  let value: T | undefined;
  void promise.then((v) => {
    settled = true;
    value = v;
  });
  return { settled: () => settled, value: () => value };
}

/**
 * `count` workers that each hold an item for `holdMs(item)` on `clock`
 * before `done`, as a Controller's workers hold a reconcile. They stop at
 * shutdown.
 */
function startWorkers(queue: FairQueue<Req>, clock: ManualClock, count: number, holdMs: (item: Req) => number): void {
  const work = async (): Promise<void> => {
    for (let item = await queue.get(); item !== undefined; item = await queue.get()) {
      const held = item;
      await new Promise<void>((resolve) => clock.setTimeout(resolve, holdMs(held)));
      queue.done(held);
    }
  };
  for (let i = 0; i < count; i++) void work();
}

// One second at a time, letting workers take items and set their timers
// (a promise tick after a get) before time moves on.
async function advanceSeconds(clock: ManualClock, seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    await flush();
    clock.advance(1000);
  }
  await flush();
}

class RecordingMetrics implements QueueMetrics {
  adds = 0;
  retries = 0;
  readonly depths: number[] = [];
  readonly latencies: [number, string][] = [];
  readonly durations: number[] = [];

  add(): void {
    this.adds++;
  }

  retry(): void {
    this.retries++;
  }

  depth(items: number): void {
    this.depths.push(items);
  }

  queueLatency(seconds: number, tenant: string): void {
    this.latencies.push([seconds, tenant]);
  }

  workDuration(seconds: number): void {
    this.durations.push(seconds);
  }
}

describe("FairQueue", () => {
  describe("add", () => {
    it("folds repeated adds of a waiting key into one item", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      queue.add(req("a", "x"));
      queue.add(req("a", "y"));
      queue.add(req("a", "x"));
      expect(queue.length).toBe(2);
      expect(await takeNames(queue, 2)).toEqual(["a/x", "a/y"]);
      expect(queue.length).toBe(0);
    });

    it("keeps a folded key at its first place but hands out the newest item", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x", 1));
      queue.add(req("a", "y", 1));
      queue.add(req("a", "x", 2));
      expect(await queue.get()).toEqual(req("a", "x", 2));
      expect(await queue.get()).toEqual(req("a", "y", 1));
    });

    it("parks a key added while it is processing instead of handing it out a second time", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x", 1));
      expect(await queue.get()).toEqual(req("a", "x", 1));
      queue.add(req("a", "x", 2));
      queue.add(req("a", "x", 3));
      expect(queue.length).toBe(0);
      const second = track(queue.get());
      await flush();
      expect(second.settled()).toBe(false);
      queue.done(req("a", "x", 1));
      await flush();
      expect(second.value()).toEqual(req("a", "x", 3));
      expect(queue.processingCount).toBe(1);
    });

    it("is ignored after shutdown", () => {
      const queue = makeQueue();
      queue.shutDown();
      queue.add(req("a", "x"));
      expect(queue.length).toBe(0);
      expect(queue.tenants()).toEqual([]);
    });
  });

  describe("get", () => {
    it("hands out one tenant's items in the order they were added", async () => {
      const queue = makeQueue();
      for (const name of ["3", "1", "2"]) queue.add(req("a", name));
      expect(await takeNames(queue, 3)).toEqual(["a/3", "a/1", "a/2"]);
    });

    it("serves tenants round-robin, one item per turn, in the order they became ready", async () => {
      const queue = makeQueue();
      for (const name of ["1", "2", "3"]) queue.add(req("A", name));
      for (const name of ["1", "2"]) queue.add(req("B", name));
      queue.add(req("C", "1"));
      expect(await takeNames(queue, 6)).toEqual(["A/1", "B/1", "C/1", "A/2", "B/2", "A/3"]);
    });

    it("hands out another tenant's key within two gets even behind 10,000 ready keys", async () => {
      const queue = makeQueue();
      for (let i = 0; i < 10_000; i++) queue.add(req("A", `k${i}`));
      queue.add(req("B", "only"));
      const nextTwo = await takeNames(queue, 2);
      expect(nextTwo).toContain("B/only");
      expect(queue.length).toBe(9_999);
    });

    it("gives a tenant that shows up late its turn in the next round", async () => {
      const queue = makeQueue();
      for (let i = 0; i < 5; i++) queue.add(req("A", `${i}`));
      for (let i = 0; i < 5; i++) queue.add(req("B", `${i}`));
      expect(await takeNames(queue, 3)).toEqual(["A/0", "B/0", "A/1"]);
      queue.add(req("C", "0"));
      expect(await takeNames(queue, 3)).toEqual(["B/1", "A/2", "C/0"]);
    });

    it("waits while nothing is ready and resolves when an item is added", async () => {
      const queue = makeQueue();
      const pending = track(queue.get());
      await flush();
      expect(pending.settled()).toBe(false);
      queue.add(req("a", "x"));
      await flush();
      expect(pending.value()).toEqual(req("a", "x"));
      expect(queue.processingCount).toBe(1);
    });

    it("gives concurrent getters distinct items, oldest getter first", async () => {
      const queue = makeQueue();
      const getters = [queue.get(), queue.get(), queue.get()];
      const late = track(queue.get());
      queue.add(req("a", "1"));
      queue.add(req("a", "1"));
      queue.add(req("b", "1"));
      queue.add(req("a", "2"));
      const items = await Promise.all(getters);
      expect(items).toEqual([req("a", "1"), req("b", "1"), req("a", "2")]);
      await flush();
      expect(late.settled()).toBe(false);
      expect(queue.processingCount).toBe(3);
    });

    it("resolves undefined when its signal aborts, leaving the other getters waiting", async () => {
      const queue = makeQueue();
      const controller = new AbortController();
      const aborted = queue.get(controller.signal);
      const other = queue.get();
      controller.abort();
      expect(await aborted).toBeUndefined();
      queue.add(req("a", "x"));
      expect(await other).toEqual(req("a", "x"));
    });

    it("resolves undefined for an already aborted signal without taking an item", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      expect(await queue.get(AbortSignal.abort())).toBeUndefined();
      expect(queue.length).toBe(1);
      expect(queue.processingCount).toBe(0);
    });

    it("gives each of 200 tenants one turn per round until all are drained", async () => {
      const queue = makeQueue();
      for (let i = 0; i < 2000; i++) queue.add(req(`t${i % 200}`, `k${i}`));
      for (let round = 0; round < 10; round++) {
        const tenants = new Set<string>();
        for (let i = 0; i < 200; i++) {
          const item = await queue.get();
          if (item === undefined) throw new Error("queue ran dry early");
          tenants.add(item.tenant);
          queue.done(item);
        }
        expect(tenants.size).toBe(200);
      }
      expect(queue.length).toBe(0);
      expect(queue.tenants()).toEqual([]);
    });
  });

  describe("done", () => {
    it("puts a key re-added during processing behind its tenant's waiting items", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      queue.add(req("a", "y"));
      expect(await takeNames(queue, 1)).toEqual(["a/x"]);
      queue.add(req("a", "x"));
      queue.add(req("a", "z"));
      queue.done(req("a", "x"));
      expect(await takeNames(queue, 3)).toEqual(["a/y", "a/z", "a/x"]);
    });

    it("does not re-queue a key that was not added again", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      const item = await queue.get();
      if (item !== undefined) queue.done(item);
      expect(queue.length).toBe(0);
      expect(queue.processingCount).toBe(0);
    });

    it("ignores a key that is not being processed", () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      queue.done(req("a", "x"));
      queue.done(req("a", "never"));
      expect(queue.length).toBe(1);
      expect(queue.processingCount).toBe(0);
    });
  });

  describe("addAfter", () => {
    it("adds items when they fall due, in due-time order", async () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.addAfter(req("a", "late"), 300);
      queue.addAfter(req("a", "early"), 100);
      queue.addAfter(req("a", "middle"), 200);
      clock.advance(99);
      expect(queue.length).toBe(0);
      clock.advance(1);
      expect(queue.length).toBe(1);
      clock.advance(500);
      expect(await takeNames(queue, 3)).toEqual(["a/early", "a/middle", "a/late"]);
    });

    it("keeps one clock timer however many items wait", () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      for (let i = 0; i < 1000; i++) queue.addAfter(req(`t${i % 7}`, `k${i}`), 1000 - i);
      expect(clock.pendingTimers).toBe(1);
      clock.advance(500);
      expect(queue.length).toBe(500);
      expect(clock.pendingTimers).toBe(1);
      clock.advance(500);
      expect(queue.length).toBe(1000);
      expect(clock.pendingTimers).toBe(0);
    });

    it("keeps the earlier due time when a waiting key is delayed again", () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.addAfter(req("a", "x"), 100);
      queue.addAfter(req("a", "x"), 500);
      queue.addAfter(req("a", "y"), 500);
      queue.addAfter(req("a", "y"), 100);
      clock.advance(100);
      expect(queue.length).toBe(2);
      clock.advance(1000);
      expect(queue.length).toBe(2);
    });

    it("adds at once for a delay that is not positive", () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.addAfter(req("a", "x"), 0);
      queue.addAfter(req("a", "y"), -5);
      expect(queue.length).toBe(2);
      expect(clock.pendingTimers).toBe(0);
    });

    it("folds into the key when it falls due while the key is already waiting", async () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.add(req("a", "x", 1));
      queue.addAfter(req("a", "x", 2), 50);
      clock.advance(50);
      expect(queue.length).toBe(1);
      expect(await queue.get()).toEqual(req("a", "x", 2));
    });
  });

  describe("addRateLimited", () => {
    it("delays by the key's backoff, which grows with each retry", async () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.addRateLimited(req("a", "x"));
      clock.advance(99);
      expect(queue.length).toBe(0);
      clock.advance(1);
      expect(queue.length).toBe(1);
      const x = await queue.get();
      if (x !== undefined) queue.done(x);
      queue.addRateLimited(req("a", "x"));
      expect(queue.retries(req("a", "x"))).toBe(2);
      clock.advance(199);
      expect(queue.length).toBe(0);
      clock.advance(1);
      expect(queue.length).toBe(1);
    });

    it("asks the rate limiter with the item's tenant", () => {
      const asked: [string, string][] = [];
      const recording: RateLimiter = {
        when: (key, tenant) => {
          asked.push([key, tenant]);
          return 0;
        },
        forget: () => undefined,
        retries: () => 0,
      };
      const queue = makeQueue(new ManualClock(), undefined, { rateLimiter: recording });
      queue.addRateLimited(req("a", "x"));
      queue.addRateLimited(req("b", "y"));
      expect(asked).toEqual([
        ["a/x", "a"],
        ["b/y", "b"],
      ]);
    });

    it("by default, lets one tenant's many failing keys delay only that tenant's retries", () => {
      const clock = new ManualClock();
      const queue = new FairQueue<Req>({ key: (r) => `${r.tenant}/${r.name}`, tenant: (r) => r.tenant, clock });
      for (let i = 0; i < 1000; i++) queue.addRateLimited(req("noisy", `k${i}`));
      queue.addRateLimited(req("quiet", "x"));
      clock.advance(5);
      expect(queue.tenantDepth("quiet")).toBe(1);
      expect(queue.tenantDepth("noisy")).toBe(100);
      clock.advance(1000);
      expect(queue.tenantDepth("noisy")).toBe(110);
    });

    it("does nothing after shutdown, not even counting a retry", () => {
      const queue = makeQueue();
      queue.shutDown();
      queue.addRateLimited(req("a", "x"));
      expect(queue.retries(req("a", "x"))).toBe(0);
    });
  });

  describe("forget", () => {
    it("resets the key's backoff and retry count", () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      for (let i = 0; i < 3; i++) queue.addRateLimited(req("a", "x"));
      expect(queue.retries(req("a", "x"))).toBe(3);
      queue.forget(req("a", "x"));
      expect(queue.retries(req("a", "x"))).toBe(0);
      clock.advance(100);
      queue.addRateLimited(req("a", "y"));
      queue.forget(req("a", "y"));
      queue.addRateLimited(req("a", "y"));
      clock.advance(100);
      expect(queue.tenantDepth("a")).toBe(2);
    });
  });

  describe("maxInFlightPerTenant", () => {
    it("skips a tenant at its cap and keeps serving the others", async () => {
      const queue = capped(2);
      for (let i = 0; i < 5; i++) queue.add(req("A", `${i}`));
      for (let i = 0; i < 2; i++) queue.add(req("B", `${i}`));
      queue.add(req("C", "0"));
      expect(await takeNames(queue, 5)).toEqual(["A/0", "B/0", "C/0", "A/1", "B/1"]);
      expect(["A", "B", "C"].map((tenant) => queue.tenantInFlight(tenant))).toEqual([2, 2, 1]);
      expect(queue.length).toBe(3);
      expect(queue.tenantDepth("A")).toBe(3);
      expect(queue.tenants()).toEqual([]);
    });

    it("waits while only tenants at their cap have ready items, and serves one when its item is done", async () => {
      const queue = capped(1);
      queue.add(req("A", "0"));
      queue.add(req("A", "1"));
      expect(await takeNames(queue, 1)).toEqual(["A/0"]);
      const next = track(queue.get());
      await flush();
      expect(next.settled()).toBe(false);
      queue.done(req("A", "0"));
      await flush();
      expect(next.value()).toEqual(req("A", "1"));
      expect(queue.tenantInFlight("A")).toBe(1);
    });

    it("takes a tenant at its cap out of the ring and puts it back at the tail when one of its items is done", async () => {
      const queue = capped(1);
      for (const tenant of ["A", "B", "C"]) {
        queue.add(req(tenant, "0"));
        queue.add(req(tenant, "1"));
      }
      expect(await takeNames(queue, 1)).toEqual(["A/0"]);
      expect(queue.tenants()).toEqual(["B", "C"]);
      expect(await takeNames(queue, 1)).toEqual(["B/0"]);
      queue.done(req("A", "0"));
      expect(queue.tenants()).toEqual(["C", "A"]);
      expect(await takeNames(queue, 2)).toEqual(["C/0", "A/1"]);
      expect(queue.tenants()).toEqual([]);
      expect(queue.length).toBe(2);
    });

    it("hands a second worker a quiet tenant's item at once while a slow tenant holds the first", async () => {
      const queue = capped(1);
      for (let i = 0; i < 1000; i++) queue.add(req("slow", `${i}`));
      const first = await queue.get();
      for (let i = 0; i < 3; i++) {
        queue.add(req("quiet", `${i}`));
        expect(await takeNames(queue, 1)).toEqual([`quiet/${i}`]);
        queue.done(req("quiet", `${i}`));
      }
      expect(first).toEqual(req("slow", "0"));
      expect(queue.tenantDepth("slow")).toBe(999);
      expect(queue.processingCount).toBe(1);
    });

    it("serves in plain round-robin order when every item is done before the next get", async () => {
      const queue = capped(1);
      for (const name of ["1", "2", "3"]) queue.add(req("A", name));
      for (const name of ["1", "2"]) queue.add(req("B", name));
      queue.add(req("C", "1"));
      const names: string[] = [];
      for (let i = 0; i < 6; i++) {
        const [name] = await takeNames(queue, 1);
        if (name !== undefined) names.push(name);
        const [tenant, key] = (name ?? "").split("/");
        queue.done(req(tenant ?? "", key ?? ""));
      }
      expect(names).toEqual(["A/1", "B/1", "C/1", "A/2", "B/2", "A/3"]);
    });

    it("keeps a re-added key exclusive: it waits for its own done even with room under the cap", async () => {
      const queue = capped(2);
      queue.add(req("A", "x", 1));
      expect(await queue.get()).toEqual(req("A", "x", 1));
      queue.add(req("A", "x", 2));
      const next = track(queue.get());
      await flush();
      expect(next.settled()).toBe(false);
      queue.done(req("A", "x"));
      await flush();
      expect(next.value()).toEqual(req("A", "x", 2));
    });

    it("puts a key re-added at the cap behind its tenant's waiting items, and the tenant in the ring once", async () => {
      const queue = capped(1);
      queue.add(req("A", "x"));
      queue.add(req("A", "y"));
      expect(await takeNames(queue, 1)).toEqual(["A/x"]);
      queue.add(req("A", "x"));
      queue.add(req("B", "z"));
      queue.done(req("A", "x"));
      expect(queue.tenants()).toEqual(["B", "A"]);
      expect(await takeNames(queue, 2)).toEqual(["B/z", "A/y"]);
      expect(queue.tenants()).toEqual([]);
      queue.done(req("A", "y"));
      expect(queue.tenants()).toEqual(["A"]);
      expect(await takeNames(queue, 1)).toEqual(["A/x"]);
    });

    it("brings a tenant whose last ready item went out back with its next add once below the cap", async () => {
      const queue = capped(1);
      queue.add(req("A", "0"));
      await queue.get();
      queue.add(req("A", "1"));
      expect(queue.tenants()).toEqual([]);
      queue.done(req("A", "0"));
      expect(queue.tenants()).toEqual(["A"]);
      queue.add(req("A", "2"));
      expect(queue.tenants()).toEqual(["A"]);
      expect(await takeNames(queue, 1)).toEqual(["A/1"]);
    });

    it("holds a delayed add of a tenant at its cap in its FIFO until a done, measuring the wait as queue latency", async () => {
      const clock = new ManualClock();
      const recorded = new RecordingMetrics();
      const queue = capped(1, clock, recorded);
      queue.add(req("A", "0"));
      await queue.get();
      queue.addAfter(req("A", "1"), 100);
      const next = track(queue.get());
      clock.advance(100);
      expect(queue.tenantDepth("A")).toBe(1);
      expect(queue.tenants()).toEqual([]);
      clock.advance(50);
      await flush();
      expect(next.settled()).toBe(false);
      queue.done(req("A", "0"));
      await flush();
      expect(next.value()).toEqual(req("A", "1"));
      expect(recorded.latencies).toEqual([
        [0, "A"],
        [0.05, "A"],
      ]);
      expect(recorded.depths).toEqual([1, 0, 1, 0]);
    });

    it("leaves a getter waiting behind a capped tenant free to abort", async () => {
      const queue = capped(1);
      queue.add(req("A", "0"));
      queue.add(req("A", "1"));
      await queue.get();
      const controller = new AbortController();
      const aborted = queue.get(controller.signal);
      controller.abort();
      expect(await aborted).toBeUndefined();
      queue.done(req("A", "0"));
      expect(await takeNames(queue, 1)).toEqual(["A/1"]);
    });

    it("on shutdown drops a capped tenant's waiting items, and its done neither re-queues nor blocks drain", async () => {
      const queue = capped(1);
      queue.add(req("A", "0"));
      queue.add(req("A", "1"));
      await queue.get();
      queue.add(req("A", "0"));
      queue.shutDown();
      const drained = track(queue.drain());
      await flush();
      expect(drained.settled()).toBe(false);
      queue.done(req("A", "0"));
      await flush();
      expect(drained.settled()).toBe(true);
      expect([queue.length, queue.processingCount, queue.tenantInFlight("A")]).toEqual([0, 0, 0]);
      expect(queue.tenants()).toEqual([]);
      expect(await queue.get()).toBeUndefined();
    });

    it("reaches a tenant below its cap in one get behind 10,000 tenants at theirs", async () => {
      const queue = capped(1);
      for (let i = 0; i < 10_000; i++) {
        queue.add(req(`t${i}`, "0"));
        queue.add(req(`t${i}`, "1"));
      }
      await takeNames(queue, 10_000);
      expect(queue.tenants()).toEqual([]);
      queue.add(req("free", "0"));
      expect(await takeNames(queue, 1)).toEqual(["free/0"]);
      expect(queue.length).toBe(10_000);
    });

    it("forgets a tenant's count once nothing of it is in processing, however many come and go", async () => {
      const queue = capped(2);
      for (let i = 0; i < 1000; i++) {
        queue.add(req(`tenant-${i}`, "x"));
        queue.add(req(`tenant-${i}`, "y"));
        const items = [await queue.get(), await queue.get()];
        expect(queue.tenantInFlight(`tenant-${i}`)).toBe(2);
        for (const item of items) if (item !== undefined) queue.done(item);
      }
      expect(queue.tenantInFlight("tenant-999")).toBe(0);
      expect([queue.length, queue.processingCount]).toEqual([0, 0]);
    });

    it("rejects a cap that is not a whole number of at least one, and takes Infinity for none", () => {
      for (const cap of [0, -1, 1.5, Number.NaN]) expect(() => capped(cap)).toThrow(RangeError);
      expect(() => capped(Number.POSITIVE_INFINITY)).not.toThrow();
    });
  });

  describe("workers: the reserve for tenants with nothing in processing", () => {
    // Three tenants flood a second apart, their n-th item taking 60 + n
    // seconds; a quiet tenant adds one item at 5 s. With 8 workers one is
    // still free; with 4 every one is taken and the first frees at 60 s.
    const quietFirst = "with %i workers, hands a quiet tenant's item to the first free worker, ahead of three noisy tenants' slow items (waits %i s)";
    it.each([
      [8, 0],
      [4, 55],
    ])(quietFirst, async (workers, waitSeconds) => {
      const clock = new ManualClock();
      const recorded = new RecordingMetrics();
      const queue = forWorkers(workers, clock, recorded);
      startWorkers(queue, clock, workers, (item) => (item.tenant === "quiet" ? 1000 : 60_000 + 1000 * Number(item.name)));
      for (const tenant of ["A", "B", "C"]) {
        flood(queue, tenant);
        await advanceSeconds(clock, 1);
      }
      await advanceSeconds(clock, 2);
      queue.add(req("quiet", "x"));
      await advanceSeconds(clock, 60);
      expect(recorded.latencies.filter(([, tenant]) => tenant === "quiet")).toEqual([[waitSeconds, "quiet"]]);
      queue.shutDown();
    });

    it("keeps a worker free from three noisy tenants on 8 workers, however they arrive", async () => {
      const queue = forWorkers(8);
      const gets = Array.from({ length: 8 }, () => track(queue.get()));
      for (const tenant of ["A", "B", "C"]) {
        flood(queue, tenant);
        await flush();
      }
      expect(["A", "B", "C"].map((tenant) => queue.tenantInFlight(tenant))).toEqual([4, 2, 1]);
      expect(gets.filter((get) => !get.settled())).toHaveLength(1);
      queue.add(req("quiet", "x"));
      await flush();
      expect(gets.every((get) => get.settled())).toBe(true);
      expect(queue.tenantInFlight("quiet")).toBe(1);
    });

    it("when noisy tenants hold all 4 workers, gives the next worker to free the quiet tenant, not their queued items", async () => {
      const queue = forWorkers(4);
      const gets = Array.from({ length: 4 }, () => track(queue.get()));
      for (const tenant of ["A", "B", "C"]) {
        flood(queue, tenant);
        await flush();
      }
      expect(gets.every((get) => get.settled())).toBe(true);
      queue.add(req("quiet", "x"));
      expect(queue.tenants()).toEqual(["B", "C", "quiet"]);
      queue.done(req("A", "0"));
      expect(await takeNames(queue, 1)).toEqual(["quiet/x"]);
      expect(queue.tenants()).toEqual(["A", "B", "C"]);
    });

    it("lets a tenant alone take its whole cap, and a second busy tenant only what the reserve leaves", async () => {
      const queue = forWorkers(8);
      const gets = Array.from({ length: 8 }, () => track(queue.get()));
      flood(queue, "A");
      await flush();
      expect(queue.tenantInFlight("A")).toBe(defaultMaxInFlightPerTenant(8));
      flood(queue, "B");
      await flush();
      expect(queue.tenantInFlight("B")).toBe(2);
      expect(gets.filter((get) => !get.settled())).toHaveLength(2);
    });

    it("serves tenants with items in processing again, in round-robin order, once items done free the reserve", async () => {
      const queue = forWorkers(4);
      for (const tenant of ["A", "B", "C"]) flood(queue, tenant);
      expect(await takeNames(queue, 3)).toEqual(["A/0", "B/0", "C/0"]);
      const fourth = track(queue.get());
      await flush();
      expect(fourth.settled()).toBe(false);
      queue.done(req("B", "0"));
      await flush();
      expect(fourth.value()).toEqual(req("A", "1"));
      expect(await takeNames(queue, 1)).toEqual(["B/1"]);
    });

    it("rejects a worker count that is not a whole number of at least one", () => {
      for (const workers of [0, -1, 1.5, Number.NaN]) expect(() => forWorkers(workers)).toThrow(RangeError);
    });
  });

  describe("reservedWorkers", () => {
    it("with the default cap, reserves a quarter of the workers rounded up, none for a single worker", () => {
      const counts = [1, 2, 4, 8, 16];
      expect(counts.map(defaultMaxInFlightPerTenant)).toEqual([1, 1, 2, 4, 8]);
      expect(counts.map((workers) => reservedWorkers(workers, defaultMaxInFlightPerTenant(workers)))).toEqual([0, 1, 1, 2, 4]);
    });

    it("never reserves more than the cap leaves, so a cap of every worker reserves none", () => {
      const caps: [number, number][] = [
        [8, 7],
        [8, 8],
        [4, 4],
        [8, Number.POSITIVE_INFINITY],
      ];
      expect(caps.map(([workers, cap]) => reservedWorkers(workers, cap))).toEqual([1, 0, 0, 0]);
    });
  });

  describe("defaultMaxInFlightPerTenant", () => {
    it("is half the workers rounded up, and one for a single worker", () => {
      expect([1, 2, 3, 4, 8, 9, 16].map(defaultMaxInFlightPerTenant)).toEqual([1, 1, 2, 2, 4, 5, 8]);
      expect(defaultMaxInFlightPerTenant(0)).toBe(1);
    });
  });

  describe("tenants and tenantDepth", () => {
    it("report ready items per tenant in serving order", async () => {
      const queue = makeQueue();
      queue.add(req("b", "1"));
      queue.add(req("a", "1"));
      queue.add(req("a", "2"));
      expect(queue.tenants()).toEqual(["b", "a"]);
      expect([queue.tenantDepth("a"), queue.tenantDepth("b"), queue.tenantDepth("none")]).toEqual([2, 1, 0]);
      await queue.get();
      expect(queue.tenants()).toEqual(["a"]);
      expect(queue.tenantDepth("b")).toBe(0);
    });

    it("drop tenants once they have no ready items, however many come and go", async () => {
      const queue = makeQueue();
      for (let i = 0; i < 1000; i++) {
        queue.add(req(`tenant-${i}`, "x"));
        const item = await queue.get();
        if (item !== undefined) queue.done(item);
      }
      expect(queue.tenants()).toEqual([]);
      expect(queue.length).toBe(0);
      expect(queue.processingCount).toBe(0);
    });
  });

  describe("shutDown", () => {
    it("resolves waiting gets with undefined and later gets at once", async () => {
      const queue = makeQueue();
      const waiting = [queue.get(), queue.get()];
      queue.shutDown();
      expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
      expect(await queue.get()).toBeUndefined();
      expect(queue.shuttingDown).toBe(true);
    });

    it("drops ready and delayed items and stops the timer", async () => {
      const clock = new ManualClock();
      const queue = makeQueue(clock);
      queue.add(req("a", "x"));
      queue.addAfter(req("a", "y"), 10);
      queue.shutDown();
      expect(queue.length).toBe(0);
      expect(clock.pendingTimers).toBe(0);
      clock.advance(100);
      expect(await queue.get()).toBeUndefined();
    });

    it("does not re-queue a key that was re-added while processing", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      await queue.get();
      queue.add(req("a", "x"));
      queue.shutDown();
      queue.done(req("a", "x"));
      expect(queue.length).toBe(0);
      expect(queue.processingCount).toBe(0);
    });
  });

  describe("drain", () => {
    it("waits until every item handed out is done", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      queue.add(req("b", "y"));
      const [x, y] = await Promise.all([queue.get(), queue.get()]);
      queue.shutDown();
      const drained = track(queue.drain());
      if (x !== undefined) queue.done(x);
      await flush();
      expect(drained.settled()).toBe(false);
      if (y !== undefined) queue.done(y);
      await flush();
      expect(drained.settled()).toBe(true);
    });

    it("resolves at once when nothing is being processed", async () => {
      const queue = makeQueue();
      queue.add(req("a", "x"));
      queue.shutDown();
      await expect(queue.drain()).resolves.toBeUndefined();
    });
  });

  describe("metrics", () => {
    it("counts adds as client-go does: not those folded into a waiting key; delayed ones when due; and every retry", () => {
      const clock = new ManualClock();
      const recorded = new RecordingMetrics();
      const queue = makeQueue(clock, recorded);
      queue.add(req("a", "x"));
      queue.add(req("a", "x"));
      queue.addAfter(req("a", "y"), 10);
      expect(recorded.adds).toBe(1);
      clock.advance(10);
      expect(recorded.adds).toBe(2);
      queue.addAfter(req("a", "y"), 10);
      clock.advance(10);
      expect(recorded.adds).toBe(2);
      queue.addRateLimited(req("a", "z"));
      expect(recorded.retries).toBe(1);
      clock.advance(100);
      expect(recorded.adds).toBe(3);
      queue.shutDown();
      queue.add(req("a", "w"));
      expect(recorded.adds).toBe(3);
    });

    it("counts the first add of a key in processing, which makes it dirty, but not the ones folded into it", async () => {
      const recorded = new RecordingMetrics();
      const queue = makeQueue(new ManualClock(), recorded);
      queue.add(req("a", "x"));
      await queue.get();
      queue.add(req("a", "x"));
      queue.add(req("a", "x"));
      expect(recorded.adds).toBe(2);
      queue.done(req("a", "x"));
      expect(recorded.adds).toBe(2);
      expect(queue.length).toBe(1);
    });

    it("reports the ready depth each time it changes", async () => {
      const recorded = new RecordingMetrics();
      const queue = makeQueue(new ManualClock(), recorded);
      queue.add(req("a", "x"));
      queue.add(req("b", "y"));
      queue.add(req("a", "x"));
      const x = await queue.get();
      queue.add(req("a", "x"));
      if (x !== undefined) queue.done(x);
      queue.shutDown();
      expect(recorded.depths).toEqual([1, 2, 1, 2, 0]);
    });

    it("reports queue latency per tenant from when the item became ready, and work duration, in seconds", async () => {
      const clock = new ManualClock();
      const recorded = new RecordingMetrics();
      const queue = makeQueue(clock, recorded);
      queue.add(req("a", "x"));
      queue.addAfter(req("b", "y"), 1000);
      clock.advance(1250);
      const x = await queue.get();
      const y = await queue.get();
      clock.advance(2000);
      if (x !== undefined) queue.done(x);
      clock.advance(500);
      if (y !== undefined) queue.done(y);
      expect(recorded.latencies).toEqual([
        [1.25, "a"],
        [0.25, "b"],
      ]);
      expect(recorded.durations).toEqual([2, 2.5]);
    });
  });
});
