/**
 * The short variant of `pnpm test:chaos` (e2e/chaos/chaos.ts) that `.ci/run`
 * runs: 20 tenants with the same names ordering clusters while the
 * controller is SIGKILLed, kcp restarted once, the infrastructure
 * connections cut and OTC calls failed; every way of teardown; 300
 * generated input bundles. The run judges itself (its exit status is 0 only
 * without a violation); this test also checks that each kind of fault was
 * really answered to the controller and that it recovered from every cut,
 * so that a run in which nothing went wrong cannot pass.
 */
import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepE2eLog, REPO_ROOT } from "@edgeconnect/testenv";

const CHAOS = join(REPO_ROOT, "e2e", "dist", "chaos", "chaos.js");
const TIMEOUT_MS = 1_500_000;

interface ChaosJson {
  readonly orders: {
    readonly clusters: number;
    readonly allReadyS?: number;
    readonly kills: number;
    readonly kcpRestarts: number;
    readonly connectionCuts: number;
    readonly recoveries: number;
    readonly faultsAnsweredByKind: { readonly errors: number; readonly throttled: number; readonly lost: number };
  };
  readonly teardown: { readonly byWay: Record<string, number>; readonly cloudObjectsLeft: number; readonly namespacesLeft: readonly string[]; readonly kills: number };
  readonly generatedInput?: { readonly cases: number; readonly invalid: number; readonly asExpected: number; readonly refusedBySchema: number; readonly toldByCondition: number; readonly crashes: number; readonly stuck: number; readonly cloudObjectsForInvalid: number };
  readonly crossTenant: { readonly otcRequests: number; readonly credentialMismatches: readonly string[] };
  readonly credentialGuard: { readonly texts: number; readonly generatedCredentials: number; readonly findings: readonly string[] };
  readonly violations: readonly string[];
}

describe("test:chaos, short", () => {
  it(
    "gets every cluster Ready exactly once under kills, a kcp restart, cut watches and OTC faults, leaves nothing behind, and survives generated input",
    async () => {
      const out = join(mkdtempSync(join(tmpdir(), "chaos-")), "chaos.json");
      const args = [CHAOS, "--tenants", "20", "--fuzz", "300", "--kill-min-s", "5", "--kill-max-s", "15", "--timeout-s", "600", "--out", out];
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
        let text = "";
        child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
        const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS - 60_000);
        child.once("close", (exitCode) => {
          clearTimeout(timer);
          resolve({ code: exitCode, output: text });
        });
      });
      keepE2eLog("chaos-short", output);
      const result = JSON.parse(readFileSync(out, "utf8")) as ChaosJson;
      expect(result.violations).toEqual([]);
      expect(code).toBe(0);

      expect(result.orders.clusters).toBe(20);
      expect(result.orders.allReadyS).toBeGreaterThan(0);
      expect(result.orders.kills).toBeGreaterThanOrEqual(1);
      expect(result.orders.kcpRestarts).toBe(1);
      expect(result.orders.connectionCuts).toBeGreaterThanOrEqual(1);
      // Every cut was followed by the live controller finishing a change made after it, before its kill.
      expect(result.orders.recoveries).toBe(result.orders.connectionCuts);
      // Each kind of fault was answered to the controller itself, not merely armed.
      const answered = result.orders.faultsAnsweredByKind;
      expect([answered.errors, answered.throttled, answered.lost].map((count) => count > 0)).toEqual([true, true, true]);
      expect(Object.values(result.teardown.byWay)).toEqual([5, 5, 5, 5]);
      expect(result.teardown.kills).toBe(1);
      expect(result.teardown.cloudObjectsLeft).toBe(0);
      expect(result.teardown.namespacesLeft).toEqual([]);
      expect(result.crossTenant).toEqual({ otcRequests: 0, credentialMismatches: [] });
      expect(result.credentialGuard.findings).toEqual([]);
      expect(result.credentialGuard.texts).toBeGreaterThan(0);
      // The 21 accounts' passwords (20 tenants and the recovery probe) and the generated input's credentials were searched for.
      expect(result.credentialGuard.generatedCredentials).toBeGreaterThan(21);
      const fuzz = result.generatedInput;
      expect(fuzz?.cases).toBe(300);
      expect(fuzz?.asExpected).toBe(fuzz?.invalid);
      expect(fuzz?.refusedBySchema).toBeGreaterThan(0);
      expect(fuzz?.toldByCondition).toBeGreaterThan(0);
      expect([fuzz?.crashes, fuzz?.stuck, fuzz?.cloudObjectsForInvalid]).toEqual([0, 0, 0]);
    },
    TIMEOUT_MS,
  );
});
