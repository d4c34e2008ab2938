import { describe, expect, it } from "@jest/globals";
import { ManualClock } from "../queue/clock.js";
import { LeaderElector } from "./leader-elector.js";
import { LeaseLock, type LeaseClient } from "./lease.js";
import { memoryLeases } from "./memory-leases.fixture.js";

/**
 * How the API server answers writes: at once; "held" (committed at once, the
 * answer kept until `answerHeld`), as over a slow network; or "never" (no
 * commit, no answer until the caller gives up), as from a partition.
 */
type Answers = "now" | "held" | "never";

function scriptedLeases(): { client: LeaseClient; answers: { mode: Answers }; answerHeld: () => void } {
  const leases = memoryLeases();
  const answers = { mode: "now" as Answers };
  const held: (() => void)[] = [];
  const write = <T>(commit: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
    if (answers.mode === "never") return new Promise<T>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));
    const committed = commit();
    if (answers.mode === "now") return committed;
    return new Promise<T>((resolve) => held.push(() => resolve(committed)));
  };
  return {
    client: {
      ...leases,
      create: (path, body, options) => write(() => leases.create(path, body), options?.signal),
      replace: (path, body, options) => write(() => leases.replace(path, body), options?.signal),
    },
    answers,
    answerHeld: () => held.splice(0).forEach((answer) => answer()),
  };
}

/** Moves the clock in small steps, letting the elector's promises settle after each. */
async function advance(clock: ManualClock, ms: number): Promise<void> {
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  await settle();
  for (let left = ms; left > 0; left -= 100) {
    clock.advance(Math.min(100, left));
    await settle();
  }
}

function elector(client: LeaseClient, clock: ManualClock): { periods: { from: number; to?: number }[]; stop: () => Promise<void> } {
  const periods: { from: number; to?: number }[] = [];
  const shutdown = new AbortController();
  const running = new LeaderElector({
    lock: new LeaseLock(client, "kube-system", "leader"),
    identity: "a",
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    clock,
    onStartedLeading: (signal) => {
      const period: { from: number; to?: number } = { from: clock.now() };
      periods.push(period);
      signal.addEventListener("abort", () => (period.to = clock.now()), { once: true });
    },
  }).run(shutdown.signal);
  return {
    periods,
    stop: async () => {
      shutdown.abort();
      await running;
    },
  };
}

describe("LeaderElector", () => {
  it("renews every retry period and leads on", async () => {
    const clock = new ManualClock();
    const { client } = scriptedLeases();
    const a = elector(client, clock);
    await advance(clock, 60_000);
    expect(a.periods).toEqual([{ from: 0 }]);
    await a.stop();
  });

  it("stops leading at the start of its last renewal plus the renew deadline, however late the answer came", async () => {
    const clock = new ManualClock();
    const { client, answers, answerHeld } = scriptedLeases();
    const a = elector(client, clock);
    await advance(clock, 1_000);
    answers.mode = "held";
    await advance(clock, 1_000); // the renewal starts at 2 000 and commits
    await advance(clock, 7_000);
    answers.mode = "never";
    answerHeld(); // its answer arrives at 9 000
    await advance(clock, 20_000);
    expect(a.periods).toEqual([{ from: 0, to: 2_000 + 10_000 }]);
    answers.mode = "now";
    await a.stop();
  });

  it("counts the first deadline from the start of the acquiring attempt", async () => {
    const clock = new ManualClock();
    const { client, answers, answerHeld } = scriptedLeases();
    answers.mode = "held";
    const a = elector(client, clock);
    await advance(clock, 9_000);
    answers.mode = "never";
    answerHeld();
    await advance(clock, 20_000);
    expect(a.periods).toEqual([{ from: 9_000, to: 10_000 }]);
    answers.mode = "now";
    await a.stop();
  });

  it("does not start leading on an answer that came after the deadline, but renews first", async () => {
    const clock = new ManualClock();
    const { client, answers, answerHeld } = scriptedLeases();
    answers.mode = "held";
    const a = elector(client, clock);
    await advance(clock, 10_500);
    answers.mode = "now";
    answerHeld();
    await advance(clock, 1_000);
    expect(a.periods).toEqual([{ from: 10_500 }]);
    await a.stop();
  });
});
