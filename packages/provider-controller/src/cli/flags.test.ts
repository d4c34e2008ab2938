import { describe, expect, it } from "@jest/globals";
import { FlagError } from "@edgeconnect/runtime";
import { authUrlAllowed, DEFAULT_ALLOWED_AUTH_URL, parseProviderControllerFlags } from "./flags.js";

describe("parseProviderControllerFlags", () => {
  it("defaults as the seed's manager: :8080, :8081, no leader election, the export's slice, OTC's IAM endpoints", () => {
    const flags = parseProviderControllerFlags(["--kcp-kubeconfig=/kcp"]);
    expect(flags).toMatchObject({
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      leaderElect: false,
      kcpKubeconfig: "/kcp",
      apiExportEndpointSlice: "platform.edgeconnect.eu",
      maxConcurrentReconciles: 8,
      allowedAuthUrls: [DEFAULT_ALLOWED_AUTH_URL],
      otcConcurrencyPerCredentials: 2,
      otcTimeoutMs: 20_000,
      credentialCacheTtlMs: 600_000,
      kubeconfigValidityDays: 365,
      leaderElectNamespace: "kube-system",
      leaderElectName: "provider-controller",
      clusterApi: false,
      orphanAuditIntervalMs: 600_000,
      orphanTeardown: false,
      maxClustersPerWorkspace: 100,
      reconcileTimeoutMs: 300_000,
      sharded: false,
      shardSlots: 32,
    });
    expect(flags.infraKubeconfig).toBeUndefined();
  });

  it("reads every flag, repeated auth URLs included", () => {
    const flags = parseProviderControllerFlags([
      "--kcp-kubeconfig",
      "/kcp",
      "--infra-kubeconfig=/infra",
      "--leader-elect",
      "--metrics-bind-address=0",
      "--allowed-otc-auth-url=http://127.0.0.1:9/",
      "--allowed-otc-auth-url=https://iam.eu-nl.otc.t-systems.com/",
      "--otc-timeout=5s",
      "--credential-cache-ttl=1m",
      "--max-concurrent-reconciles=3",
    ]);
    expect(flags).toMatchObject({
      infraKubeconfig: "/infra",
      leaderElect: true,
      metricsBindAddress: "0",
      allowedAuthUrls: ["http://127.0.0.1:9/", "https://iam.eu-nl.otc.t-systems.com/"],
      otcTimeoutMs: 5_000,
      credentialCacheTtlMs: 60_000,
      maxConcurrentReconciles: 3,
    });
  });

  it("refuses a missing kcp kubeconfig, unknown flags and malformed values, naming the flag", () => {
    expect(() => parseProviderControllerFlags([])).toThrow(/--kcp-kubeconfig is required/);
    expect(() => parseProviderControllerFlags(["--kcp-kubeconfig=/k", "--kubeconfig=/x"])).toThrow(FlagError);
    expect(() => parseProviderControllerFlags(["--kcp-kubeconfig=/k", "--otc-timeout=5"])).toThrow(/--otc-timeout/);
    expect(() => parseProviderControllerFlags(["--kcp-kubeconfig=/k", "--allowed-otc-auth-url=iam.example"])).toThrow(/--allowed-otc-auth-url/);
  });

  it("takes --kubeconfig-validity-days from 1 to 1825 days only, saying the range otherwise", () => {
    const parse = (days: string) => parseProviderControllerFlags(["--kcp-kubeconfig=/kcp", `--kubeconfig-validity-days=${days}`]);
    expect(parse("1").kubeconfigValidityDays).toBe(1);
    expect(parse("1825").kubeconfigValidityDays).toBe(1825);
    for (const days of ["1826", "36500", "0", "-1", "7.5", "1e3", "ten"]) {
      expect(() => parse(days)).toThrow(FlagError);
      expect(() => parse(days)).toThrow(/^--kubeconfig-validity-days must be a whole number of days from 1 to 1825/);
    }
  });

  it("reads --cluster-api as a boolean that takes no separate value", () => {
    const parse = (...args: string[]) => parseProviderControllerFlags(["--kcp-kubeconfig=/kcp", ...args]);
    expect(parse("--cluster-api").clusterApi).toBe(true);
    expect(parse("--cluster-api=true").clusterApi).toBe(true);
    expect(parse("--cluster-api", "--cluster-api=false").clusterApi).toBe(false);
    expect(parse("--cluster-api", "--otc-timeout=5s")).toMatchObject({ clusterApi: true, otcTimeoutMs: 5_000 });
    expect(parse("--cluster-api=1").clusterApi).toBe(true);
    expect(() => parse("--cluster-api=yes")).toThrow(/--cluster-api: invalid boolean "yes", use true or false/);
    expect(() => parse("--cluster-apis")).toThrow(FlagError);
  });

  it("reads the orphan audit's interval, 0 switching it off, and --orphan-teardown as a boolean", () => {
    const parse = (...args: string[]) => parseProviderControllerFlags(["--kcp-kubeconfig=/kcp", ...args]);
    expect(parse("--orphan-audit-interval=2s", "--orphan-teardown")).toMatchObject({ orphanAuditIntervalMs: 2_000, orphanTeardown: true });
    expect(parse("--orphan-audit-interval=0").orphanAuditIntervalMs).toBe(0);
    expect(parse("--orphan-teardown=false").orphanTeardown).toBe(false);
    expect(() => parse("--orphan-audit-interval=10")).toThrow(/--orphan-audit-interval/);
    expect(() => parse("--orphan-audit-interval=-1m")).toThrow(/--orphan-audit-interval/);
  });

  it("reads the per-workspace cluster bound and the reconcile deadline", () => {
    const parse = (...args: string[]) => parseProviderControllerFlags(["--kcp-kubeconfig=/kcp", ...args]);
    expect(parse("--max-clusters-per-workspace=3", "--reconcile-timeout=90s")).toMatchObject({ maxClustersPerWorkspace: 3, reconcileTimeoutMs: 90_000 });
    expect(() => parse("--max-clusters-per-workspace=0")).toThrow(/--max-clusters-per-workspace/);
    expect(() => parse("--reconcile-timeout=soon")).toThrow(/--reconcile-timeout/);
  });

  it("shards instead of electing a leader, never both, over a positive number of slots", () => {
    const parse = (...args: string[]) => parseProviderControllerFlags(["--kcp-kubeconfig=/kcp", ...args]);
    expect(parse("--sharded", "--shard-slots=8")).toMatchObject({ sharded: true, shardSlots: 8, leaderElect: false });
    expect(() => parse("--sharded", "--leader-elect")).toThrow(/--sharded and --leader-elect exclude each other/);
    expect(() => parse("--sharded", "--shard-slots=0")).toThrow(/--shard-slots/);
  });

  it("lets --help through without a kubeconfig", () => {
    expect(parseProviderControllerFlags(["--help"]).help).toBe(true);
  });
});

describe("authUrlAllowed", () => {
  it.each([
    ["https://iam.eu-de.otc.t-systems.com/v3", true],
    ["https://iam.eu-nl.otc.t-systems.com/v3/", true],
    ["https://iam.eu-de.otc.t-systems.com.evil.example/v3", false],
    ["https://iam.a.b.otc.t-systems.com/v3", false],
    ["http://iam.eu-de.otc.t-systems.com/v3", false],
    ["https://169.254.169.254/latest", false],
  ])("%s is %s by default", (url, allowed) => {
    expect(authUrlAllowed(url, [DEFAULT_ALLOWED_AUTH_URL])).toBe(allowed);
  });

  it("takes exact prefixes for other installations", () => {
    expect(authUrlAllowed("http://127.0.0.1:4000/v3", ["http://127.0.0.1:4000/"])).toBe(true);
    expect(authUrlAllowed("http://127.0.0.1:40001/v3", ["http://127.0.0.1:4000/"])).toBe(false);
  });
});
