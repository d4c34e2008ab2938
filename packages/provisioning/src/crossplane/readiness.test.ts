import { describe, expect, it } from "@jest/globals";
import type { ManagedResourceCondition, ObservedManagedResource } from "./observed-values.js";
import { describeManagedKind, isSoldOut, managedResourceState } from "./readiness.js";

const NAMESPACE = "kcp-0123456789ab";
const NAME = "default-my-cluster-1a2b3c4d-vpc";

const SYNCED: ManagedResourceCondition = { type: "Synced", status: "True", reason: "ReconcileSuccess", observedGeneration: 2 };
const READY: ManagedResourceCondition = { type: "Ready", status: "True", reason: "Available", observedGeneration: 2 };

function resource(kind: string, atProvider: Record<string, unknown>, conditions: ManagedResourceCondition[] = [SYNCED, READY], metadata: ObservedManagedResource["metadata"] = {}): ObservedManagedResource {
  return { kind, metadata: { name: NAME, namespace: NAMESPACE, generation: 2, ...metadata }, status: { conditions, atProvider } };
}

describe("managedResourceState", () => {
  it.each<[string, ObservedManagedResource | undefined, string, string]>([
    ["nothing", undefined, "Absent", "Absent"],
    ["a VPC that is OK", resource("VpcV1", { id: "v", status: "OK" }), "Ready", "Available"],
    ["a VPC still CREATING", resource("VpcV1", { id: "v", status: "CREATING" }), "Pending", "Waiting"],
    ["an ACTIVE subnet", resource("SubnetV1", { id: "n", status: "ACTIVE" }), "Ready", "Available"],
    ["a subnet UNKNOWN", resource("SubnetV1", { id: "n", status: "UNKNOWN" }), "Pending", "Waiting"],
    ["an Available cluster", resource("ClusterV3", { id: "c", status: "Available" }), "Ready", "Available"],
    ["a Creating cluster that upjet calls Ready", resource("ClusterV3", { id: "c", status: "Creating" }), "Pending", "Waiting"],
    ["a normal node pool", resource("NodePoolV3", { id: "p", status: "" }), "Ready", "Available"],
    ["a node pool without status", resource("NodePoolV3", { id: "p" }), "Ready", "Available"],
    ["a Synchronizing node pool", resource("NodePoolV3", { id: "p", status: "Synchronizing" }), "Pending", "Waiting"],
    ["a Synchronized node pool", resource("NodePoolV3", { id: "p", status: "Synchronized" }), "Pending", "Waiting"],
    ["a sold-out node pool", resource("NodePoolV3", { id: "p", status: "SoldOut" }), "Failed", "SoldOut"],
    ["a node pool in Error", resource("NodePoolV3", { id: "p", status: "Error" }), "Failed", "NodePoolError"],
    ["an EIP with only an address field, which the provider does not have", resource("EIPV1", { id: "e", address: "80.158.1.2" }), "Pending", "Waiting"],
    ["an EIP with its address in publicip", resource("EIPV1", { id: "e", publicip: [{ type: "5_bgp", ipAddress: "80.158.1.2" }] }), "Ready", "Available"],
    ["an EIP without address", resource("EIPV1", { id: "e", publicip: [] }), "Pending", "Waiting"],
    ["a key pair with id", resource("KeypairV2", { id: "kp" }), "Ready", "Available"],
    ["a key pair without id", resource("KeypairV2", {}), "Pending", "Waiting"],
    ["a kind without health rule", resource("Other", {}), "Ready", "Available"],
    ["conditions of an older generation", resource("VpcV1", { status: "OK" }, [{ ...SYNCED, observedGeneration: 1 }, { ...READY, observedGeneration: 1 }]), "Pending", "Reconciling"],
    ["Ready of an older generation", resource("VpcV1", { status: "OK" }, [SYNCED, { ...READY, observedGeneration: 1 }]), "Pending", "Reconciling"],
    // As upjet marks it: Ready=Available without a generation, judged by Synced's.
    ["Ready without a generation beside a current Synced", resource("VpcV1", { status: "OK" }, [SYNCED, { type: "Ready", status: "True", reason: "Available" }]), "Ready", "Available"],
    [
      "Ready without a generation beside an older Synced",
      resource("VpcV1", { status: "OK" }, [{ ...SYNCED, observedGeneration: 1 }, { type: "Ready", status: "True", reason: "Available" }]),
      "Pending",
      "Reconciling",
    ],
    [
      "status.observedGeneration when conditions have none",
      { kind: "VpcV1", metadata: { generation: 3 }, status: { observedGeneration: 3, conditions: [{ type: "Synced", status: "True" }, { type: "Ready", status: "True" }], atProvider: { status: "OK" } } },
      "Ready",
      "Available",
    ],
    [
      "an older status.observedGeneration",
      { kind: "VpcV1", metadata: { generation: 3 }, status: { observedGeneration: 2, conditions: [{ type: "Synced", status: "True" }, { type: "Ready", status: "True" }], atProvider: { status: "OK" } } },
      "Pending",
      "Reconciling",
    ],
    ["no conditions yet", resource("VpcV1", {}, []), "Pending", "Reconciling"],
    ["Ready=False Creating", resource("VpcV1", {}, [SYNCED, { type: "Ready", status: "False", reason: "Creating", observedGeneration: 2 }]), "Pending", "Creating"],
    ["a reconcile error", resource("VpcV1", {}, [{ type: "Synced", status: "False", reason: "ReconcileError", message: "connect failed: 403" }]), "Failed", "ReconcileError"],
    ["a paused resource", resource("VpcV1", {}, [{ type: "Synced", status: "False", reason: "ReconcilePaused" }]), "Pending", "ReconcilePaused"],
    ["a failed async create", resource("ClusterV3", { status: "Creating" }, [SYNCED, READY, { type: "LastAsyncOperation", status: "False", reason: "AsyncCreateFailure", message: "quota exceeded" }]), "Failed", "AsyncCreateFailure"],
    [
      "a node pool whose scale-up failed while sold out, served since",
      { ...resource("NodePoolV3", { id: "p", status: "", initialNodeCount: 3 }, [SYNCED, READY, { type: "LastAsyncOperation", status: "False", reason: "ApplyFailure", message: "unexpected state 'SoldOut'" }]), spec: { forProvider: { initialNodeCount: 3 } } },
      "Ready",
      "Available",
    ],
    [
      "a node pool whose failed scale-up CCE has not served",
      { ...resource("NodePoolV3", { id: "p", status: "", initialNodeCount: 2 }, [SYNCED, READY, { type: "LastAsyncOperation", status: "False", reason: "ApplyFailure", message: "unexpected state 'SoldOut'" }]), spec: { forProvider: { initialNodeCount: 3 } } },
      "Failed",
      "ApplyFailure",
    ],
    ["a deleting resource", resource("VpcV1", { status: "OK" }, [SYNCED, READY], { deletionTimestamp: "2026-01-01T00:00:00Z" }), "Deleting", "Deleting"],
  ])("%s → %s (%s)", (_case, mr, state, reason) => {
    expect(managedResourceState(mr)).toMatchObject({ state, reason });
  });

  it("passes the provider's message on for failures, for the caller to scrub", () => {
    const failed = resource("VpcV1", {}, [{ type: "Synced", status: "False", reason: "ReconcileError", message: "cannot create: quota" }]);
    expect(managedResourceState(failed).message).toBe("cannot create: quota");
  });

  it("reports the OTC status", () => {
    expect(managedResourceState(resource("ClusterV3", { status: "Creating" }))).toEqual({
      state: "Pending",
      reason: "Waiting",
      message: "waiting for the control plane to become usable (OTC status Creating)",
      externalStatus: "Creating",
    });
    expect(managedResourceState(resource("NodePoolV3", { status: "" }))).not.toHaveProperty("externalStatus");
  });

  it("never names the infrastructure namespace or object in its own messages", () => {
    const states = ["VpcV1", "SubnetV1", "EIPV1", "KeypairV2", "ClusterV3", "NodePoolV3"].flatMap((kind) =>
      [
        resource(kind, {}, []),
        resource(kind, { status: "SoldOut" }),
        resource(kind, { status: "Error" }),
        resource(kind, {}, [SYNCED, { type: "Ready", status: "False", reason: "Creating", observedGeneration: 2 }]),
        resource(kind, {}, [{ type: "Synced", status: "False", reason: "ReconcilePaused" }]),
        resource(kind, {}, [SYNCED, READY], { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      ].map(managedResourceState),
    );
    for (const state of states) {
      expect(state.message).not.toContain(NAMESPACE);
      expect(state.message).not.toContain(NAME);
      expect(state.message).not.toMatch(/kcp-/);
    }
  });
});

describe("describeManagedKind", () => {
  it("names each of our kinds as a tenant reads it, and no other", () => {
    expect(describeManagedKind("ClusterV3")).toBe("the control plane");
    expect(describeManagedKind("NodePoolV3")).toBe("the node pool");
    expect(describeManagedKind("Secret")).toBeUndefined();
    expect(describeManagedKind(undefined)).toBeUndefined();
  });
});

describe("isSoldOut", () => {
  it.each<[ObservedManagedResource | undefined, boolean]>([
    [resource("NodePoolV3", { status: "SoldOut" }), true],
    [resource("NodePoolV3", { status: "" }), false],
    [resource("NodePoolV3", { status: "Error" }), false],
    [undefined, false],
  ])("%#", (nodePool, soldOut) => {
    expect(isSoldOut(nodePool)).toBe(soldOut);
  });
});
