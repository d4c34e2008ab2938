import { describe, expect, it } from "@jest/globals";
import { FlagError } from "@edgeconnect/runtime";
import { logLevel, parseProviderFlags, USAGE, type Verbosity } from "./flags.js";

// An explicit environment, so that the runner's own POD_NAMESPACE cannot leak into the defaults.
const NO_ENV: Readonly<Record<string, string | undefined>> = {};
const IDENTITY = ["--environment=dev", "--provider-name=capi"];

function run(...flags: string[]): ReturnType<typeof parseProviderFlags> {
  return parseProviderFlags(["run", ...IDENTITY, ...flags], NO_ENV);
}

function init(...flags: string[]): ReturnType<typeof parseProviderFlags> {
  return parseProviderFlags(["init", ...IDENTITY, ...flags], NO_ENV);
}

describe("parseProviderFlags as openMCP's ClusterProvider runs the image", () => {
  it("reads the Deployment's run command line", () => {
    const argv = ["run", "--environment=dev", "--verbosity=INFO", "--provider-name=capi", "--metrics-bind-address=:8080", "--metrics-secure=false"];
    expect(parseProviderFlags(argv, NO_ENV)).toEqual({
      command: "run",
      environment: "dev",
      providerName: "capi",
      verbosity: "INFO",
      help: false,
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      leaderElect: false,
      maxConcurrentReconciles: 4,
      accessNamespace: "openmcp-access",
      leaderElectNamespace: "kube-system",
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });

  it("reads the init Job's command line with space-separated values", () => {
    const argv = ["init", "--environment", "dev", "--provider-name", "capi", "--config", "/x", "--timeout", "5m"];
    expect(parseProviderFlags(argv, NO_ENV)).toEqual({
      command: "init",
      environment: "dev",
      providerName: "capi",
      verbosity: "INFO",
      help: false,
      config: "/x",
      timeoutMs: 300_000,
    });
  });

  it("leaves config and kubeconfig out of init when not given, and waits 10 minutes", () => {
    const flags = init();
    expect(flags).toEqual({ command: "init", environment: "dev", providerName: "capi", verbosity: "INFO", help: false, timeoutMs: 600_000 });
    expect(Object.keys(flags)).not.toContain("config");
    expect(Object.keys(flags)).not.toContain("kubeconfig");
  });

  it.each<[string, string[], Record<string, unknown>]>([
    ["init", ["init", ...IDENTITY, "--kubeconfig=/platform"], { command: "init", kubeconfig: "/platform" }],
    ["run", ["run", ...IDENTITY, "--kubeconfig", "/platform"], { command: "run", kubeconfig: "/platform" }],
  ])("takes --kubeconfig on %s", (_command, argv, expected) => {
    expect(parseProviderFlags(argv, NO_ENV)).toMatchObject(expected);
  });

  it("reads every run flag", () => {
    expect(
      run(
        "--max-concurrent-reconciles=2",
        "--access-namespace",
        "team-access",
        "--health-probe-bind-address=0",
        "--metrics-bind-address",
        "0",
        "--leader-elect=true",
        "--leader-elect-resource-namespace=capi-leases",
        "--leader-elect-lease-duration=30s",
        "--leader-elect-renew-deadline=20s",
        "--leader-elect-retry-period=4s",
      ),
    ).toEqual({
      command: "run",
      environment: "dev",
      providerName: "capi",
      verbosity: "INFO",
      help: false,
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
      leaderElect: true,
      maxConcurrentReconciles: 2,
      accessNamespace: "team-access",
      leaderElectNamespace: "capi-leases",
      leaseDurationMs: 30_000,
      renewDeadlineMs: 20_000,
      retryPeriodMs: 4_000,
    });
  });

  it.each<[string, string, number]>([
    ["90s", "seconds", 90_000],
    ["1m30s", "compound", 90_000],
    ["2h", "hours", 7_200_000],
  ])("reads --timeout=%s (%s)", (timeout, _case, ms) => {
    expect(init(`--timeout=${timeout}`)).toMatchObject({ timeoutMs: ms });
  });

  it.each(["5", "0s", "five minutes", "-1m"])("refuses --timeout=%s naming the flag", (timeout) => {
    expect(() => init(`--timeout=${timeout}`)).toThrow(FlagError);
    expect(() => init(`--timeout=${timeout}`)).toThrow(/--timeout/);
  });

  it.each(["0", "-1", "four", "1.5"])("refuses --max-concurrent-reconciles=%s", (value) => {
    expect(() => run(`--max-concurrent-reconciles=${value}`)).toThrow(/--max-concurrent-reconciles must be a positive integer/);
  });
});

describe("the identity flags", () => {
  it.each<[string, string[], RegExp]>([
    ["missing environment", ["--provider-name=capi"], /--environment is required and must be a DNS label, got ""/],
    ["empty environment", ["--environment=", "--provider-name=capi"], /--environment is required and must be a DNS label, got ""/],
    ["upper-case environment", ["--environment=Dev", "--provider-name=capi"], /--environment .* got "Dev"/],
    ["environment starting with a dash", ["--environment=-dev", "--provider-name=capi"], /--environment .* got "-dev"/],
    ["environment ending with a dash", ["--environment=dev-", "--provider-name=capi"], /--environment .* got "dev-"/],
    ["environment with a dot", ["--environment=dev.eu", "--provider-name=capi"], /--environment .* got "dev.eu"/],
    ["environment with an underscore", ["--environment=dev_eu", "--provider-name=capi"], /--environment .* got "dev_eu"/],
    ["missing provider name", ["--environment=dev"], /--provider-name is required and must be a DNS label, got ""/],
    ["upper-case provider name", ["--environment=dev", "--provider-name=CAPI"], /--provider-name .* got "CAPI"/],
    ["provider name with a slash", ["--environment=dev", "--provider-name=capi/x"], /--provider-name .* got "capi\/x"/],
    [
      "environment and provider name leaving no room for a config name in a profile name",
      [`--environment=${"x".repeat(57)}`, "--provider-name=capi"],
      /--environment and --provider-name together may have at most 60 characters: every ClusterProfile name is <environment>\.<provider-name>\.<config-name>, and openMCP writes it into a label value of at most 63$/,
    ],
  ])("refuses a %s on init and run", (_case, flags, message) => {
    for (const command of ["init", "run"]) {
      expect(() => parseProviderFlags([command, ...flags], NO_ENV)).toThrow(FlagError);
      expect(() => parseProviderFlags([command, ...flags], NO_ENV)).toThrow(message);
    }
  });

  // With "capi", 56 characters leave one for a config name.
  it.each(["a", "dev-1", "0", "x".repeat(56)])("accepts the DNS label %s as environment", (environment) => {
    expect(parseProviderFlags(["run", `--environment=${environment}`, "--provider-name=capi"], NO_ENV)).toMatchObject({ environment });
  });

  it("takes the last of a repeated flag", () => {
    expect(parseProviderFlags(["init", "--environment=dev", "--environment=prod", "--provider-name=capi"], NO_ENV)).toMatchObject({ environment: "prod" });
  });
});

describe("commands and unknown flags", () => {
  it.each(["start", "Run", "INIT", "--environment=dev", "help"])("refuses the command %j", (command) => {
    expect(() => parseProviderFlags([command, ...IDENTITY], NO_ENV)).toThrow(FlagError);
    expect(() => parseProviderFlags([command, ...IDENTITY], NO_ENV)).toThrow(`unknown command ${JSON.stringify(command)}; the first argument is init or run`);
  });

  it.each<[string, string[], string]>([
    ["run", ["--config=/x"], "--config=/x"],
    ["run", ["--config", "/x"], "--config"],
    ["run", ["--timeout=5m"], "--timeout=5m"],
    ["run", ["--metric-bind-address=:8080"], "--metric-bind-address=:8080"],
    ["run", ["extra"], "extra"],
    ["run", ["-v"], "-v"],
    ["init", ["--leader-elect"], "--leader-elect"],
    ["init", ["--metrics-bind-address=:8080"], "--metrics-bind-address=:8080"],
    ["init", ["--health-probe-bind-address=:8081"], "--health-probe-bind-address=:8081"],
    ["init", ["--metrics-secure=false"], "--metrics-secure=false"],
    ["init", ["--access-namespace=x"], "--access-namespace=x"],
    ["init", ["--max-concurrent-reconciles=2"], "--max-concurrent-reconciles=2"],
    ["init", ["--leader-elect-resource-namespace=x"], "--leader-elect-resource-namespace=x"],
  ])("%s refuses %j", (command, flags, argument) => {
    const argv = [command, ...IDENTITY, ...flags];
    expect(() => parseProviderFlags(argv, NO_ENV)).toThrow(FlagError);
    expect(() => parseProviderFlags(argv, NO_ENV)).toThrow(`unknown argument ${JSON.stringify(argument)}; see --help`);
  });

  it.each<[string, string[], string]>([
    ["run", ["--access-namespace"], "flag --access-namespace needs a value"],
    ["init", ["--config"], "flag --config needs a value"],
    ["run", ["--metrics-bind-address"], "flag --metrics-bind-address needs a value"],
  ])("%s refuses %j without its value", (command, flags, message) => {
    expect(() => parseProviderFlags([command, ...IDENTITY, ...flags], NO_ENV)).toThrow(message);
  });
});

describe("--metrics-secure", () => {
  it.each(["false", "0", "f", "F", "FALSE", "False"])("accepts --metrics-secure=%s, which openMCP passes", (value) => {
    expect(run(`--metrics-secure=${value}`)).toMatchObject({ command: "run", metricsBindAddress: ":8080" });
  });

  it.each(["true", "1", "t", "TRUE", "yes", "no", ""])("refuses --metrics-secure=%j: there is no TLS to turn on", (value) => {
    expect(() => run(`--metrics-secure=${value}`)).toThrow(FlagError);
    expect(() => run(`--metrics-secure=${value}`)).toThrow(/^--metrics-secure: only false is supported/);
  });
});

describe("--verbosity", () => {
  it.each<[string, Verbosity]>([
    ["DEBUG", "DEBUG"],
    ["debug", "DEBUG"],
    ["Info", "INFO"],
    ["info", "INFO"],
    ["ERROR", "ERROR"],
    ["eRrOr", "ERROR"],
  ])("reads %s as %s", (value, verbosity) => {
    expect(run(`--verbosity=${value}`)).toMatchObject({ verbosity });
    expect(init("--verbosity", value)).toMatchObject({ verbosity });
  });

  it.each<[string, string]>([
    ["trace", '"TRACE"'],
    ["warn", '"WARN"'],
    ["", '""'],
    ["4", '"4"'],
  ])("refuses %j", (value, shown) => {
    expect(() => run(`--verbosity=${value}`)).toThrow(FlagError);
    expect(() => run(`--verbosity=${value}`)).toThrow(`--verbosity must be DEBUG, INFO or ERROR, got ${shown}`);
  });
});

describe("--leader-elect", () => {
  it.each<[string[], boolean]>([
    [[], false],
    [["--leader-elect"], true],
    [["--leader-elect=true"], true],
    [["--leader-elect=1"], true],
    [["--leader-elect=t"], true],
    [["--leader-elect=T"], true],
    [["--leader-elect=TRUE"], true],
    [["--leader-elect=True"], true],
    [["--leader-elect=false"], false],
    [["--leader-elect=0"], false],
    [["--leader-elect=f"], false],
    [["--leader-elect=F"], false],
    [["--leader-elect=FALSE"], false],
    [["--leader-elect=False"], false],
    [["--leader-elect", "--leader-elect=false"], false],
  ])("%j → %s", (flags, leaderElect) => {
    expect(run(...flags)).toMatchObject({ leaderElect });
  });

  it("refuses a value that is not a Go boolean", () => {
    expect(() => run("--leader-elect=yes")).toThrow('--leader-elect: invalid boolean "yes", use true or false');
  });

  it("takes no separate value, as in Go: the false is left over and refused", () => {
    expect(() => run("--leader-elect", "false")).toThrow(FlagError);
    expect(() => run("--leader-elect", "false")).toThrow('unknown argument "false"');
  });

  it.each<[string, Record<string, string | undefined>, string[], string]>([
    ["kube-system without POD_NAMESPACE", {}, [], "kube-system"],
    ["kube-system when POD_NAMESPACE is unset", { POD_NAMESPACE: undefined }, [], "kube-system"],
    ["the pod's namespace", { POD_NAMESPACE: "openmcp-system" }, [], "openmcp-system"],
    ["the flag over the pod's namespace", { POD_NAMESPACE: "openmcp-system" }, ["--leader-elect-resource-namespace=leases"], "leases"],
    ["the flag without POD_NAMESPACE", {}, ["--leader-elect-resource-namespace", "leases"], "leases"],
  ])("the Lease namespace is %s", (_case, env, flags, namespace) => {
    expect(parseProviderFlags(["run", ...IDENTITY, ...flags], env)).toMatchObject({ leaderElectNamespace: namespace });
  });
});

describe("--access-namespace", () => {
  it.each(["openmcp-access", "a", "team-1", "0"])("accepts %s", (namespace) => {
    expect(run(`--access-namespace=${namespace}`)).toMatchObject({ accessNamespace: namespace });
  });

  it.each(["", "Team", "-access", "access-", "a_b", "a.b", "kube system"])("refuses %j", (namespace) => {
    expect(() => run(`--access-namespace=${namespace}`)).toThrow(FlagError);
    expect(() => run(`--access-namespace=${namespace}`)).toThrow(`--access-namespace: ${JSON.stringify(namespace)} is not a namespace name`);
  });
});

describe("--help", () => {
  it.each<[string[]]>([[[]], [["--help"]], [["-h"]]])("%j asks for the usage without a command", (argv) => {
    expect(parseProviderFlags(argv, NO_ENV)).toEqual({ command: "help", help: true });
  });

  it.each<[string, string]>([
    ["run", "--help"],
    ["run", "-h"],
    ["init", "--help"],
    ["init", "-h"],
  ])("%s %s prints the usage, needing neither environment nor provider name", (command, help) => {
    expect(parseProviderFlags([command, help], NO_ENV)).toEqual({ command: "help", help: true });
  });

  it("prints the usage even next to a flag value it would refuse", () => {
    expect(parseProviderFlags(["run", "--help", "--verbosity=loud"], NO_ENV)).toEqual({ command: "help", help: true });
  });

  it("still refuses an unknown flag next to --help", () => {
    expect(() => parseProviderFlags(["run", "--help", "--config=/x"], NO_ENV)).toThrow(FlagError);
  });

  it("documents every flag either command accepts", () => {
    for (const flag of [
      "--environment",
      "--provider-name",
      "--verbosity",
      "--kubeconfig",
      "--config",
      "--timeout",
      "--max-concurrent-reconciles",
      "--access-namespace",
      "--leader-elect",
      "--leader-elect-resource-namespace",
      "--metrics-bind-address",
      "--metrics-secure",
      "--health-probe-bind-address",
      "--help",
    ]) {
      expect(USAGE).toContain(`  ${flag}`);
    }
  });
});

describe("logLevel", () => {
  it.each<[Verbosity, string]>([
    ["DEBUG", "debug"],
    ["INFO", "info"],
    ["ERROR", "error"],
  ])("%s is pino's %s", (verbosity, level) => {
    expect(logLevel(verbosity)).toBe(level);
  });
});
