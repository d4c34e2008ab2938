import { describe, expect, it } from "@jest/globals";
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { blocked, CONFLICT_RECHECK_MS, denied, grantFailure, ResourceNotManagedError, statusDecision, waiting, type Outcome } from "./access-outcome.js";

const granted: Outcome = {
  phase: "Granted",
  secretName: "ar.kubeconfig",
  renewAt: new Date(0),
  conditions: [{ type: "AccessGranted", status: "True", reason: "TokenIssued", message: "" }],
};

describe("statusDecision", () => {
  it("keeps a granted request granted, with its Secret, while its Cluster is not Ready", () => {
    const decision = statusDecision({ phase: "Granted", secretRef: { name: "ar.kubeconfig" } }, waiting("ClusterNotReady", "Cluster a/b is not Ready"));
    expect(decision.phase).toBe("Granted");
    expect(decision.secretName).toBe("ar.kubeconfig");
    // AccessGranted and AccessUpToDate stay as they were: the wait is about the Cluster, not the access objects.
    expect(decision.conditions).toEqual([{ type: "ClusterReady", status: "False", reason: "ClusterNotReady", message: "Cluster a/b is not Ready" }]);
  });

  it("keeps a granted request granted while its workload cluster does not answer", () => {
    const decision = statusDecision({ phase: "Granted", secretRef: { name: "ar.kubeconfig" } }, blocked("WorkloadClusterUnreachable", "timeout"));
    expect(decision).toEqual({ phase: "Granted", secretName: "ar.kubeconfig", conditions: [{ type: "AccessUpToDate", status: "False", reason: "WorkloadClusterUnreachable", message: "timeout" }] });
  });

  it("lets a request that was never granted wait as Pending", () => {
    expect(statusDecision({ phase: "Pending" }, waiting("ClusterNotReady", "m")).phase).toBe("Pending");
    expect(statusDecision(undefined, blocked("ResourceNotManaged", "m"))).toMatchObject({ phase: "Pending" });
    // Granted without a Secret gives a consumer nothing to keep.
    expect(statusDecision({ phase: "Granted" }, waiting("ClusterNotReady", "m")).phase).toBe("Pending");
  });

  it("never softens a denial, even of a granted request", () => {
    const decision = statusDecision({ phase: "Granted", secretRef: { name: "ar.kubeconfig" } }, denied("ClusterDeleting", "m"));
    expect(decision.phase).toBe("Denied");
    expect(decision.secretName).toBeUndefined();
  });

  it("writes a new grant with its Secret", () => {
    expect(statusDecision({ phase: "Pending" }, granted)).toEqual({ phase: "Granted", secretName: "ar.kubeconfig", conditions: granted.conditions });
  });
});

describe("grantFailure", () => {
  it("gives a conflict with a foreign object its own reason, looked at again later rather than retried", () => {
    const failure = grantFailure(new ResourceNotManagedError("ClusterRole", "view", undefined, "workload"));
    expect(failure.retry).toBe(false);
    expect(failure.outcome.phase).toBe("Pending");
    expect(failure.outcome.phase === "Pending" && failure.outcome.requeueAfterMs).toBe(CONFLICT_RECHECK_MS);
    expect(failure.outcome.conditions[0]).toMatchObject({ reason: "ResourceNotManaged" });
    expect(failure.outcome.conditions[0]?.message).toContain('ClusterRole "view" on the workload cluster exists and was not made for this request');
  });

  it("tells a refusal by the workload cluster from an unreachable one", () => {
    const rejected = grantFailure(new HttpStatusError("PUT", "https://w/apis/rbac.authorization.k8s.io/v1/clusterroles/x", 422, '{"kind":"Status","message":"roleRef is immutable"}'));
    expect(rejected.retry).toBe(true);
    expect(rejected.outcome.conditions[0]).toMatchObject({ reason: "WorkloadClusterRejected" });
    expect(rejected.outcome.conditions[0]?.message).toContain("roleRef is immutable");
    for (const status of [408, 429, 500, 503]) {
      expect(grantFailure(new HttpStatusError("GET", "https://w/api", status, "")).outcome.conditions[0]).toMatchObject({ reason: "WorkloadClusterUnreachable" });
    }
    expect(grantFailure(new Error("connect ECONNREFUSED 127.0.0.1:6443")).outcome.conditions[0]).toMatchObject({ reason: "WorkloadClusterUnreachable" });
  });

  it("never quotes a token an error message carries", () => {
    const token = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlc2lnbmF0dXJl";
    const failure = grantFailure(new Error(`request failed: Authorization: Bearer ${token}`));
    expect(JSON.stringify(failure)).not.toContain(token);
  });
});
