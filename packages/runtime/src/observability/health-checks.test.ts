import { describe, expect, it } from "@jest/globals";
import { HealthChecks } from "./health-checks.js";

describe("HealthChecks", () => {
  it("reports each check's outcome in registration order", async () => {
    const checks = new HealthChecks();
    checks.addReadiness("sync-true", () => true);
    checks.addReadiness("sync-false", () => false);
    checks.addReadiness("reason", () => "caches not synced");
    checks.addReadiness("empty-reason", () => "");
    checks.addReadiness("async-true", () => Promise.resolve(true));
    checks.addReadiness("throws", () => {
      throw new Error("boom");
    });
    checks.addReadiness("rejects", () => Promise.reject(new Error("nope")));
    expect(await checks.run("readiness")).toEqual([
      { name: "sync-true", ok: true, reason: undefined },
      { name: "sync-false", ok: false, reason: "returned false" },
      { name: "reason", ok: false, reason: "caches not synced" },
      { name: "empty-reason", ok: false, reason: "no reason given" },
      { name: "async-true", ok: true, reason: undefined },
      { name: "throws", ok: false, reason: "boom" },
      { name: "rejects", ok: false, reason: "nope" },
    ]);
  });

  it("keeps liveness and readiness apart", async () => {
    const checks = new HealthChecks();
    checks.addLiveness("alive", () => true);
    checks.addReadiness("alive", () => false);
    expect(await checks.run("liveness")).toEqual([{ name: "alive", ok: true, reason: undefined }]);
    expect(await checks.run("readiness")).toEqual([{ name: "alive", ok: false, reason: "returned false" }]);
  });

  it("fails a check that does not settle in time", async () => {
    const checks = new HealthChecks({ timeoutMs: 10 });
    checks.addReadiness("hangs", () => new Promise<boolean>(() => undefined));
    expect(await checks.run("readiness")).toEqual([{ name: "hangs", ok: false, reason: "timed out" }]);
  });

  it("rejects duplicate and malformed names", () => {
    const checks = new HealthChecks();
    checks.addReadiness("informers", () => true);
    expect(() => checks.addReadiness("informers", () => true)).toThrow(/already registered/);
    expect(() => checks.addLiveness("two words", () => true)).toThrow(/invalid liveness check name/);
    expect(() => checks.addLiveness("", () => true)).toThrow(/invalid liveness check name/);
  });
});
