#!/usr/bin/env node
/**
 * `pnpm demo`: the system on this machine, on real servers. Starts kcp and the
 * infrastructure cluster (kube-apiserver + etcd), creates the provider
 * workspace and a tenant workspace, writes a kubeconfig for each, prints how to
 * use them. It then runs the OTC cloud controller manager against the
 * infrastructure cluster, playing a workload cluster on the OTC simulator
 * (otc-workload.ts), and keeps running until Ctrl-C, when it stops everything
 * it started.
 *
 * State lives in `.cache/demo/` and is made anew on every start.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RestClient } from "@edgeconnect/kcp-ts";
import { createWorkspace, readKubeconfig, REPO_ROOT, TestEnvironment, writeKubeconfig } from "@edgeconnect/testenv";
import { DEMO_NAMESPACE, DEMO_SERVICE, startOtcWorkload, type OtcWorkload } from "./otc-workload.js";

const PROVIDER_WORKSPACE = "edgeconnect";
const TENANT_WORKSPACE = "tenant-demo";

async function main(): Promise<void> {
  const dir = join(REPO_ROOT, ".cache", "demo");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const log = (message: string): void => console.log(`[demo] ${message}`);

  log("starting kcp and the infrastructure cluster (kube-apiserver + etcd)");
  const environment = await TestEnvironment.start({ infra: "kube-apiserver", dir, log });
  let workload: OtcWorkload | undefined;
  const stop = async (): Promise<void> => {
    log("stopping");
    await workload?.stop();
    await environment.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  try {
    const { kcp, infra } = environment.state;
    const admin = readKubeconfig(kcp.kubeconfig);
    const kcpAdmin = RestClient.fromFile(kcp.kubeconfig);
    const kubeconfigs: Record<string, string> = {};
    for (const name of [PROVIDER_WORKSPACE, TENANT_WORKSPACE]) {
      const workspace = await createWorkspace(kcpAdmin, name);
      kubeconfigs[name] = writeKubeconfig(join(dir, `${name}.kubeconfig`), {
        ...admin,
        name: workspace.path,
        server: `${environment.state.kcp.url}/clusters/${workspace.path}`,
      });
      log(`workspace ${workspace.path} ready (logical cluster ${workspace.cluster})`);
    }
    if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
    const infraKubeconfig = infra.kubeconfig;
    workload = await startOtcWorkload(RestClient.fromFile(infraKubeconfig), infraKubeconfig, dir, log);
    console.log(`
The local control plane is running.

  kcp (admin, root workspace)   KUBECONFIG=${kcp.kubeconfig}
  provider workspace            KUBECONFIG=${kubeconfigs[PROVIDER_WORKSPACE]}
  tenant workspace              KUBECONFIG=${kubeconfigs[TENANT_WORKSPACE]}
  infrastructure cluster        KUBECONFIG=${infraKubeconfig}

Try:
  kubectl --kubeconfig ${kcp.kubeconfig} get workspaces
  kubectl --kubeconfig ${kubeconfigs[TENANT_WORKSPACE]} get namespaces
  kubectl --kubeconfig ${infraKubeconfig} get namespaces

The OTC cloud controller manager runs against the infrastructure cluster,
with the OTC simulator (${workload.simulatorUrl}) as its cloud (${workload.cloudConfig}):
  ${workload.nodes.join("\n  ")}
  Service ${DEMO_NAMESPACE}/${DEMO_SERVICE}: load balancer ingress ${workload.ingressIp}

Try:
  kubectl --kubeconfig ${infraKubeconfig} get nodes -L topology.kubernetes.io/zone,node.kubernetes.io/instance-type
  kubectl --kubeconfig ${infraKubeconfig} -n ${DEMO_NAMESPACE} get service ${DEMO_SERVICE}
  kubectl --kubeconfig ${infraKubeconfig} -n ${DEMO_NAMESPACE} describe service ${DEMO_SERVICE}    # the CCM's events
  kubectl --kubeconfig ${infraKubeconfig} -n ${DEMO_NAMESPACE} annotate service ${DEMO_SERVICE} otc.cloud/elb-internal=true
  kubectl --kubeconfig ${infraKubeconfig} -n ${DEMO_NAMESPACE} delete service ${DEMO_SERVICE}

Logs: ${kcp.logFile}, ${join(dir, "kube-apiserver")}/ and ${workload.logFile}
Press Ctrl-C to stop and clean up.`);
  } catch (err) {
    await workload?.stop();
    await environment.stop();
    throw err;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
