import { describe, expect, it } from "@jest/globals";
import { FlagError, parseConsoleFlags } from "./flags.js";

describe("parseConsoleFlags", () => {
  it("has defaults for everything but the kcp kubeconfig", () => {
    expect(parseConsoleFlags(["--kcp-kubeconfig=/k"])).toEqual({
      kcpKubeconfig: "/k",
      providerWorkspace: "root:edgeconnect",
      host: "127.0.0.1",
      port: 8080,
      controllerMetricsUrls: [],
      leaseName: "provider-controller",
      leaseNamespace: "kube-system",
      secureCookie: true,
      maxSessions: 256,
      sessionLifetimeMs: 8 * 3_600_000,
      sessionIdleMs: 3_600_000,
      stuckAfterMs: 30 * 60_000,
      help: false,
    });
  });

  it("reads every flag, the metrics URL repeated", () => {
    const flags = parseConsoleFlags([
      "--kcp-kubeconfig=/k",
      "--infra-kubeconfig=/i",
      "--provider-workspace=root:p",
      "--bind-address=:9000",
      "--controller-metrics-url=http://a:8080/metrics",
      "--controller-metrics-url=http://b:8080/metrics",
      "--secure-cookie=false",
      "--max-sessions=3",
      "--session-lifetime=10m",
      "--session-idle=30s",
      "--stuck-after=500ms",
    ]);
    expect(flags).toMatchObject({
      infraKubeconfig: "/i",
      providerWorkspace: "root:p",
      host: "0.0.0.0",
      port: 9000,
      controllerMetricsUrls: ["http://a:8080/metrics", "http://b:8080/metrics"],
      secureCookie: false,
      maxSessions: 3,
      sessionLifetimeMs: 600_000,
      sessionIdleMs: 30_000,
      stuckAfterMs: 500,
    });
    expect(parseConsoleFlags(["--kcp-kubeconfig=/k", "--bind-address=[::1]:0"])).toMatchObject({ host: "::1", port: 0 });
  });

  it("says what is wrong", () => {
    expect(() => parseConsoleFlags([])).toThrow(new FlagError("--kcp-kubeconfig is required"));
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--nope"])).toThrow(FlagError);
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--bind-address=8080"])).toThrow(/HOST:PORT/);
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--max-sessions=0"])).toThrow(/positive integer/);
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--session-idle=1d"])).toThrow(/duration/);
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--controller-metrics-url=file:///etc"])).toThrow(/http/);
    expect(() => parseConsoleFlags(["--kcp-kubeconfig=/k", "--secure-cookie=yes"])).toThrow(/true or false/);
  });

  it("needs nothing with --help", () => {
    expect(parseConsoleFlags(["--help"]).help).toBe(true);
  });
});
