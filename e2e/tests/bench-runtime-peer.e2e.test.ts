/**
 * Smoke run of `pnpm bench:runtime -- --peer go` (e2e/bench/runtime-bench.ts)
 * on the e2e run's kcp: three tenants, one widget each, a flood of 100, five
 * noisy widgets per noisy tenant, two rounds (ours first, then the peer
 * first), the quiet tenant at one write every 50 ms and ten updates per
 * isolation measurement (the benchmark's 200 ms and 100 would sit out 40 s
 * per session). Checks that ours and the Go peer
 * (scripts/binaries/widget-controller-go) both went through every phase in
 * each round and that each figure of both was measured; the figures themselves are not
 * judged (a loaded CI machine is no benchmark). Skipped only when the Go
 * peer cannot be built, and then not in CI, which fails instead (`provided`).
 */
import { describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BinaryUnavailableError, connectFromEnv, provided, REPO_ROOT, resolveBinary } from "@edgeconnect/testenv";

const run = promisify(execFile);
const BENCH = join(REPO_ROOT, "e2e", "dist", "bench", "runtime-bench.js");
const TIMEOUT_MS = 480_000;
const ROUNDS = 2;
const TENANTS = 3;
/** Long enough (a second or more on either side) that the quiet tenant, creating one widget every QUIET_INTERVAL_MS, is measured during it. */
const FLOOD = 100;
const QUIET_INTERVAL_MS = 50;
const ISOLATION_UPDATES = 10;
const RATIOS = ["bootMs", "initialReconciledMs", "burstP50Ms", "floodReconcilesPerSecond", "quietP50Ms", "isolationIdleP50Ms", "isolationNoisyP50Ms", "peakRssBytes"];

// Built here, not in the benchmark's run, so that the skip names the reason.
let unavailable: string | undefined;
try {
  await resolveBinary("widget-controller-go", { log: (message) => console.warn(`[binaries] ${message}`) });
} catch (err) {
  if (!(err instanceof BinaryUnavailableError)) throw err;
  unavailable = err.message;
}
const itWithPeer = provided("bench:runtime --peer go smoke", unavailable === undefined ? undefined : `the Go peer cannot be built: ${unavailable}`) ? it : it.skip;

interface Latency {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

interface Session {
  readonly initialSync: { readonly bootMs: number; readonly objects: number; readonly syncedMs: number; readonly reconciledMs: number; readonly rssAfterBytes: number };
  readonly burst: Latency;
  readonly flood: { readonly count: number; readonly reconcilesPerSecond: number; readonly quiet: Latency };
  readonly process: Record<string, number>;
  readonly isolation: { readonly idle: Latency; readonly noisy: Latency; readonly noisyReconcilesPerSecond: number };
  readonly reconcileResults: Record<string, number>;
}

interface RuntimeResult {
  readonly rounds: { readonly ours: readonly Session[]; readonly peer: readonly Session[] };
  readonly ours: Session;
  readonly peer: Session & { readonly side: string };
  readonly peerRatios: Record<string, number | null>;
}

describe("bench:runtime --peer go", () => {
  itWithPeer(
    "runs ours and the Go peer through every phase on the same kcp and reports each figure of both",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bench-runtime-peer-"));
      try {
        const out = join(dir, "runtime.json");
        const args = ["--tenants", `${TENANTS}`, "--objects", "1", "--flood", `${FLOOD}`, "--noisy-tenants", "2", "--noisy", "5", "--quiet-interval-ms", `${QUIET_INTERVAL_MS}`, "--isolation-updates", `${ISOLATION_UPDATES}`, "--peer", "go", "--rounds", `${ROUNDS}`, "--out", out];
        const { stdout } = await run(process.execPath, [BENCH, ...args, "--kubeconfig", connectFromEnv().state.kcp.kubeconfig], {
          timeout: TIMEOUT_MS - 10_000,
          maxBuffer: 16 * 2 ** 20,
        });
        expect(stdout).toContain("ours/go");
        const result = JSON.parse(readFileSync(out, "utf8")) as RuntimeResult;

        expect(result.peer.side).toBe("go");
        expect([result.rounds.ours.length, result.rounds.peer.length]).toEqual([ROUNDS, ROUNDS]);
        for (const session of [result.ours, result.peer, ...result.rounds.ours, ...result.rounds.peer]) {
          const { initialSync, burst, flood, isolation } = session;
          expect(initialSync.objects).toBe(TENANTS);
          expect(initialSync.bootMs).toBeGreaterThan(0);
          expect(initialSync.syncedMs).toBeGreaterThan(0);
          expect(initialSync.reconciledMs).toBeGreaterThan(0);
          expect(initialSync.rssAfterBytes).toBeGreaterThan(0);
          expect(burst.count).toBe(TENANTS);
          expect(flood.count).toBe(FLOOD);
          expect(flood.reconcilesPerSecond).toBeGreaterThan(0);
          expect(flood.quiet.count).toBeGreaterThan(0);
          expect(isolation.idle.count).toBeGreaterThan(0);
          expect(isolation.noisy.count).toBeGreaterThan(0);
          expect(isolation.noisyReconcilesPerSecond).toBeGreaterThan(0);
          expect(session.process.peakRssBytes).toBeGreaterThan(0);
          // Counted after the flood, before the noisy widgets fail.
          expect(session.reconcileResults.success).toBeGreaterThan(0);
        }
        // Ratios of figures that cannot be zero (CPU time of a short phase can be: it is counted in ticks).
        for (const figure of RATIOS) expect([figure, result.peerRatios[figure]]).toEqual([figure, expect.any(Number)]);
        for (const figure of RATIOS) expect(result.peerRatios[figure]).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
