import { describe, expect, it } from "@jest/globals";
import type { RestClient } from "@edgeconnect/kcp-ts";
import type { Source } from "@edgeconnect/runtime";
import { InfrastructureCluster, LIST_GRACE_MS } from "./infrastructure-cluster.js";

/** A cache that has listed or not, as told. */
function cache(): Source & { listed: boolean } {
  return {
    listed: false,
    get hasSynced() {
      return this.listed;
    },
    start: async () => undefined,
    stop: async () => undefined,
  };
}

describe("InfrastructureCluster.availability", () => {
  it("has a reconcile wait, saying nothing, while the caches list after the start, and tells the tenant once they still have not", () => {
    let now = 1_000;
    // The probe is not run here: it counts the cluster as answering until it finds otherwise.
    const infra = new InfrastructureCluster({} as RestClient, undefined, { now: () => now });
    const clusters = cache();
    infra.track("clusterv3s", clusters);

    expect(infra.availability()).toEqual({ available: false, listing: true });
    now += LIST_GRACE_MS - 1;
    expect(infra.availability()).toEqual({ available: false, listing: true });
    now += 1;
    expect(infra.availability()).toEqual({ available: false });

    clusters.listed = true;
    expect(infra.availability()).toEqual({ available: true });
  });

  it("is available at once when every cache has listed", () => {
    const infra = new InfrastructureCluster({} as RestClient, undefined, { now: () => 0 });
    const listed = cache();
    listed.listed = true;
    infra.track("nodepoolv3s", listed);
    expect(infra.availability()).toEqual({ available: true });
  });
});
