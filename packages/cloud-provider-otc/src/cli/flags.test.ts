import { describe, expect, it } from "@jest/globals";
import { FlagError, parseCcmFlags } from "./flags.js";

describe("parseCcmFlags", () => {
  it("defaults as Kubernetes' cloud-controller-manager: every controller, leader election on kube-system/cloud-controller-manager", () => {
    const flags = parseCcmFlags([]);
    expect([...flags.controllers].sort()).toEqual(["cloud-node", "cloud-node-lifecycle", "service"]);
    expect(flags).toMatchObject({
      leaderElect: true,
      leaderElectNamespace: "kube-system",
      leaderElectName: "cloud-controller-manager",
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      nodeMonitorPeriodMs: 5_000,
      nodeStatusUpdateFrequencyMs: 300_000,
      concurrentServiceSyncs: 1,
      metricsBindAddress: ":8080",
      healthProbeBindAddress: ":8081",
      routeRequested: false,
      help: false,
    });
    expect(flags.cloudConfig).toBeUndefined();
    expect(flags.clusterName).toBeUndefined();
  });

  it("reads the flags in both --flag=value and --flag value forms", () => {
    const flags = parseCcmFlags([
      "--cloud-provider=otc",
      "--cloud-config",
      "/etc/otc/cloud.conf",
      "--cluster-name=prod-1",
      "--kubeconfig=/tmp/kc",
      "--leader-elect=false",
      "--node-monitor-period=200ms",
      "--node-status-update-frequency=1m30s",
      "--concurrent-service-syncs=4",
      "--metrics-bind-address=0",
    ]);
    expect(flags).toMatchObject({
      cloudConfig: "/etc/otc/cloud.conf",
      clusterName: "prod-1",
      kubeconfig: "/tmp/kc",
      leaderElect: false,
      nodeMonitorPeriodMs: 200,
      nodeStatusUpdateFrequencyMs: 90_000,
      concurrentServiceSyncs: 4,
      metricsBindAddress: "0",
    });
  });

  it("selects controllers with *, names, aliases and -name, and reports a requested route controller", () => {
    expect([...parseCcmFlags(["--controllers=service"]).controllers]).toEqual(["service"]);
    expect([...parseCcmFlags(["--controllers=*,-service"]).controllers].sort()).toEqual(["cloud-node", "cloud-node-lifecycle"]);
    expect([...parseCcmFlags(["--controllers=cloud-node-controller,service-lb-controller"]).controllers].sort()).toEqual(["cloud-node", "service"]);
    const withRoute = parseCcmFlags(["--controllers=*,route"]);
    expect(withRoute.routeRequested).toBe(true);
    expect(withRoute.controllers.size).toBe(3);
    expect(parseCcmFlags(["--controllers=*,-route"]).routeRequested).toBe(false);
  });

  it("refuses what it cannot use, naming the flag", () => {
    expect(() => parseCcmFlags(["--cloud-provider=openstack"])).toThrow(FlagError);
    expect(() => parseCcmFlags(["--controllers=service,ipam"])).toThrow(/unknown controller "ipam"/);
    expect(() => parseCcmFlags(["--bogus=1"])).toThrow(/unknown argument "--bogus=1"/);
    expect(() => parseCcmFlags(["--cloud-config"])).toThrow("flag --cloud-config needs a value");
    expect(() => parseCcmFlags(["--concurrent-service-syncs=0"])).toThrow(/positive integer/);
    expect(() => parseCcmFlags(["--leader-elect-renew-deadline=20s"])).toThrow(/shorter than/);
  });

  it("notices --help", () => {
    expect(parseCcmFlags(["--help"]).help).toBe(true);
  });
});
