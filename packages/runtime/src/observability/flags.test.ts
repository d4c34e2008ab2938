import { describe, expect, it } from "@jest/globals";
import { leaseTimingUsage, parseRuntimeFlags } from "./flags.js";

/** client-go's Lease timings, the defaults. */
const TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

describe("parseRuntimeFlags", () => {
  it("defaults to :8080, :8081, no leader election and client-go's Lease timings", () => {
    expect(parseRuntimeFlags([])).toEqual({
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      leaderElect: false,
      ...TIMINGS,
      rest: [],
    });
  });

  it("takes a binary's defaults for the flags not given, and the flags given over them", () => {
    const defaults = { metricsBindAddress: "0", healthProbeBindAddress: "0", leaderElect: true };
    expect(parseRuntimeFlags([], defaults)).toEqual({ ...defaults, ...TIMINGS, rest: [] });
    expect(parseRuntimeFlags(["--metrics-bind-address=:9090", "--leader-elect=false"], defaults)).toEqual({
      metricsBindAddress: ":9090",
      healthProbeBindAddress: "0",
      leaderElect: false,
      ...TIMINGS,
      rest: [],
    });
    expect(parseRuntimeFlags([], { leaderElect: true })).toEqual({ metricsBindAddress: ":8080", healthProbeBindAddress: ":8081", leaderElect: true, ...TIMINGS, rest: [] });
  });

  it("reads --flag=value and --flag value", () => {
    expect(parseRuntimeFlags(["--metrics-bind-address=:9090", "--health-probe-bind-address", "127.0.0.1:0", "--leader-elect"])).toEqual({
      metricsBindAddress: ":9090",
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElect: true,
      ...TIMINGS,
      rest: [],
    });
    expect(parseRuntimeFlags(["--metrics-bind-address", "0", "--health-probe-bind-address=0"])).toMatchObject({
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
    });
  });

  it("takes the last occurrence of a repeated flag", () => {
    expect(parseRuntimeFlags(["--metrics-bind-address=:1", "--metrics-bind-address=:2"]).metricsBindAddress).toBe(":2");
  });

  it("reads --leader-elect=<bool> the way Go's ParseBool does", () => {
    expect(parseRuntimeFlags(["--leader-elect=true"]).leaderElect).toBe(true);
    expect(parseRuntimeFlags(["--leader-elect=1"]).leaderElect).toBe(true);
    expect(parseRuntimeFlags(["--leader-elect", "--leader-elect=false"]).leaderElect).toBe(false);
    expect(parseRuntimeFlags(["--leader-elect=F"]).leaderElect).toBe(false);
    expect(() => parseRuntimeFlags(["--leader-elect=yes"])).toThrow(/invalid boolean "yes"/);
  });

  it("does not let --leader-elect swallow the next argument", () => {
    expect(parseRuntimeFlags(["--leader-elect", "false"])).toMatchObject({ leaderElect: true, rest: ["false"] });
  });

  it("returns unknown flags and positionals untouched and in order", () => {
    expect(
      parseRuntimeFlags(["serve", "--zap-devel", "--metrics-bind-address", ":8443", "--tenant-limit=5", "-v", "3", "--leader-elect"]),
    ).toEqual({
      metricsBindAddress: ":8443",
      healthProbeBindAddress: ":8081",
      leaderElect: true,
      ...TIMINGS,
      rest: ["serve", "--zap-devel", "--tenant-limit=5", "-v", "3"],
    });
  });

  it('stops at "--" and leaves it and the rest alone', () => {
    expect(parseRuntimeFlags(["--leader-elect", "--", "--metrics-bind-address=:1"])).toMatchObject({
      metricsBindAddress: ":8080",
      leaderElect: true,
      rest: ["--", "--metrics-bind-address=:1"],
    });
  });

  it("reads the Lease timings as Go durations, and refuses a renew deadline that is not shorter than the lease", () => {
    expect(parseRuntimeFlags(["--leader-elect-lease-duration=1m", "--leader-elect-renew-deadline", "45s", "--leader-elect-retry-period=500ms"])).toMatchObject({
      leaseDurationMs: 60_000,
      renewDeadlineMs: 45_000,
      retryPeriodMs: 500,
      rest: [],
    });
    // A holder still renewing when its Lease may have passed to another would act beside the new holder.
    expect(() => parseRuntimeFlags(["--leader-elect-renew-deadline=15s"])).toThrow("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration");
    expect(() => parseRuntimeFlags(["--leader-elect-retry-period=soon"])).toThrow(/--leader-elect-retry-period: "soon" is not a duration/);
    expect(() => parseRuntimeFlags(["--leader-elect-lease-duration"])).toThrow(/--leader-elect-lease-duration needs a value/);
  });

  it("lists the Lease timing flags for a usage, their descriptions in the binary's column", () => {
    expect(leaseTimingUsage(43).split("\n")[0]).toBe("  --leader-elect-lease-duration=DURATION   default 15s");
    expect(leaseTimingUsage(39).split("\n")[1]).toBe("  --leader-elect-renew-deadline=DURATION default 10s; shorter than the lease duration");
  });

  it("throws when an address flag has no value", () => {
    expect(() => parseRuntimeFlags(["--health-probe-bind-address"])).toThrow(/--health-probe-bind-address needs a value/);
  });

  it("does not modify its input", () => {
    const argv = Object.freeze(["--leader-elect", "x"]);
    parseRuntimeFlags(argv);
    expect(argv).toEqual(["--leader-elect", "x"]);
  });
});
