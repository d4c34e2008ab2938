/**
 * provider-controller tenant stories (capacity): OTC cannot serve a flavor
 * when a node pool is made, or when a running one is scaled up. A Platform
 * of its own, since the stories change the OTC simulator's capacity.
 * The Platform and the helpers are e2e/src/provider-controller-stories.ts's.
 */
import { expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { eventually } from "@edgeconnect/testenv";
import { clusterPath, describeProviderController, providerControllerStories } from "../src/provider-controller-stories.js";

describeProviderController("provider-controller (capacity)", () => {
  const stories = providerControllerStories();
  const { tenant, order, condition, ready, gone, live, projectOf, tenantNamespace } = stories;

  it("moves a matched node pool to the next flavor when its flavor is sold out, and tells the tenant when a pinned one is", async () => {
    for (const zone of ["eu-de-01", "eu-de-02", "eu-de-03"]) stories.platform.otc.setCapacity("c4.xlarge.2", zone, 0);
    try {
      const matched = await tenant("soldout");
      await order(matched.ws, matched.account);
      const kc = await ready(matched.ws);
      expect(kc.status?.flavor).toMatchObject({ name: "s3.xlarge.4", source: "Matched" });
      expect(kc.status?.flavor?.soldOut).toEqual([{ flavor: "c4.xlarge.2", zone: "random" }]);
      // Remembered where the tenant cannot write: on the cluster's ClusterV3, not only in the tenant's status.
      const [clusterV3] = (await stories.platform.infra.list(`/apis/cce.opentelekomcloud.m.crossplane.io/v1alpha1/namespaces/${tenantNamespace(matched.ws)}/clusterv3s`)).items;
      expect(JSON.parse(clusterV3?.metadata?.annotations?.["platform.edgeconnect.eu/sold-out"] ?? "[]")).toEqual([{ flavor: "c4.xlarge.2", zone: "random" }]);
      // The sold-out pool is deleted while its successor is created; it may take a moment longer to go.
      await eventually(async () => [live(matched.account).nodePools === 1, JSON.stringify(live(matched.account))], { timeoutMs: 30_000, description: "only the new node pool left" });
      expect(live(matched.account)).toMatchObject({ nodePools: 1, servers: 2 });
      // Events are sent in the background: give the recorder a moment.
      await eventually(
        async () => {
          const events = await matched.ws.client.list<KubeObject & { reason?: string; message?: string }>("/api/v1/namespaces/default/events");
          return [events.items.some((event) => event.reason === "FlavorSoldOut" && /s3\.xlarge\.4/.test(event.message ?? "")), "no FlavorSoldOut Event naming s3.xlarge.4"];
        },
        { timeoutMs: 30_000, description: "the FlavorSoldOut Event" },
      );

      await order(matched.ws, matched.account, { name: "pinned", spec: { nodeFlavor: "c4.xlarge.2" } });
      const pinned = await condition(matched.ws, clusterPath("default", "pinned"), "NodePoolReady", "False", "SoldOut");
      expect(pinned.status?.conditions?.find((c) => c.type === "NodePoolReady")?.message).toMatch(/nodeFlavor/);
      expect(pinned.status?.flavor).toMatchObject({ name: "c4.xlarge.2", source: "Pinned" });
      for (const name of ["my-cluster", "pinned"]) await matched.ws.client.delete(clusterPath("default", name));
      for (const name of ["my-cluster", "pinned"]) await gone(matched.ws, clusterPath("default", name));
      expect(live(matched.account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    } finally {
      for (const zone of ["eu-de-01", "eu-de-02", "eu-de-03"]) stories.platform.otc.setCapacity("c4.xlarge.2", zone, 1_000);
    }
  });

  it("keeps the running node pool and its nodes when OTC cannot serve a scale-up, and scales once capacity returns", async () => {
    const flavor = "c4.xlarge.2";
    const zones = ["eu-de-01", "eu-de-02", "eu-de-03"];
    const { ws, account } = await tenant("scaleup");
    await order(ws, account);
    await ready(ws);
    const otc = stories.platform.otc;
    const pools = () => [...otc.state.nodePools.values()].filter((pool) => pool.projectId === projectOf(account)).map((pool) => ({ id: pool.id, servers: [...pool.serverIds].sort() }));
    const running = pools();
    expect(running).toEqual([{ id: expect.any(String), servers: [expect.any(String), expect.any(String)] }]);
    // No room for one more server of the flavor anywhere: what runs now is all there is.
    const used = (zone: string): number => [...otc.state.servers.values()].filter((server) => server.flavor === flavor && server.az === zone).length;
    for (const zone of zones) otc.setCapacity(flavor, zone, used(zone));
    try {
      await ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { spec: { nodeCount: 3 } }, contentType: "application/merge-patch+json" });
      const waiting = await condition(ws, clusterPath("default", "my-cluster"), "NodePoolReady", "False", "ScaleUpSoldOut");
      expect(waiting.status?.conditions?.find((c) => c.type === "NodePoolReady")?.message).toMatch(/the 2 running nodes are kept .*set nodeCount to 2/);
      await eventually(
        async () => {
          const events = await ws.client.list<KubeObject & { reason?: string }>("/api/v1/namespaces/default/events");
          return [events.items.some((event) => event.reason === "ScaleUpSoldOut"), "no ScaleUpSoldOut Event"];
        },
        { timeoutMs: 30_000, description: "the ScaleUpSoldOut Event" },
      );
      // Passes went by meanwhile (the Event is sent after the status): the pool and its servers are the same.
      expect(pools()).toEqual(running);
      expect(live(account)).toMatchObject({ nodePools: 1, servers: 2 });
    } finally {
      for (const zone of zones) otc.setCapacity(flavor, zone, 1_000);
    }
    await eventually(async () => [live(account).servers === 3, `${live(account).servers} servers`], { timeoutMs: 60_000, description: "the third server once capacity returned" });
    await ready(ws);
    expect(pools()[0]?.id).toBe(running[0]?.id);
    expect(pools()[0]?.servers).toEqual(expect.arrayContaining(running[0]?.servers ?? []));
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
  });
});
