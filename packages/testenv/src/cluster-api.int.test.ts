/**
 * The real Cluster API managers against a management cluster of their own:
 * upstream's in-memory ClusterClass and cluster template (from the pinned
 * test module, variables substituted as clusterctl would) become an
 * Available Cluster with its control-plane and worker Machines Running, and
 * the Cluster is deleted again with everything it owns.
 *
 * A kube-apiserver of its own because the managers watch every namespace
 * and install cluster-scoped CRDs and webhooks: on the shared one they would
 * act on, and admit, the objects of suites running in parallel.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyManifests, parseManifests } from "./apply.js";
import { moduleSource } from "./binaries.js";
import { fetchConfigMap } from "./cluster-api-components.js";
import { ClusterApiStack } from "./cluster-api.js";
import { DeploymentStandIn } from "./deployment-stand-in.js";
import { connectFromEnv } from "./environment.js";
import { eventually, holds } from "./eventually.js";
import { SUITE_STARTUP_DURATION, withInMemoryStartup } from "./in-memory-startup.js";
import { KubeApiServer, resolveControlPlaneBinaries } from "./kube-apiserver.js";
import { installOpenMcpCrds } from "./openmcp-crds.js";
import { Reaper } from "./reaper.js";

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("Cluster API stack tests skipped: they start a kube-apiserver of their own, which needs the local one's binaries");

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
type WithConditions = KubeObject & { status?: { conditions?: Condition[]; phase?: string } };

/** clusterctl's variable syntax: `${NAME}` and `${NAME:=default}`. */
function substitute(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Z_]+)(?::=([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const value = variables[name] ?? fallback;
    if (value === undefined) throw new Error(`template variable ${name} has no value`);
    return value;
  });
}

function condition(obj: WithConditions, type: string): Condition | undefined {
  return obj.status?.conditions?.find((c) => c.type === type);
}

describeInfra("Cluster API stack (core, kubeadm bootstrap and control plane, in-memory dev provider)", () => {
  let reaper: Reaper;
  let cluster: KubeApiServer | undefined;
  let stack: ClusterApiStack | undefined;
  let kube: RestClient;
  const run = randomBytes(3).toString("hex");
  const namespace = `capi-${run}`;
  const clusterName = `mem-${run}`;
  const clusterPath = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters/${clusterName}`;
  const machinesPath = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/machines`;

  beforeAll(async () => {
    reaper = Reaper.start();
    cluster = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper });
    kube = cluster.adminClient();
    // A cold build of the four managers takes about 5 minutes on two cores (see scripts/binaries/README.md).
    stack = await ClusterApiStack.start({ kubeApiServer: cluster, reaper, resolve: { log: (message) => console.error(message) } });
  }, 900_000);

  afterAll(async () => {
    kube?.close();
    await stack?.stop();
    await cluster?.stop();
    await reaper?.close();
  }, 60_000);

  it("brings the upstream in-memory cluster to Available and deletes it again", async () => {
    const templates = join((await moduleSource("capi-dev")).dir, "infrastructure", "docker", "templates");
    const variables = {
      NAMESPACE: namespace,
      CLUSTER_NAME: clusterName,
      // What upstream's e2e configuration (test/e2e/config/docker.yaml) runs v1.14.2 with.
      KUBERNETES_VERSION: "v1.37.0",
      CONTROL_PLANE_MACHINE_COUNT: "1",
      WORKER_MACHINE_COUNT: "1",
    };
    const objects = withInMemoryStartup(
      ["clusterclass-in-memory.yaml", "cluster-template-in-memory.yaml"].flatMap((file) =>
        parseManifests(substitute(readFileSync(join(templates, file), "utf8"), variables)).map((obj) => ({
          ...obj,
          metadata: { ...obj.metadata, namespace },
        })),
      ),
      SUITE_STARTUP_DURATION,
    );
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await applyManifests(kube, objects);

    const started = Date.now();
    const available = await eventually(
      async () => {
        const stored = await kube.get<WithConditions>(clusterPath);
        const ready = condition(stored, "Available");
        return holds(ready?.status === "True", `Cluster Available=${ready?.status ?? "unset"} (${ready?.reason ?? ""}: ${ready?.message ?? ""})`, stored);
      },
      { timeoutMs: 300_000, intervalMs: 2_000, description: `Cluster ${clusterName} Available` },
    ).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${stack?.logTails(15) ?? ""}`);
    });
    console.warn(`Cluster ${clusterName} Available after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(available.status?.phase).toBe("Provisioned");

    const machines = await kube.list<WithConditions>(machinesPath);
    expect(machines.items).toHaveLength(2);
    expect(machines.items.map((m) => m.status?.phase)).toEqual(["Running", "Running"]);

    await kube.delete(clusterPath);
    await eventually(
      async () => {
        const [clusters, left] = await Promise.all([
          kube.list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters`),
          kube.list(machinesPath),
        ]);
        return holds(clusters.items.length === 0 && left.items.length === 0, `${clusters.items.length} clusters, ${left.items.length} machines left`);
      },
      { timeoutMs: 120_000, intervalMs: 2_000, description: `Cluster ${clusterName} and its Machines deleted` },
    );
  }, 480_000);
});

/**
 * The Cluster API Operator installing the core provider air-gapped, from a
 * ConfigMap built like clusterctl's release artifacts, the way an openMCP
 * cluster provider's init does. Core runs as the stack's process; the
 * Deployment the operator creates for it is reported healthy by the stand-in
 * while that process is, so the operator's health check sees it available.
 * No "dev" here, and Jest runs this block's hooks only after the block above
 * has stopped its stack.
 */
describeInfra("Cluster API Operator (core provider from a ConfigMap)", () => {
  let reaper: Reaper;
  let cluster: KubeApiServer | undefined;
  let stack: ClusterApiStack | undefined;
  let standIn: DeploymentStandIn | undefined;
  let kube: RestClient;
  const namespace = "capi-system";
  const providerPath = `/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/${namespace}/coreproviders/cluster-api`;

  beforeAll(async () => {
    reaper = Reaper.start();
    cluster = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper });
    kube = cluster.adminClient();
    const started = Date.now();
    stack = await ClusterApiStack.start({ kubeApiServer: cluster, reaper, providers: ["core", "operator"], resolve: { log: (message) => console.error(message) } });
    console.warn(`core and operator ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 900_000);

  afterAll(async () => {
    await standIn?.stop();
    kube?.close();
    await stack?.stop();
    await cluster?.stop();
    await reaper?.close();
  }, 60_000);

  it("installs the CoreProvider's components and reports it Ready", async () => {
    const version = (await moduleSource("capi-core")).version;
    const labels = { "test.edgeconnect/provider-components": "cluster-api" };
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await kube.create(`/api/v1/namespaces/${namespace}/configmaps`, await fetchConfigMap("core", { namespace, labels }));
    standIn = DeploymentStandIn.start(kube, (await stack?.standInDeployments()) ?? []);

    const started = Date.now();
    await kube.create(`/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/${namespace}/coreproviders`, {
      apiVersion: "operator.cluster.x-k8s.io/v1alpha2",
      kind: "CoreProvider",
      metadata: { name: "cluster-api", namespace },
      spec: {
        version,
        fetchConfig: { selector: { matchLabels: labels } },
        manager: { featureGates: { ClusterTopology: true } },
      },
    });
    const diagnose = (err: unknown): never => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\nstand-in: ${standIn?.lastError ?? "no error"}\n${stack?.logTails(30) ?? ""}`);
    };

    const deployment = await eventually(
      async () => [true, await kube.get<KubeObject & { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } }>(
        `/apis/apps/v1/namespaces/${namespace}/deployments/capi-controller-manager`,
      )] as const,
      { timeoutMs: 120_000, intervalMs: 1_000, description: "the operator's capi-controller-manager Deployment" },
    ).catch(diagnose);
    console.warn(`Deployment created after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const args = deployment.spec?.template?.spec?.containers?.[0]?.args ?? [];
    expect(args.find((arg) => arg.startsWith("--feature-gates="))).toContain("ClusterTopology=true");
    expect(deployment.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: "CoreProvider", name: "cluster-api" })]);

    const provider = await eventually(
      async () => {
        const stored = await kube.get<WithConditions & { status?: { installedVersion?: string; contract?: string } }>(providerPath);
        const installed = condition(stored, "ProviderInstalled");
        const ready = condition(stored, "Ready");
        return holds(
          installed?.status === "True" && ready?.status === "True",
          `ProviderInstalled=${installed?.status ?? "unset"} (${installed?.reason ?? ""}: ${installed?.message ?? ""}), Ready=${ready?.status ?? "unset"} (${ready?.reason ?? ""}: ${ready?.message ?? ""})`,
          stored,
        );
      },
      { timeoutMs: 180_000, intervalMs: 1_000, description: "CoreProvider cluster-api installed and Ready" },
    ).catch(diagnose);
    console.warn(`CoreProvider Ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(provider.status?.installedVersion).toBe(version);
    expect(provider.status?.contract).toBe("v1beta2");
    expect(condition(provider, "PreflightCheckPassed")?.status).toBe("True");
  }, 360_000);

  // An openMCP platform cluster serves both Cluster kinds: openMCP's and Cluster API's.
  it("installs openMCP's CRDs beside Cluster API's", async () => {
    const names = await installOpenMcpCrds(kube, { kinds: ["Cluster", "ClusterRequest", "AccessRequest", "ClusterProfile", "ClusterProvider"] });
    expect(names.sort()).toEqual([
      "accessrequests.clusters.openmcp.cloud",
      "clusterprofiles.clusters.openmcp.cloud",
      "clusterproviders.openmcp.cloud",
      "clusterrequests.clusters.openmcp.cloud",
      "clusters.clusters.openmcp.cloud",
    ]);
    const clusters = await kube.list("/apis/clusters.openmcp.cloud/v1alpha1/clusters");
    expect(clusters.items).toEqual([]);
    await expect(installOpenMcpCrds(kube, { kinds: ["Shoot"] })).rejects.toThrow(/no CRD of kind Shoot/);
  }, 60_000);
});
