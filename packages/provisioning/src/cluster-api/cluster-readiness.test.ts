import { describe, expect, it } from "@jest/globals";
import { clusterApiReadiness, type ClusterApiCondition, type ObservedClusterApiCluster } from "./cluster-readiness.js";

const TRUE = (type: string, extra: Partial<ClusterApiCondition> = {}): ClusterApiCondition => ({ type, status: "True", reason: type === "Available" ? "Available" : "Ready", ...extra });
const FALSE = (type: string, message: string, reason = "NotReady"): ClusterApiCondition => ({ type, status: "False", reason, message });
const UNKNOWN = (type: string): ClusterApiCondition => ({ type, status: "Unknown", reason: "Unknown" });

function cluster(conditions: ClusterApiCondition[] | undefined, extra: ObservedClusterApiCluster = {}): ObservedClusterApiCluster {
  return {
    ...extra,
    metadata: { generation: 2, ...extra.metadata },
    ...(conditions === undefined ? {} : { status: { observedGeneration: 2, conditions, ...extra.status } }),
  };
}

const ALL_TRUE = [TRUE("Available"), TRUE("InfrastructureReady"), TRUE("ControlPlaneAvailable"), TRUE("WorkersAvailable"), TRUE("RemoteConnectionProbe"), TRUE("TopologyReconciled")];

describe("clusterApiReadiness", () => {
  it("is Provisioning while Cluster API has not written a status", () => {
    expect(clusterApiReadiness(cluster(undefined))).toEqual({ state: "Provisioning", reason: "WaitingForClusterApi", message: "waiting for Cluster API" });
    expect(clusterApiReadiness({})).toEqual({ state: "Provisioning", reason: "WaitingForClusterApi", message: "waiting for Cluster API" });
    expect(clusterApiReadiness(cluster([]))).toMatchObject({ state: "Provisioning", reason: "WaitingForClusterApi" });
  });

  it("is Ready when Available is True", () => {
    expect(clusterApiReadiness(cluster(ALL_TRUE))).toEqual({ state: "Ready", reason: "Available", message: "the Cluster is available" });
    expect(clusterApiReadiness(cluster([TRUE("Available", { reason: "", message: "all good" })]))).toEqual({ state: "Ready", reason: "Available", message: "all good" });
  });

  it("is Ready without any observedGeneration to compare", () => {
    expect(clusterApiReadiness({ status: { conditions: [TRUE("Available")] } })).toMatchObject({ state: "Ready" });
    expect(clusterApiReadiness({ metadata: { generation: 5 }, status: { conditions: [TRUE("Available")] } })).toMatchObject({ state: "Ready" });
  });

  it("is not Ready on an Available condition of an older generation", () => {
    expect(clusterApiReadiness(cluster([TRUE("Available", { observedGeneration: 1 })]))).toEqual({
      state: "Provisioning",
      reason: "Reconciling",
      message: "waiting for Cluster API to act on the latest change of the Cluster",
    });
    expect(clusterApiReadiness(cluster([TRUE("Available")], { status: { observedGeneration: 1 } }))).toMatchObject({ state: "Provisioning", reason: "Reconciling" });
    expect(clusterApiReadiness(cluster([TRUE("Available", { observedGeneration: 2 })], { status: { observedGeneration: 1 } }))).toMatchObject({ state: "Ready" });
  });

  it("says why a stale cluster is not ready when a condition is False", () => {
    expect(clusterApiReadiness(cluster([TRUE("Available", { observedGeneration: 1 }), FALSE("WorkersAvailable", "* MachineDeployment md-0: 0 of 2 available")]))).toEqual({
      state: "Provisioning",
      reason: "NotReady",
      message: "* MachineDeployment md-0: 0 of 2 available",
    });
  });

  it.each<[string, ClusterApiCondition[], string, string]>([
    [
      "the infrastructure before anything else",
      [FALSE("Available", "summary"), FALSE("TopologyReconciled", "topology"), FALSE("ControlPlaneAvailable", "control plane"), FALSE("InfrastructureReady", "* DevCluster c1: not ready", "NotReady")],
      "NotReady",
      "* DevCluster c1: not ready",
    ],
    ["the control plane", [FALSE("Available", "summary"), TRUE("InfrastructureReady"), FALSE("WorkersAvailable", "workers"), FALSE("ControlPlaneAvailable", "control plane", "NotAvailable")], "NotAvailable", "control plane"],
    ["the workers", [FALSE("Available", "summary"), TRUE("InfrastructureReady"), TRUE("ControlPlaneAvailable"), FALSE("RemoteConnectionProbe", "probe"), FALSE("WorkersAvailable", "workers")], "NotReady", "workers"],
    ["the remote connection", [FALSE("Available", "summary"), UNKNOWN("InfrastructureReady"), FALSE("RemoteConnectionProbe", "cannot connect", "ProbeFailed")], "ProbeFailed", "cannot connect"],
    ["the topology", [FALSE("Available", "summary"), FALSE("TopologyReconciled", "ClusterClass in-memory not found", "ClusterClassNotReconciled")], "ClusterClassNotReconciled", "ClusterClass in-memory not found"],
    ["a False condition without message or reason", [UNKNOWN("Available"), { type: "ControlPlaneAvailable", status: "False" }], "ControlPlaneAvailableFalse", "ControlPlaneAvailable is False"],
    ["Available alone", [FALSE("Available", "* Cluster is being set up", "NotAvailable")], "NotAvailable", "* Cluster is being set up"],
    ["nothing False", [UNKNOWN("Available"), UNKNOWN("InfrastructureReady")], "Unknown", "waiting for the Cluster to become available"],
    ["no Available condition yet", [TRUE("InfrastructureReady")], "NotAvailable", "waiting for the Cluster to become available"],
  ])("is Provisioning with the message of %s", (_case, conditions, reason, message) => {
    expect(clusterApiReadiness(cluster(conditions))).toEqual({ state: "Provisioning", reason, message });
  });

  it("is Failed in phase Failed, with v1beta1's failure reason and message", () => {
    expect(
      clusterApiReadiness(cluster([FALSE("Available", "x")], { status: { phase: "Failed", deprecated: { v1beta1: { failureReason: "InvalidConfiguration", failureMessage: "bad subnet" } } } })),
    ).toEqual({ state: "Failed", reason: "InvalidConfiguration", message: "bad subnet" });
    expect(clusterApiReadiness(cluster([], { status: { phase: "Failed" } }))).toEqual({ state: "Failed", reason: "Failed", message: "Cluster API reports the Cluster as Failed" });
    expect(clusterApiReadiness(cluster(ALL_TRUE, { status: { phase: "Failed" } }))).toMatchObject({ state: "Failed" });
  });

  it("is not Failed in other phases", () => {
    expect(clusterApiReadiness(cluster(ALL_TRUE, { status: { phase: "Provisioned" } }))).toMatchObject({ state: "Ready" });
    expect(clusterApiReadiness(cluster([FALSE("Available", "x")], { status: { phase: "Provisioning" } }))).toMatchObject({ state: "Provisioning" });
  });

  it("is Deleting once deletion started, whatever else the status says", () => {
    const deleting = { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } };
    expect(clusterApiReadiness(cluster(ALL_TRUE, deleting))).toEqual({ state: "Deleting", reason: "Deleting", message: "the Cluster is being deleted" });
    expect(clusterApiReadiness(cluster([], { ...deleting, status: { phase: "Failed" } }))).toMatchObject({ state: "Deleting" });
    expect(clusterApiReadiness(cluster([FALSE("Deleting", "* Control plane: deleting", "InternalError"), ...ALL_TRUE], deleting))).toEqual({
      state: "Deleting",
      reason: "Deleting",
      message: "* Control plane: deleting",
    });
  });

  it.each<[string, { host?: string; port?: number }, string | undefined]>([
    ["host and port", { host: "10.0.0.1", port: 6443 }, "https://10.0.0.1:6443"],
    ["port 443", { host: "api.example.com", port: 443 }, "https://api.example.com:443"],
    ["an IPv6 host", { host: "fd00::1", port: 6443 }, "https://[fd00::1]:6443"],
    ["a bracketed IPv6 host", { host: "[fd00::1]", port: 6443 }, "https://[fd00::1]:6443"],
    ["no host", { port: 6443 }, undefined],
    ["an empty host", { host: "", port: 6443 }, undefined],
    ["no port", { host: "10.0.0.1" }, undefined],
    ["port 0", { host: "10.0.0.1", port: 0 }, undefined],
    ["a port out of range", { host: "10.0.0.1", port: 70000 }, undefined],
  ])("reports the API server endpoint for %s", (_case, controlPlaneEndpoint, expected) => {
    expect(clusterApiReadiness(cluster([FALSE("Available", "x")], { spec: { controlPlaneEndpoint } })).apiServerEndpoint).toBe(expected);
  });

  it("reports the endpoint in every state", () => {
    const spec = { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } };
    expect(clusterApiReadiness(cluster(ALL_TRUE, { spec }))).toEqual({ state: "Ready", reason: "Available", message: "the Cluster is available", apiServerEndpoint: "https://10.0.0.1:6443" });
    expect(clusterApiReadiness(cluster(ALL_TRUE, { spec, metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } })).apiServerEndpoint).toBe("https://10.0.0.1:6443");
    expect(clusterApiReadiness(cluster([], { spec, status: { phase: "Failed" } })).apiServerEndpoint).toBe("https://10.0.0.1:6443");
    expect(clusterApiReadiness(cluster(undefined, { spec })).apiServerEndpoint).toBe("https://10.0.0.1:6443");
  });
});
