#!/usr/bin/env node
/**
 * `bash scripts/demo-capi.sh`: the Cluster API cluster provider on this
 * machine, as openMCP runs it, on the real Cluster API stack with the
 * in-memory development provider (OpenMcpPlatform). init installs the
 * Cluster API Operator and the core provider from air-gapped sources; run
 * turns the documented in-memory ProviderConfig into a ClusterProfile and
 * installed providers; an openMCP Cluster becomes a Ready Cluster API
 * Cluster; an AccessRequest is granted, and its kubeconfig is tried for what
 * it may and may not do. Everything keeps running until Ctrl-C.
 *
 * State lives in `.cache/demo-capi/` and is made anew on every start.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { objectPath, OPENMCP_CLUSTER } from "@edgeconnect/capi-provider-api";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { httpStatus, REPO_ROOT } from "@edgeconnect/testenv";
import { followConditions } from "./follow-conditions.js";
import { OpenMcpPlatform, type Conditioned } from "./openmcp-platform.js";

const NAMESPACE = "team-a";
const CLUSTER = "dev-1";

async function main(): Promise<void> {
  const dir = join(REPO_ROOT, ".cache", "demo-capi");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const log = (message: string): void => console.log(`[demo] ${message}`);
  const platform = await OpenMcpPlatform.start({ dir, log });
  const stop = async (): Promise<void> => {
    log("stopping");
    await platform.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  try {
    const client = platform.client;
    const initConfig = await platform.prepareAirGappedSources();
    await platform.installInMemoryClusterClass();
    log("cluster-provider-capi init: our CRDs, the Cluster API Operator (from a file) and the core provider (from ConfigMaps)");
    let started = performance.now();
    const init = await platform.init(initConfig);
    if (init.code !== 0) throw new Error(`init failed (exit ${String(init.code)}):\n${init.log}`);
    log(`init done in ${seconds(started)} s`);

    log("cluster-provider-capi run; applying deploy/cluster-provider-capi/examples/providerconfig-in-memory.yaml");
    platform.startRun();
    started = performance.now();
    await platform.applyInMemoryProviderConfig();
    await follow(client, platform.providerConfigPath("in-memory"), "Ready", log);
    log(`ProviderConfig in-memory Ready in ${seconds(started)} s: ClusterProfile ${platform.inMemoryProfile} published, providers docker and kubeadm installed by the operator`);

    log(`openMCP Cluster ${NAMESPACE}/${CLUSTER} with profile ${platform.inMemoryProfile}`);
    started = performance.now();
    await platform.createCluster(NAMESPACE, CLUSTER, platform.inMemoryProfile);
    const cluster = await follow(client, objectPath(OPENMCP_CLUSTER, NAMESPACE, CLUSTER), "Ready", log);
    const endpoints = (cluster.status?.endpoints as { name: string; url: string }[] | undefined) ?? [];
    log(`Cluster Ready in ${seconds(started)} s; endpoints: ${endpoints.map((e) => `${e.name}=${e.url}`).join(", ")}`);

    log("AccessRequest developer (configmaps in namespace apps, the view ClusterRole), against a real kube-apiserver as the workload cluster");
    await platform.useRealWorkloadApiServer(NAMESPACE, CLUSTER);
    const arPath = await platform.requestAccess(NAMESPACE, "developer", { namespace: NAMESPACE, name: CLUSTER, profile: platform.inMemoryProfile }, {
      permissions: [{ namespace: "apps", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "create"] }] }],
      roleRefs: [{ kind: "ClusterRole", name: "view" }],
    });
    await follow(client, arPath, "Granted", log);
    const secret = await client.get<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${NAMESPACE}/secrets/developer.kubeconfig`);
    const kubeconfig = join(dir, "developer.kubeconfig");
    writeFileSync(kubeconfig, Buffer.from(secret.data?.kubeconfig ?? "", "base64"), { mode: 0o600 });
    const granted = OpenMcpPlatform.clientFor(Buffer.from(secret.data?.kubeconfig ?? "", "base64").toString("utf8"));
    try {
      log(`  list configmaps in apps: HTTP ${await httpStatus(granted, "/api/v1/namespaces/apps/configmaps")}`);
      log(`  list pods in kube-system (view): HTTP ${await httpStatus(granted, "/api/v1/namespaces/kube-system/pods")}`);
      log(`  list secrets in kube-system: HTTP ${await httpStatus(granted, "/api/v1/namespaces/kube-system/secrets")}`);
    } finally {
      granted.close();
    }
    console.log(`
The Cluster API cluster provider is running.

  platform cluster         KUBECONFIG=${platform.platform.kubeconfigPath}
  workload (tokens)        KUBECONFIG=${platform.workload.kubeconfigPath}
  developer's kubeconfig   KUBECONFIG=${kubeconfig}

Try:
  kubectl --kubeconfig ${platform.platform.kubeconfigPath} get providerconfigs,clusterprofiles
  kubectl --kubeconfig ${platform.platform.kubeconfigPath} get coreproviders,infrastructureproviders,bootstrapproviders,controlplaneproviders -A
  kubectl --kubeconfig ${platform.platform.kubeconfigPath} -n ${NAMESPACE} get clusters.clusters.openmcp.cloud,clusters.cluster.x-k8s.io,machines
  kubectl --kubeconfig ${platform.platform.kubeconfigPath} -n ${NAMESPACE} get accessrequests -o yaml
  kubectl --kubeconfig ${platform.platform.kubeconfigPath} -n ${NAMESPACE} delete clusters.clusters.openmcp.cloud ${CLUSTER}

Logs: ${dir}/*.log and ${dir}/cluster-api/*.log
Press Ctrl-C to stop and clean up.`);
  } catch (err) {
    await platform.stop();
    throw err;
  }
}

/** Prints each condition as it changes until the object reaches `phase`. */
async function follow(client: RestClient, path: string, phase: string, log: (message: string) => void): Promise<Conditioned> {
  return followConditions<Conditioned>(client, path, {
    log,
    done: (obj) => obj.status?.phase === phase,
    noPhase: "-",
    pending: (obj) => obj.status?.phase ?? "no status",
    timeoutMs: 600_000,
    description: `${path} ${phase}`,
  });
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
