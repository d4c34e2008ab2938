import { describe, expect, it } from "@jest/globals";
import { FlagError, parseSimulatorFlags } from "./flags.js";

describe("parseSimulatorFlags", () => {
  it("defaults to the provider's rate, a 10 s poll, and no metrics or probe servers", () => {
    expect(parseSimulatorFlags([])).toEqual({ metricsBindAddress: "0", healthProbeBindAddress: "0", pollIntervalMs: 10_000, maxReconcileRate: 10, help: false });
  });

  it("reads every flag, --poll as an alias of --poll-interval", () => {
    expect(
      parseSimulatorFlags([
        "--kubeconfig=/tmp/infra.kubeconfig",
        "--poll",
        "500ms",
        "--max-reconcile-rate=3",
        "--otc-endpoint-override=http://127.0.0.1:4000",
        "--namespace=kcp-abc",
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=127.0.0.1:0",
      ]),
    ).toEqual({
      kubeconfig: "/tmp/infra.kubeconfig",
      pollIntervalMs: 500,
      maxReconcileRate: 3,
      otcEndpointOverride: "http://127.0.0.1:4000",
      namespace: "kcp-abc",
      metricsBindAddress: "127.0.0.1:0",
      healthProbeBindAddress: "127.0.0.1:0",
      help: false,
    });
    expect(parseSimulatorFlags(["--poll-interval=1m30s"]).pollIntervalMs).toBe(90_000);
  });

  it("refuses what it cannot use, naming the flag", () => {
    expect(() => parseSimulatorFlags(["--poll-interval=soon"])).toThrow(FlagError);
    expect(() => parseSimulatorFlags(["--max-reconcile-rate=0"])).toThrow("--max-reconcile-rate must be a positive integer");
    expect(() => parseSimulatorFlags(["--otc-endpoint-override=ftp://x"])).toThrow("must be http(s)");
    expect(() => parseSimulatorFlags(["--leader-elect"])).toThrow("no leader election");
    expect(() => parseSimulatorFlags(["--pol=1s"])).toThrow('unknown argument "--pol=1s"');
  });
});
