/**
 * provider-controller tenant stories (faults): the controller killed mid-way; the infrastructure cluster not
 * answering; a cluster that vanished without teardown.
 * The Platform and the helpers are e2e/src/provider-controller-stories.ts's.
 */
import { expect, it } from "@jest/globals";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { eventually, freePort, readKubeconfig, StallingProxy } from "@edgeconnect/testenv";
import { stringify } from "yaml";
import { clusterPath, describeProviderController, providerControllerStories, type Cluster } from "../src/provider-controller-stories.js";

describeProviderController("provider-controller (faults)", () => {
  const stories = providerControllerStories();
  const { run, dir, tenant, order, condition, ready, gone, live, tenantNamespace, infraNamespace } = stories;

  it("finishes provisioning and teardown after the controller is killed mid-way, leaking nothing", async () => {
    const { ws, account } = await tenant("crash");
    await order(ws, account);
    await eventually(async () => [live(account).cceClusters === 1, JSON.stringify(live(account))], { timeoutMs: 90_000, description: "CCE cluster requested" });
    await stories.platform.crashController();
    await ready(ws);
    expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1, servers: 2 });

    await ws.client.delete(clusterPath("default", "my-cluster"));
    await eventually(async () => [live(account).nodePools === 0, JSON.stringify(live(account))], { timeoutMs: 90_000, description: "node pool deleted" });
    await stories.platform.crashController();
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });

  it("stays up while the infrastructure cluster does not answer, tells the tenant instead of a frozen Ready, and recovers", async () => {
    const { ws, account } = await tenant("unreachable");
    // The controller's infrastructure calls (and only its) go through a proxy that can hold every request unanswered.
    const identity = readKubeconfig(stories.platform.controllerIdentity.infraKubeconfig);
    const proxy = await StallingProxy.start({ upstream: identity.server });
    // Plain http to the loopback proxy, which client-node takes only with TLS verification off (there is no TLS to verify).
    const proxied = join(dir, `infra-through-proxy-${run}.kubeconfig`);
    writeFileSync(
      proxied,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "proxied",
        clusters: [{ name: "proxied", cluster: { server: proxy.url, "insecure-skip-tls-verify": true } }],
        users: [{ name: "proxied", user: { token: identity.token } }],
        contexts: [{ name: "proxied", context: { cluster: "proxied", user: "proxied" } }],
      }),
    );
    await stories.platform.stopController();
    stories.controllerArgs = [`--infra-kubeconfig=${proxied}`];
    try {
      stories.platform.resumeController();
      const pid = stories.platform.controllerPid;
      await order(ws, account);
      await ready(ws);
      expect((await ws.client.get<Cluster>(clusterPath("default", "my-cluster"))).status?.conditions?.find((c) => c.type === "InfrastructureReachable")?.status).toBe("True");

      proxy.stall();
      // A spec change as the infrastructure goes: its pass waits on calls that get no answer, and is ended when the probe
      // finds the infrastructure gone, so the tenant hears of it then rather than at those calls' deadlines.
      await ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { spec: { nodeCount: 3 } }, contentType: "application/merge-patch+json" });
      const unreachable = await condition(ws, clusterPath("default", "my-cluster"), "InfrastructureReachable", "False", "InfrastructureUnreachable", 60_000);
      expect(unreachable.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "Unknown", reason: "InfrastructureUnreachable" });
      // What the steps said last stays: the cloud resources did not go anywhere.
      expect(unreachable.status?.conditions?.find((c) => c.type === "NodePoolReady")?.status).toBe("True");
      expect(unreachable.status?.phase).toBe("Ready");
      // The change is not acted on meanwhile, and nothing crashes.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(live(account).servers).toBe(2);
      expect(stories.platform.controllerPid).toBe(pid);
      expect(() => process.kill(pid ?? -1, 0)).not.toThrow();

      proxy.resume();
      await eventually(async () => [live(account).servers === 3, `${live(account).servers} servers`], { timeoutMs: 90_000, description: "the change made once the infrastructure answers" });
      const back = await ready(ws);
      expect(back.status?.conditions?.find((c) => c.type === "InfrastructureReachable")?.status).toBe("True");
      expect(stories.platform.controllerPid).toBe(pid);
    } finally {
      proxy.resume();
      await stories.platform.stopController();
      stories.controllerArgs = [];
      stories.platform.resumeController();
      await proxy.close();
    }
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"));
    expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
  });

  it("reports the infrastructure of a cluster that vanished without teardown, and deletes it with --orphan-teardown", async () => {
    const { ws, account } = await tenant("orphan");
    await order(ws, account);
    const kc = await ready(ws);
    const namespace = tenantNamespace(ws);
    expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1 });

    // The cluster vanishes without teardown: the controller's finalizer taken off by hand while it is down.
    await stories.platform.stopController();
    const finalizers = (kc.metadata?.finalizers ?? []).filter((f) => f !== "platform.edgeconnect.eu/provider-controller");
    await ws.client.request("PATCH", clusterPath("default", "my-cluster"), { body: { metadata: { finalizers } }, contentType: "application/merge-patch+json" });
    await ws.client.delete(clusterPath("default", "my-cluster"));
    await gone(ws, clusterPath("default", "my-cluster"), 30_000);

    // The same controller, under the same least-privilege identities, restarted with a quick audit and its metrics on.
    const metricsPort = await freePort();
    stories.controllerArgs = ["--orphan-audit-interval=2s", `--metrics-bind-address=127.0.0.1:${metricsPort}`];
    try {
      stories.platform.resumeController();
      const orphaned = async (kind: string): Promise<number | undefined> => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const line = text.split("\n").find((l) => l.startsWith(`edgeconnect_orphaned_infrastructure{kind="${kind}"}`));
        return line === undefined ? undefined : Number(line.split(" ").at(-1));
      };
      await eventually(
        async () => {
          const counts = await Promise.all(["VpcV1", "ClusterV3", "NodePoolV3", "ProviderConfig", "Namespace"].map((kind) => orphaned(kind).catch(() => undefined)));
          // Which namespaces of ours there are, should the count be off: a leak from an earlier test shows here.
          type Ns = KubeObject & { status?: { phase?: string; conditions?: { type?: string; status?: string; message?: string }[] } };
          const ours = (await stories.platform.infra.list<Ns>("/api/v1/namespaces", { query: { labelSelector: "app.kubernetes.io/managed-by=provider-controller" } })).items.map(
            (ns) => `${ns.metadata?.name ?? ""} (${ns.status?.phase ?? ""}${(ns.status?.conditions ?? []).filter((c) => c.status === "True").map((c) => `; ${c.type ?? ""}: ${c.message ?? ""}`).join("")})`,
          );
          return [counts.every((count) => count === 1), `orphans VpcV1, ClusterV3, NodePoolV3, ProviderConfig, Namespace: ${counts.join(", ")}; our namespaces: ${ours.join(", ")}`];
        },
        { timeoutMs: 60_000, description: "the orphans counted" },
      );
      type Event = KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } };
      const orphanEvents = async (ns: string): Promise<Event[]> =>
        (await stories.platform.infra.list<Event>(`/api/v1/namespaces/${ns}/events`)).items.filter((e) => e.reason === "OrphanedInfrastructure" && e.type === "Warning");
      await eventually(
        async () => {
          const kinds = new Set((await orphanEvents(namespace)).map((e) => e.involvedObject?.kind));
          const onNamespace = (await orphanEvents("default")).some((e) => e.involvedObject?.kind === "Namespace" && e.involvedObject.name === namespace);
          return [["VpcV1", "ClusterV3", "NodePoolV3", "ProviderConfig"].every((k) => kinds.has(k)) && onNamespace, `Events on ${[...kinds].join(", ")}; on the namespace: ${onNamespace}`];
        },
        { timeoutMs: 30_000, description: "a Warning Event on each orphan" },
      );
      const vpcEvents = (await orphanEvents(namespace)).filter((e) => e.involvedObject?.kind === "VpcV1");
      expect(vpcEvents).toHaveLength(1);
      expect(vpcEvents[0]?.message).toContain("KubernetesCluster default/my-cluster");
      // Reported, not touched: several audits later everything is still there, each orphan reported once.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await infraNamespace(ws)).toBeDefined();
      expect(live(account)).toMatchObject({ vpcs: 1, cceClusters: 1, nodePools: 1 });
      expect((await orphanEvents(namespace)).filter((e) => e.involvedObject?.kind === "VpcV1").map((e) => (e as { count?: number }).count ?? 1)).toEqual([1]);

      await stories.platform.stopController();
      stories.controllerArgs = [...stories.controllerArgs, "--orphan-teardown"];
      stories.platform.resumeController();
      await eventually(async () => [(await infraNamespace(ws)) === undefined, JSON.stringify(live(account))], { timeoutMs: 180_000, description: "the orphaned infrastructure deleted, its namespace last" });
      expect(live(account)).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
      await eventually(async () => [(await orphaned("VpcV1")) === 0 && (await orphaned("Namespace")) === 0, "orphans still counted"], { timeoutMs: 30_000, description: "no orphans counted" });
    } finally {
      await stories.platform.stopController();
      stories.controllerArgs = [];
      stories.platform.resumeController();
    }
  });
});
