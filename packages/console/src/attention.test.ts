import { describe, expect, it } from "@jest/globals";
import type { ObservedManagedResource } from "@edgeconnect/provisioning";
import { needsAttention } from "./attention.js";
import type { Cluster } from "./cluster-view.js";

const NOW = Date.parse("2026-01-01T12:00:00Z");

function cluster(name: string, phase: string, conditions: { type: string; status: string; reason: string; message: string; lastTransitionTime?: string }[], deletionTimestamp?: string): Cluster {
  return { metadata: { namespace: "default", name, ...(deletionTimestamp ? { deletionTimestamp } : {}) }, status: { phase, conditions } } as unknown as Cluster;
}

const base = { nodePools: [], tenantNamespaces: [], orphanedByAudit: 0, stuckAfterMs: 30 * 60_000, now: NOW };

describe("needsAttention", () => {
  it("lists rejected credentials, failed clusters and clusters not Ready for too long, not healthy or young ones", () => {
    const items = needsAttention({
      ...base,
      clusters: [
        { tenant: "a", kc: cluster("ok", "Ready", [{ type: "Ready", status: "True", reason: "Ready", message: "" }]) },
        {
          tenant: "b",
          kc: cluster("creds", "Failed", [
            { type: "CredentialsValid", status: "False", reason: "CredentialsRejected", message: "OTC IAM rejected the credentials: 401", lastTransitionTime: "2026-01-01T11:59:00Z" },
            { type: "Ready", status: "False", reason: "CredentialsRejected", message: "x" },
          ]),
        },
        { tenant: "b", kc: cluster("unusable", "Failed", [{ type: "CredentialsValid", status: "False", reason: "InvalidCredentials", message: "cannot be used" }]) },
        { tenant: "b", kc: cluster("flavor", "Failed", [{ type: "Ready", status: "False", reason: "NoMatchingFlavor", message: "no flavor has 64 vCPUs" }]) },
        { tenant: "c", kc: cluster("slow", "Provisioning", [{ type: "Ready", status: "False", reason: "Creating", message: "the control plane is being created", lastTransitionTime: "2026-01-01T11:00:00Z" }]) },
        { tenant: "c", kc: cluster("young", "Provisioning", [{ type: "Ready", status: "False", reason: "Creating", message: "", lastTransitionTime: "2026-01-01T11:50:00Z" }]) },
        { tenant: "c", kc: cluster("gone-slowly", "Deleting", [{ type: "Ready", status: "False", reason: "Deleting", message: "waiting for the VPC" }], "2026-01-01T09:00:00Z") },
      ],
    });
    expect(items.map((i) => [i.kind, i.name, i.message])).toEqual([
      ["credentials-rejected", "creds", "OTC IAM rejected the credentials: 401"],
      ["credentials-rejected", "unusable", "cannot be used"],
      ["failed", "flavor", "NoMatchingFlavor: no flavor has 64 vCPUs"],
      ["stuck", "slow", "not Ready for 60 min: Creating the control plane is being created"],
      ["stuck", "gone-slowly", "teardown not finished for 3 h: Deleting waiting for the VPC"],
    ]);
    expect(items[0]).toMatchObject({ tenant: "b", namespace: "default", since: "2026-01-01T11:59:00Z" });
  });

  it("groups SoldOut node pools by flavor and zone", () => {
    const pool = (status: string, flavor: string): ObservedManagedResource =>
      ({ kind: "NodePoolV3", spec: { forProvider: { flavor, availabilityZone: "eu-de-01" } }, status: { atProvider: { status } } });
    const items = needsAttention({ ...base, clusters: [], nodePools: [pool("SoldOut", "s3.large.2"), pool("SoldOut", "s3.large.2"), pool("", "c4.xlarge.2")] });
    expect(items).toEqual([{ kind: "sold-out", message: "s3.large.2 in eu-de-01: SoldOut for 2 node pool(s)" }]);
  });

  it("reports the orphan audit and tenant namespaces whose workspace shows no cluster", () => {
    const ns = (name: string, cluster: string) => ({ metadata: { name, annotations: { "platform.edgeconnect.eu/logical-cluster": cluster } } });
    const items = needsAttention({
      ...base,
      clusters: [{ tenant: "live", kc: cluster("ok", "Ready", [{ type: "Ready", status: "True", reason: "Ready", message: "" }]) }],
      tenantNamespaces: [ns("kcp-111", "live"), ns("kcp-222", "gone")],
      orphanedByAudit: 3,
    });
    expect(items).toEqual([
      { kind: "orphaned", message: "the orphan audit reports 3 object(s) whose KubernetesCluster is gone" },
      { kind: "orphaned", message: "namespace kcp-222 belongs to workspace gone, which has no KubernetesCluster", tenant: "gone" },
    ]);
  });
});
