/**
 * Smoke run of `pnpm bench:boot` (e2e/bench/boot-bench.ts): two restarts of
 * the provider-controller and one module-load probe per program, no crash
 * loop, on the e2e run's kcp and infrastructure cluster (the benchmark starts
 * its Platform there, under names of its own) and a simulated cloud of 20 ms
 * transitions, so that the tenant's cluster the restarts find is Ready in
 * seconds. This checks that it still runs end to end and that every figure it
 * reports was measured; the figures themselves are not judged (a loaded CI
 * machine is no benchmark).
 *
 * And what makes a restart cheaper: the provider-controller writes Node's
 * compile cache once its program has loaded, so that even a process that is
 * killed (a crash loop) leaves it for the next one.
 */
import { describe, expect, it } from "@jest/globals";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createCertificateAuthority } from "@edgeconnect/otc-simulator";
import { connectFromEnv, REPO_ROOT, writeKubeconfig } from "@edgeconnect/testenv";

const run = promisify(execFile);
const BENCH = join(REPO_ROOT, "e2e", "dist", "bench", "boot-bench.js");
const CONTROLLER_MAIN = join(REPO_ROOT, "packages", "provider-controller", "dist", "main.js");
const TIMEOUT_MS = 240_000;

interface Spread {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

interface BootResult {
  readonly loads: readonly {
    readonly program: string;
    readonly cold: { readonly wall: Spread; readonly cpu: Spread };
    readonly compileCache: { readonly wall: Spread };
    readonly loadsUndici: boolean;
  }[];
  readonly boot: {
    readonly runs: readonly { readonly modulesLoadedMs: number; readonly cachesSyncedMs: number; readonly firstReconcileMs: number; readonly spawnToFirstReconcileMs: number }[];
    readonly firstReconcile: Spread;
  };
  readonly crashLoop: unknown;
}

describe("bench:boot", () => {
  it(
    "measures module load, caches synced and first reconcile of two restarts, each figure positive",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bench-boot-"));
      try {
        const out = join(dir, "boot.json");
        const { kcp, infra } = connectFromEnv().state;
        if ("skipped" in infra) throw new Error(infra.skipped);
        const args = ["--runs", "2", "--load-runs", "1", "--otc-delay-ms", "20", "--kcp-kubeconfig", kcp.kubeconfig, "--infra-kubeconfig", infra.kubeconfig, "--out", out];
        const { stdout } = await run(process.execPath, [BENCH, ...args], { timeout: TIMEOUT_MS - 10_000, maxBuffer: 16 * 2 ** 20 });
        expect(stdout).toContain("first reconcile finished");
        const result = JSON.parse(readFileSync(out, "utf8")) as BootResult;

        expect(result.loads.map((load) => load.program)).toEqual(["provider-controller", "cluster-provider-capi", "otc-cloud-controller-manager"]);
        for (const load of result.loads) {
          for (const value of [load.cold.wall.medianMs, load.cold.cpu.medianMs, load.compileCache.wall.medianMs]) expect(value).toBeGreaterThan(0);
        }
        // kcp-ts and the runtime take node:http as a builtin: a program that reaches it only through them does not load undici.
        expect(result.loads.find((load) => load.program === "cluster-provider-capi")?.loadsUndici).toBe(false);
        expect(result.boot.runs).toHaveLength(2);
        for (const boot of result.boot.runs) {
          expect(boot.modulesLoadedMs).toBeGreaterThan(0);
          // Each phase follows the one before it in the same process.
          expect(boot.cachesSyncedMs).toBeGreaterThanOrEqual(boot.modulesLoadedMs);
          expect(boot.firstReconcileMs).toBeGreaterThanOrEqual(boot.cachesSyncedMs);
          expect(boot.spawnToFirstReconcileMs).toBeGreaterThan(0);
        }
        expect(result.boot.firstReconcile.medianMs).toBeGreaterThan(0);
        expect(result.crashLoop).toBeNull();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});

describe("provider-controller compile cache", () => {
  /** Files in the cache directory, 0 before it exists. */
  const cachedFiles = (dir: string): number => {
    try {
      return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
    } catch {
      return 0;
    }
  };

  it("is written once the program has loaded, not at exit, so that a killed process leaves it for the next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "compile-cache-"));
    try {
      // Nothing answers on port 1: the controller starts and retries its lists until killed; it never exits on its own.
      const kubeconfig = writeKubeconfig(join(dir, "nowhere.kubeconfig"), {
        name: "nowhere",
        server: "https://127.0.0.1:1",
        caPem: createCertificateAuthority("nowhere").certPem,
        token: "unused",
      });
      const cache = join(dir, "cache");
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cache };
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const child = spawn(
        process.execPath,
        [CONTROLLER_MAIN, `--kcp-kubeconfig=${kubeconfig}`, `--infra-kubeconfig=${kubeconfig}`, "--metrics-bind-address=0", "--health-probe-bind-address=0"],
        { env, stdio: "ignore" },
      );
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        // One entry per module of the program: hundreds.
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline && child.exitCode === null && cachedFiles(cache) < 100) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(child.exitCode).toBeNull();
        expect(cachedFiles(cache)).toBeGreaterThanOrEqual(100);
      } finally {
        child.kill("SIGKILL");
        await exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
