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
import { moduleSource, resolveBinary } from "./binaries.js";
import { ClusterApiStack } from "./cluster-api.js";
import { connectFromEnv } from "./environment.js";
import { eventually, holds } from "./eventually.js";
import { KubeApiServer } from "./kube-apiserver.js";
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
    const [kubeApiServer, etcd] = await Promise.all([resolveBinary("kube-apiserver"), resolveBinary("etcd")]);
    cluster = await KubeApiServer.start({ kubeApiServerBinary: kubeApiServer.path, etcdBinary: etcd.path, reaper });
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
    const objects = ["clusterclass-in-memory.yaml", "cluster-template-in-memory.yaml"].flatMap((file) =>
      parseManifests(substitute(readFileSync(join(templates, file), "utf8"), variables)).map((obj) => ({
        ...obj,
        metadata: { ...obj.metadata, namespace },
      })),
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
