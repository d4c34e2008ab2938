/**
 * Three provider-controller replicas sharing the tenants (`--sharded`), on
 * real kcp and a real infrastructure kube-apiserver, each replica its own
 * process under the shipped RBAC. Tenants order clusters; while they are
 * being provisioned one replica is SIGKILLed and another scaled away
 * (SIGTERM). Every cluster must end Ready, with its CCE cluster created and
 * its kubeconfig certificate issued exactly once (the OTC simulator's
 * request log), and the slots of the replicas that went must be taken over
 * within the Lease timings: a dead replica's within two Lease durations plus
 * a round, a departing one's within a few rounds, since it hands them back.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubernetesCluster } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { SHARD_GROUP_LABEL, type Lease } from "@edgeconnect/runtime";
import { connectFromEnv, eventually, Reaper, type Workspace } from "@edgeconnect/testenv";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("provider-controller HA e2e skipped: it starts a workload kube-apiserver, which needs the local one's binaries");

const API = "/apis/platform.edgeconnect.eu/v1alpha1";
const TENANTS = 6;
/** Enough that each of three replicas gets some: rendezvous hashing leaves one without with odds (2/3)^32. */
const SLOTS = 32;
/** The runtime's shard timings (ShardCoordinator defaults): a Lease lasts 15 s, rounds come every 2 s. */
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
/** Room for a loaded CI machine on top of the timings. */
const SLACK_MS = 8_000;
const GROUP = "provider-controller";
/** The controller's default --kubeconfig-validity-days: the lifetime of the certificates it asks CCE for. */
const KUBECONFIG_VALIDITY_DAYS = 365;
const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

type Cluster = KubernetesCluster & KubeObject;

describeInfra("provider-controller sharded over three replicas", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "provider-controller-ha-"));
  let reaper: Reaper;
  let platform: Platform;

  beforeAll(async () => {
    reaper = Reaper.start();
    if ("skipped" in state.infra) throw new Error(state.infra.skipped);
    platform = await Platform.start({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig: state.infra.kubeconfig,
      dir,
      providerWorkspace: `edgeconnect-ha-${run}`,
      reaper,
      runId: `ha-${run}`,
      tenantAccounts: TENANTS,
      controllerReplicas: 3,
      controllerArgs: () => ["--sharded", `--shard-slots=${SLOTS}`],
      // Long enough that both replicas go while the CCE clusters are still being made, before any certificate is issued.
      otcDelays: { cceClusterCreateMs: 25_000 },
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await reaper?.close();
  });

  /** Slot → holder, from the slot Leases in the provider workspace. */
  async function slotHolders(): Promise<Map<number, string>> {
    const list = await platform.provider.client.list<Lease>(LEASES, { query: { labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` } });
    const holders = new Map<number, string>();
    for (const lease of list.items) {
      const slot = /-slot-(\d+)$/.exec(lease.metadata?.name ?? "")?.[1];
      const holder = lease.spec?.holderIdentity ?? "";
      if (slot !== undefined && holder !== "") holders.set(Number(slot), holder);
    }
    return holders;
  }

  /** The identity replica `index` logged at its start. */
  function identityOf(index: number): string {
    const log = platform.replica(index).logTail(100_000);
    const identity = /"identity":"([^"]+)"/.exec(log)?.[1];
    if (identity === undefined) throw new Error(`replica ${index} logged no identity:\n${log.split("\n").slice(0, 20).join("\n")}`);
    return identity;
  }

  /** Every replica's log lines about asking CCE for a kubeconfig certificate, and how those calls ended. */
  function certificateCalls(): string {
    return [0, 1, 2]
      .flatMap((index) => platform.replica(index).logTail(100_000).split("\n").filter((line) => /kubeconfig certificate|kubeconfig call ended/.test(line)).map((line) => `replica ${index}: ${line}`))
      .join("\n");
  }

  /** Waits until no slot Lease names `identity` and every slot is held; how long that took from `since`. */
  async function takenOver(identity: string, since: number, timeoutMs: number): Promise<number> {
    await eventually(
      async () => {
        const holders = await slotHolders();
        const left = [...holders.entries()].filter(([, holder]) => holder === identity).map(([slot]) => slot);
        return left.length === 0 && holders.size === SLOTS ? [true, undefined] : [false, `slots still held by ${identity}: ${left.join(", ")}; ${holders.size}/${SLOTS} held`];
      },
      { timeoutMs, intervalMs: 250, description: `the slots of ${identity} taken over` },
    );
    return performance.now() - since;
  }

  it("provisions every cluster exactly once while one replica is killed and another scaled away, taking over within the Lease timings", async () => {
    const tenants: Workspace[] = [];
    for (let i = 0; i < TENANTS; i++) tenants.push(await platform.createTenant(`ha-${i}-${run}`));
    await eventually(
      async () => {
        const holders = await slotHolders();
        const replicas = new Set(holders.values());
        return holders.size === SLOTS && replicas.size === 3 ? [true, undefined] : [false, `${holders.size}/${SLOTS} slots held by ${replicas.size} replicas`];
      },
      { timeoutMs: 60_000, description: "every slot held, by all three replicas" },
    );
    const [survivor, killed, departing] = [0, 1, 2].map(identityOf) as [string, string, string];

    // Tenant i orders 1 + i % 2 clusters: 9 in all.
    const orders = tenants.flatMap((ws, i) => Array.from({ length: 1 + (i % 2) }, (_, n) => ({ ws, account: i, name: `cluster-${n}` })));
    await Promise.all(
      orders.map(({ ws, account, name }) =>
        orderCluster(ws.client, { name, credentials: platform.passwordCredentials(account), spec: { nodeCount: 1 } }),
      ),
    );
    const cceCreates = (): number => platform.otc.faults.requests.filter((r) => r.method === "POST" && /^\/api\/v3\/projects\/[^/]+\/clusters$/.test(r.path) && r.status < 300).length;
    await eventually(async () => [cceCreates() > 0, `${cceCreates()} CCE clusters requested`], { timeoutMs: 90_000, description: "provisioning under way" });

    const killedAt = performance.now();
    await platform.replica(1).kill();
    const killTakeover = await takenOver(killed, killedAt, 2 * LEASE_MS + 2 * RETRY_MS + SLACK_MS + 20_000);

    const departedAt = performance.now();
    const stopping = platform.replica(2).stop(30_000);
    const departTakeover = await takenOver(departing, departedAt, 4 * RETRY_MS + SLACK_MS + 20_000);
    await stopping;
    expect(await platform.replica(2).exited).toMatchObject({ code: 0 });
    expect(new Set((await slotHolders()).values())).toEqual(new Set([survivor]));

    for (const { ws, name } of orders) {
      await eventually(
        async () => {
          const kc = await ws.client.get<Cluster>(`${API}/namespaces/default/kubernetesclusters/${name}`);
          const readyCondition = kc.status?.conditions?.find((c) => c.type === "Ready");
          return readyCondition?.status === "True" && kc.status?.kubeconfigSecretName !== undefined ? [true, undefined] : [false, `${ws.name}/${name}: ${readyCondition?.reason ?? "no Ready"}: ${readyCondition?.message ?? ""}`];
        },
        { timeoutMs: 240_000, description: `${ws.name}/${name} Ready` },
      );
    }

    // Exactly once: one CCE cluster per order, one tenant kubeconfig certificate per CCE cluster (the Crossplane
    // provider reads short-lived ones for its connection details: those are not ours).
    expect(cceCreates()).toBe(orders.length);
    const tenantCertificates = [...platform.otc.state.certificatesIssued.values()].map((byDays) => byDays.get(KUBECONFIG_VALIDITY_DAYS) ?? 0);
    // Which replica asked when, and how each call ended: what tells a handover's double issuance from a lost answer.
    if (tenantCertificates.some((count) => count !== 1)) process.stderr.write(`provider-controller HA: certificate calls of the replicas:\n${certificateCalls()}\n`);
    expect(tenantCertificates).toEqual(orders.map(() => 1));

    // Take-over: a dead replica's slots once their Leases expire (two Lease durations at most), a departing one's at once.
    expect(killTakeover).toBeLessThan(2 * LEASE_MS + 2 * RETRY_MS + SLACK_MS);
    expect(departTakeover).toBeLessThan(4 * RETRY_MS + SLACK_MS);
    process.stderr.write(`provider-controller HA: slots of the killed replica taken over in ${(killTakeover / 1000).toFixed(1)} s, of the departing one in ${(departTakeover / 1000).toFixed(1)} s\n`);
  }, 900_000);
});
