import { describe, expect, it } from "@jest/globals";
import { FlagError, parseCommandLine, parseDuration, positiveInteger } from "./command-line.js";

const KNOWN = new Set(["kubeconfig", "allow"]);

describe("parseCommandLine", () => {
  it("reads --flag=value and --flag value, keeping every value of a repeated flag", () => {
    const line = parseCommandLine(["--kubeconfig=/a", "--allow", "x", "--allow=y", "--kubeconfig", "/b"], KNOWN);
    expect(line.value("kubeconfig")).toBe("/b");
    expect(line.values("allow")).toEqual(["x", "y"]);
    expect(line.values("other")).toEqual([]);
    expect(line.help).toBe(false);
  });

  it("gives an optional flag's value under the binary's key, and nothing when it is absent or empty", () => {
    expect(parseCommandLine(["--kubeconfig=/a"], KNOWN).optional("kubeconfigPath", "kubeconfig")).toEqual({ kubeconfigPath: "/a" });
    expect(parseCommandLine(["--kubeconfig="], KNOWN).optional("kubeconfig", "kubeconfig")).toEqual({});
    expect(parseCommandLine([], KNOWN).optional("kubeconfig", "kubeconfig")).toEqual({});
  });

  it("sees --help and -h", () => {
    expect(parseCommandLine(["-h"], KNOWN).help).toBe(true);
    expect(parseCommandLine(["--help"], KNOWN).help).toBe(true);
  });

  it("refuses unknown flags, positional arguments and missing values", () => {
    expect(() => parseCommandLine(["--kubconfig=/a"], KNOWN)).toThrow(FlagError);
    expect(() => parseCommandLine(["stray"], KNOWN)).toThrow(/unknown argument "stray"/);
    expect(() => parseCommandLine(["--kubeconfig"], KNOWN)).toThrow(/--kubeconfig needs a value/);
  });
});

describe("parseCommandLine's boolean flags", () => {
  const BOOLEANS = new Set(["dry-run"]);

  it("reads --flag as true and --flag=<Go bool>, the last one counting, undefined when absent", () => {
    expect(parseCommandLine(["--dry-run"], KNOWN, BOOLEANS).flag("dry-run")).toBe(true);
    expect(parseCommandLine(["--dry-run", "--dry-run=F"], KNOWN, BOOLEANS).flag("dry-run")).toBe(false);
    expect(parseCommandLine(["--dry-run=0", "--dry-run=True"], KNOWN, BOOLEANS).flag("dry-run")).toBe(true);
    expect(parseCommandLine([], KNOWN, BOOLEANS).flag("dry-run")).toBeUndefined();
  });

  it("takes no separate value, so the next argument stays a flag of its own", () => {
    const line = parseCommandLine(["--dry-run", "--kubeconfig", "/a"], KNOWN, BOOLEANS);
    expect(line.flag("dry-run")).toBe(true);
    expect(line.value("kubeconfig")).toBe("/a");
    expect(() => parseCommandLine(["--dry-run", "false"], KNOWN, BOOLEANS)).toThrow(/unknown argument "false"/);
  });

  it("refuses a value Go's ParseBool refuses, naming the flag", () => {
    expect(() => parseCommandLine(["--dry-run=yes"], KNOWN, BOOLEANS)).toThrow(new FlagError('--dry-run: invalid boolean "yes", use true or false'));
    expect(() => parseCommandLine(["--dry-run="], KNOWN, BOOLEANS)).toThrow(FlagError);
  });
});

describe("parseDuration", () => {
  it("reads Go durations", () => {
    expect(parseDuration("--x", "5s")).toBe(5_000);
    expect(parseDuration("--x", "1h2m3s")).toBe(3_723_000);
    expect(parseDuration("--x", "1.5s")).toBe(1_500);
    expect(parseDuration("--x", "250ms")).toBe(250);
  });

  it("refuses what is not one, and zero", () => {
    expect(() => parseDuration("--x", "5")).toThrow(/not a duration/);
    expect(() => parseDuration("--x", "5s trailing")).toThrow(/not a duration/);
    expect(() => parseDuration("--x", "0s")).toThrow(/positive/);
  });
});

describe("positiveInteger", () => {
  it("reads positive integers only", () => {
    expect(positiveInteger("--n", "12")).toBe(12);
    expect(() => positiveInteger("--n", "0")).toThrow(/--n must be a positive integer/);
    expect(() => positiveInteger("--n", "1.5")).toThrow(FlagError);
  });
});
