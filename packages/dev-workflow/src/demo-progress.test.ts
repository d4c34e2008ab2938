import { describe, expect, it } from "@jest/globals";
import { demoProgress, type ObservedNodePool } from "./demo-progress.js";

const FILE = "hack/examples/demo/03-kubernetescluster.yaml";

function resource(kind: string, conditions: Record<string, string>, extra: Partial<ObservedNodePool> = {}): ObservedNodePool {
  return {
    kind,
    metadata: { name: `demo-${kind.toLowerCase()}` },
    status: { conditions: Object.entries(conditions).map(([type, status]) => ({ type, status, ...(status === "False" ? { reason: "Creating" } : {}) })) },
    ...extra,
  };
}

function observe(resources: Record<string, ObservedNodePool[]>, notNeeded: string[] = []) {
  return { notNeeded: new Set(notNeeded), resources: new Map(Object.entries(resources)) };
}

const READY = { Synced: "True", Ready: "True" };

describe("demoProgress", () => {
  it("is not done while a kind has no resource yet, and says which", () => {
    const progress = demoProgress(observe({ VpcV1: [resource("VpcV1", READY)] }), FILE);
    expect(progress.done).toBe(false);
    expect(progress.summary).toBe("VpcV1 Synced Ready · SubnetV1 not created yet · ClusterV3 not created yet · NodePoolV3 not created yet");
  });

  it("says what is missing and why", () => {
    const progress = demoProgress(observe({ VpcV1: [resource("VpcV1", READY)], SubnetV1: [resource("SubnetV1", READY)], ClusterV3: [resource("ClusterV3", { Synced: "True", Ready: "False" })] }), FILE);
    expect(progress.summary).toContain("ClusterV3 Synced, not Ready (Creating)");
    expect(progress.done).toBe(false);
  });

  it("is done with VPC, subnet and cluster Synced and Ready and the node pool Synced, as the seed's demo-up waits", () => {
    const progress = demoProgress(
      observe({ VpcV1: [resource("VpcV1", READY)], SubnetV1: [resource("SubnetV1", READY)], ClusterV3: [resource("ClusterV3", READY)], NodePoolV3: [resource("NodePoolV3", { Synced: "True", Ready: "False" })] }),
      FILE,
    );
    expect(progress).toEqual({ summary: "VpcV1 Synced Ready · SubnetV1 Synced Ready · ClusterV3 Synced Ready · NodePoolV3 Synced", done: true, soldOut: [] });
  });

  it("does not wait for a VPC and subnet the tenant brought", () => {
    const progress = demoProgress(observe({ ClusterV3: [resource("ClusterV3", READY)], NodePoolV3: [resource("NodePoolV3", { Synced: "True" })] }, ["VpcV1", "SubnetV1"]), FILE);
    expect(progress.done).toBe(true);
    expect(progress.summary).toBe("ClusterV3 Synced Ready · NodePoolV3 Synced");
  });

  it("warns of a SoldOut node pool with what to change, and is not done while one is", () => {
    const soldOut = resource("NodePoolV3", { Synced: "True" }, { spec: { forProvider: { flavor: "c4.xlarge.2", availabilityZone: "eu-de-02" } } });
    soldOut.status = { ...soldOut.status, atProvider: { status: "SoldOut" } };
    const fallback = resource("NodePoolV3", { Synced: "True", Ready: "False" });
    const progress = demoProgress(observe({ VpcV1: [resource("VpcV1", READY)], SubnetV1: [resource("SubnetV1", READY)], ClusterV3: [resource("ClusterV3", READY)], NodePoolV3: [soldOut, fallback] }), FILE);
    expect(progress.done).toBe(false);
    expect(progress.summary).toContain("NodePoolV3 demo-nodepoolv3 Synced");
    expect(progress.soldOut).toEqual([
      `NodePoolV3 demo-nodepoolv3 is SoldOut: OTC has no capacity for c4.xlarge.2 in eu-de-02. In ${FILE} set spec.nodeAvailableZone: random, or pick another spec.nodeFlavor (e.g. s3.xlarge.4, c4.xlarge.4), or lower spec.nodeCount; then run make demo-apply-cluster again.`,
    ]);
  });
});
