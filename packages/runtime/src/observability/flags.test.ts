import { describe, expect, it } from "@jest/globals";
import { parseRuntimeFlags } from "./flags.js";

describe("parseRuntimeFlags", () => {
  it("defaults to :8080, :8081 and no leader election", () => {
    expect(parseRuntimeFlags([])).toEqual({
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      leaderElect: false,
      rest: [],
    });
  });

  it("takes a binary's defaults for the flags not given, and the flags given over them", () => {
    const defaults = { metricsBindAddress: "0", healthProbeBindAddress: "0", leaderElect: true };
    expect(parseRuntimeFlags([], defaults)).toEqual({ ...defaults, rest: [] });
    expect(parseRuntimeFlags(["--metrics-bind-address=:9090", "--leader-elect=false"], defaults)).toEqual({
      metricsBindAddress: ":9090",
      healthProbeBindAddress: "0",
      leaderElect: false,
      rest: [],
    });
    expect(parseRuntimeFlags([], { leaderElect: true })).toEqual({ metricsBindAddress: ":8080", healthProbeBindAddress: ":8081", leaderElect: true, rest: [] });
  });

  it("reads --flag=value and --flag value", () => {
    expect(parseRuntimeFlags(["--metrics-bind-address=:9090", "--health-probe-bind-address", "127.0.0.1:0", "--leader-elect"])).toEqual({
      metricsBindAddress: ":9090",
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElect: true,
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

  it("throws when an address flag has no value", () => {
    expect(() => parseRuntimeFlags(["--health-probe-bind-address"])).toThrow(/--health-probe-bind-address needs a value/);
  });

  it("does not modify its input", () => {
    const argv = Object.freeze(["--leader-elect", "x"]);
    parseRuntimeFlags(argv);
    expect(argv).toEqual(["--leader-elect", "x"]);
  });
});
