/**
 * The kcp load simulator (packages/kcp-load-simulator) checked against real
 * kcp on the provider-controller's flows, and the provider benchmark's
 * simulator path as a smoke test.
 *
 * Comparison: the same small workload (two tenants, the demo's order of one
 * cluster each, written by the same `orderCluster` through each server's
 * tenant workspace URL) runs on real kcp (the demo Platform, the controller
 * reaching kcp through a recording proxy) and on the simulator (the same
 * OTC and Crossplane simulators, a workload cluster of its own), one after
 * the other, each until both clusters are Ready. Compared:
 * - what the controller asked: the set of request kinds (verb, workspace or
 *   virtual workspace, one cluster or all, resource, patch type) on the
 *   provider workspace and through the virtual workspace. Sets, not counts or
 *   orders: retries, resyncs and watch restarts differ with timing on any
 *   two runs; the kinds do not, unless a server answers a flow differently
 *   (a 404 where the other has the object leads to other calls). Event
 *   aggregation bumps (merge patches of Events) depend on two equal Events
 *   falling into one window, so they are left out;
 * - what it wrote: each cluster's final conditions (type, status, reason),
 *   its finalizers, the kubeconfig Secret it wrote into the tenant's
 *   workspace (name and labels), and the reasons of the Normal Events it
 *   recorded. Not its Warnings: they report a passing state, and whether
 *   one passes at all hangs on timing, not on the server: under a loaded
 *   machine, runs on real kcp alone saw the infrastructure probe's
 *   InfrastructureUnreachable (two slow answers), an ApplyFailure (a cloud
 *   call that failed once and passed on Crossplane's retry), and
 *   ProviderConfigNotFound (the cluster's watch event came before its
 *   ProviderConfig's, which kcp serves on another watch). The final
 *   conditions still show any failure that lasted.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { KUBERNETES_CLUSTER_RESOURCE, objectPath, type KubernetesCluster } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { createCertificateAuthority } from "@edgeconnect/otc-simulator";
import { connectFromEnv, eventually, KubeApiServer, readKubeconfig, Reaper, REPO_ROOT, resolveControlPlaneBinaries, writeKubeconfig } from "@edgeconnect/testenv";
import { SimPlatform, SIM_CLUSTERS, SIM_EVENTS, SIM_SECRETS, simClusterName } from "../bench/provider-sim-environment.js";
import { isReady } from "../bench/platform-run.js";
import { RecordingProxy } from "../bench/provider-sim-recording-proxy.js";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

type Cluster = KubernetesCluster & KubeObject;

/** What one run of the workload showed. */
interface Observed {
  /** Request kinds of the controller (see the file comment). */
  readonly kinds: Set<string>;
  /** Per tenant (in order), what the controller wrote. */
  readonly tenants: { conditions: string[]; finalizers: string[]; kubeconfigSecret: { name: string; labels: string[] } | undefined; eventReasons: string[] }[];
}

/**
 * The same on both servers: leader election as the chart ships it, renewed
 * as often (every 2 s) but with a renew deadline of 45 s instead of 10: the
 * recording proxy runs in this Jest worker beside another suite's, and a
 * renewal it held up past 10 s ended the controller (its Lease lost) in two
 * full runs; the requests compared are the same at either deadline. No orphan
 * audit, which is not a tenant flow and, on the infrastructure cluster both
 * runs share, would look up the other run's tenants.
 */
const CONTROLLER_ARGS = ["--leader-elect=true", "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=45s", "--orphan-audit-interval=0"];
const PROVIDER_WORKSPACE_RESOURCES = ["/apiexportendpointslices", "/providermachineflavors", "/leases"];
const TIMING_DEPENDENT = new Set(["patch virtual-workspace cluster /v1/events application/merge-patch+json"]);

/** The controller's request kinds of a kind → count map, as compared. */
function comparedKinds(kinds: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const key of kinds) {
    const kind = key.replace(/ \d{3}$/, "");
    const [, view, , resource = ""] = kind.split(" ");
    const controllers = view === "virtual-workspace" || PROVIDER_WORKSPACE_RESOURCES.some((suffix) => resource.endsWith(suffix));
    if (controllers && !TIMING_DEPENDENT.has(kind)) out.add(kind);
  }
  return out;
}

function written(kc: Cluster, secret: KubeObject | undefined, events: KubeObject[]): Observed["tenants"][number] {
  return {
    conditions: (kc.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`).sort(),
    finalizers: [...(kc.metadata?.finalizers ?? [])].sort(),
    // The claimed label's suffix is a hash of the export's identity: the simulator's is its own.
    kubeconfigSecret:
      secret === undefined
        ? undefined
        : { name: secret.metadata?.name ?? "", labels: Object.keys(secret.metadata?.labels ?? {}).map((key) => key.replace(/^claimed\.internal\.apis\.kcp\.io\/.*$/, "claimed.internal.apis.kcp.io/<hash>")).sort() },
    // Warnings report passing states, which timing decides (see the file comment).
    eventReasons: [...new Set(events.filter((e) => e["type"] === "Normal").map((e) => String(e["reason"])))].sort(),
  };
}

describeInfra("kcp load simulator", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "kcp-load-simulator-e2e-"));
  const infraKubeconfig = "skipped" in state.infra ? "" : state.infra.kubeconfig;
  let reaper: Reaper;
  let onKcp: Observed;
  let onSimulator: Observed;

  beforeAll(() => {
    reaper = Reaper.start();
  });

  afterAll(async () => {
    await reaper?.close();
  });

  it("runs the workload on real kcp through a recording proxy", async () => {
    let proxyKubeconfig: string | undefined;
    const platform = await Platform.start({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig,
      dir,
      providerWorkspace: `edgeconnect-sim-${run}`,
      reaper,
      runId: `sim-${run}`,
      tenantAccounts: 2,
      controllerArgs: () => (proxyKubeconfig === undefined ? [] : [`--kcp-kubeconfig=${proxyKubeconfig}`, ...CONTROLLER_ARGS]),
    });
    let proxy: RecordingProxy | undefined;
    try {
      // The first controller started before the proxy existed: start it again behind the proxy.
      await platform.stopController();
      const identity = readKubeconfig(platform.controllerIdentity.kcpKubeconfig);
      const root = new URL(identity.server).origin;
      proxy = await RecordingProxy.start(root, identity.caPem);
      proxyKubeconfig = join(dir, "proxied.kubeconfig");
      writeProxyKubeconfig(proxyKubeconfig, identity.server.replace(root, proxy.url), identity.token);
      platform.resumeController();

      const tenants = [await platform.createTenant(`sim-a-${run}`), await platform.createTenant(`sim-b-${run}`)];
      for (const [index, tenant] of tenants.entries()) await orderCluster(tenant.client, { credentials: platform.passwordCredentials(index) });
      const path = objectPath(KUBERNETES_CLUSTER_RESOURCE, "default", "my-cluster");
      const clusters = await eventually<Cluster[]>(
        async () => {
          const found = await Promise.all(tenants.map((t) => t.client.get<Cluster>(path)));
          return found.every(isReady) ? [true, found] : [false, `not Ready: ${JSON.stringify(found.map((kc) => kc.status?.conditions))}`];
        },
        { timeoutMs: 240_000, intervalMs: 1_000, description: "both clusters Ready on kcp" },
      );
      const observed: Observed["tenants"] = [];
      for (const [index, tenant] of tenants.entries()) {
        const kc = clusters[index] as Cluster;
        const secretName = kc.status?.kubeconfigSecretName ?? "";
        const secret = await tenant.client.get<KubeObject>(`/api/v1/namespaces/default/secrets/${secretName}`);
        const events = (await tenant.client.list<KubeObject>("/api/v1/namespaces/default/events")).items;
        observed.push(written(kc, secret, events));
      }
      onKcp = { kinds: comparedKinds(proxy.kinds.keys()), tenants: observed };
    } finally {
      await platform.stop();
      await proxy?.close();
    }
    expect(onKcp.kinds.size).toBeGreaterThan(0);
  }, 600_000);

  it("runs the same workload on the simulator", async () => {
    const clientCa = createCertificateAuthority("edgeconnect-simulated-cce");
    const workload = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), clientCaPem: clientCa.certPem, reaper });
    const platform = await SimPlatform.start({
      infraKubeconfig,
      dir,
      accounts: 2,
      reaper,
      workloadCluster: { url: workload.url, servingCaPem: readKubeconfig(workload.kubeconfigPath).caPem, clientCa },
    }).catch(async (err: unknown) => {
      await workload.stop();
      throw err;
    });
    try {
      const controller = await platform.startController({ args: CONTROLLER_ARGS });
      const clusters = [simClusterName(0), simClusterName(1)];
      for (const [index, cluster] of clusters.entries()) {
        platform.kcp.bind(cluster);
        const client = RestClient.fromKubeconfigText(platform.kcp.kubeconfig(cluster));
        try {
          await orderCluster(client, { credentials: platform.credentials(index) });
        } finally {
          client.close();
        }
      }
      const found = await eventually<(Cluster | undefined)[]>(
        () => {
          const kcs = clusters.map((cluster) => platform.kcp.get(cluster, SIM_CLUSTERS, "default", "my-cluster") as Cluster | undefined);
          return kcs.every(isReady) ? [true, kcs] : [false, `not Ready: ${JSON.stringify(kcs.map((kc) => kc?.status?.conditions))}`];
        },
        { timeoutMs: 240_000, intervalMs: 1_000, description: `both clusters Ready on the simulator; controller log: ${controller.logFile}` },
      );
      onSimulator = {
        kinds: comparedKinds(platform.kcp.requests().keys()),
        tenants: clusters.map((cluster, index) => {
          const kc = found[index] as Cluster;
          const secret = platform.kcp.get(cluster, SIM_SECRETS, "default", kc.status?.kubeconfigSecretName ?? "") as KubeObject | undefined;
          return written(kc, secret, platform.kcp.list(cluster, SIM_EVENTS));
        }),
      };
      await controller.process.stop();
    } finally {
      await platform.stop();
      await workload.stop();
    }
    expect(onSimulator.kinds.size).toBeGreaterThan(0);
  }, 600_000);

  it("saw the controller ask the same kinds of requests and write the same conditions, finalizers, Secrets and Events on both", () => {
    if (onKcp === undefined || onSimulator === undefined) throw new Error("a run before this one failed");
    expect({ kinds: [...onSimulator.kinds].sort(), tenants: onSimulator.tenants }).toEqual({ kinds: [...onKcp.kinds].sort(), tenants: onKcp.tenants });
  });

  it("runs bench:provider on the simulator with a few tenants (CI smoke)", async () => {
    const out = join(dir, "bench-provider-simulator.json");
    await promisify(execFile)(process.execPath, [join(REPO_ROOT, "e2e", "dist", "bench", "provider-bench.js"), "--kcp", "simulator", "--tenants", "5", "--flood", "10", "--timeout-s", "120", "--no-profile", "--out", out], {
      maxBuffer: 16 * 2 ** 20,
    });
    const result = JSON.parse(readFileSync(out, "utf8")) as {
      initial: { clusters: number; reconciled: number; timedOut: boolean; lag: { samples: number } };
      flood: { floodReconciled: number; quietFirstConditionMs: number | null };
      lease: { lost: boolean; renewals: number };
    };
    expect(result.initial).toMatchObject({ clusters: 9, reconciled: 9, timedOut: false });
    expect(result.initial.lag.samples).toBeGreaterThan(0);
    expect(result.flood.floodReconciled).toBe(10);
    expect(result.flood.quietFirstConditionMs).not.toBeNull();
    expect(result.lease.lost).toBe(false);
    expect(result.lease.renewals).toBeGreaterThan(0);
  }, 180_000);
});

/** The controller's kcp kubeconfig, pointed at the proxy (plain HTTP on loopback), with its own token. */
function writeProxyKubeconfig(path: string, server: string, token: string): void {
  // writeKubeconfig needs a CA; plain HTTP ignores it.
  writeKubeconfig(path, { name: "proxied", server, caPem: "unused", token });
}
