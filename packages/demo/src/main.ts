#!/usr/bin/env node
/**
 * `bash scripts/demo.sh`: the product on this machine, on real servers.
 * Starts kcp and the infrastructure cluster, then the platform (the OTC
 * simulator, the Crossplane OTC provider simulator, the provider-controller
 * and a workload kube-apiserver behind simulated CCE). A tenant workspace of
 * our WorkspaceType orders a cluster the way the seed's demo flow does
 * (credentials Secret, ProviderConfig, MachineCapabilities,
 * KubernetesCluster); progress is printed until the kubeconfig Secret
 * exists, and that kubeconfig then lists the new cluster's namespaces.
 * The OTC cloud controller manager then runs in the new cluster, and the
 * platform console (packages/console) is started; its URL is printed. Everything
 * keeps running until Ctrl-C, which stops what was started.
 *
 * State lives in `.cache/demo/` and is made anew on every start.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KUBERNETES_CLUSTER_RESOURCE, objectPath, type KubernetesCluster } from "@edgeconnect/api";
import { RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { freePort, readKubeconfig, REPO_ROOT, ServerProcess, TestEnvironment, writeKubeconfig } from "@edgeconnect/testenv";
import { followConditions } from "./follow-conditions.js";
import { DEMO_NAMESPACE, DEMO_SERVICE, startOtcWorkload, type OtcWorkload } from "./otc-workload.js";
import { orderCluster, Platform } from "./platform.js";

const PROVIDER_WORKSPACE = "edgeconnect";
const TENANT_WORKSPACE = "tenant-demo";
const CONSOLE_MAIN = join(REPO_ROOT, "packages", "console", "dist", "main.js");

type Cluster = KubernetesCluster & KubeObject;

async function main(): Promise<void> {
  const dir = join(REPO_ROOT, ".cache", "demo");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const log = (message: string): void => console.log(`[demo] ${message}`);

  log("starting kcp and the infrastructure cluster (kube-apiserver, kube-controller-manager, etcd)");
  const environment = await TestEnvironment.start({ infra: "kube-apiserver", dir, log });
  let platform: Platform | undefined;
  let workload: OtcWorkload | undefined;
  let platformConsole: ServerProcess | undefined;
  const stop = async (): Promise<void> => {
    log("stopping");
    await platformConsole?.stop();
    await workload?.stop();
    await platform?.stop();
    await environment.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  try {
    const { kcp, infra } = environment.state;
    if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
    const metricsPort = await freePort();
    platform = await Platform.start({
      kcpUrl: kcp.url,
      kcpKubeconfig: kcp.kubeconfig,
      infraKubeconfig: infra.kubeconfig,
      dir,
      providerWorkspace: PROVIDER_WORKSPACE,
      log,
      // The console shows the controller's health from these.
      controllerArgs: () => [`--metrics-bind-address=127.0.0.1:${metricsPort}`],
    });
    const tenant = await platform.createTenant(TENANT_WORKSPACE);
    const tenantKubeconfig = writeKubeconfig(join(dir, `${TENANT_WORKSPACE}.kubeconfig`), {
      ...readKubeconfig(kcp.kubeconfig),
      name: tenant.path,
      server: `${kcp.url}/clusters/${tenant.path}`,
    });
    log(`tenant workspace ${tenant.path} (logical cluster ${tenant.cluster}) has the platform API bound`);

    log("the tenant orders a cluster: Secret otc-credentials, ProviderConfig otc, MachineCapabilities workers (4 vCPU, 8Gi), KubernetesCluster my-cluster");
    const started = performance.now();
    await orderCluster(tenant.client, { credentials: platform.passwordCredentials(0) });
    const kc = await followProgress(tenant.client, log);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    log(`my-cluster is Ready after ${seconds} s: flavor ${kc.status?.flavor?.name ?? "?"} (${kc.status?.flavor?.reason ?? ""}), API ${kc.status?.apiEndpoint ?? "?"}`);

    const secret = await tenant.client.get<KubeObject & { data?: Record<string, string> }>("/api/v1/namespaces/default/secrets/my-cluster-kubeconfig");
    const clusterKubeconfig = join(dir, "my-cluster.kubeconfig");
    writeFileSync(clusterKubeconfig, Buffer.from(secret.data?.kubeconfig ?? "", "base64"), { mode: 0o600 });
    const cluster = RestClient.fromFile(clusterKubeconfig);
    const namespaces = await cluster.list("/api/v1/namespaces");
    log(`with the kubeconfig from Secret my-cluster-kubeconfig, the new cluster lists namespaces: ${namespaces.items.map((ns) => ns.metadata?.name).join(", ")}`);
    cluster.close();

    log("running the OTC cloud controller manager in the new cluster");
    workload = await startOtcWorkload(RestClient.fromFile(platform.workload.kubeconfigPath), platform.workload.kubeconfigPath, dir, log);

    const consolePort = await freePort();
    platformConsole = ServerProcess.start({
      name: "platform-console",
      command: process.execPath,
      args: [
        CONSOLE_MAIN,
        `--kcp-kubeconfig=${kcp.kubeconfig}`,
        `--provider-workspace=${platform.provider.path}`,
        `--infra-kubeconfig=${infra.kubeconfig}`,
        `--bind-address=127.0.0.1:${consolePort}`,
        `--controller-metrics-url=http://127.0.0.1:${metricsPort}/metrics`,
        // Plain HTTP on loopback: a Secure cookie would not come back.
        "--secure-cookie=false",
      ],
      logFile: join(dir, "platform-console.log"),
    });
    console.log(`
The local control plane is running.

  kcp (admin, root workspace)   KUBECONFIG=${kcp.kubeconfig}
  provider workspace            KUBECONFIG=${platform.providerKubeconfig}
  tenant workspace              KUBECONFIG=${tenantKubeconfig}
  infrastructure cluster        KUBECONFIG=${infra.kubeconfig}
  the tenant's new cluster      KUBECONFIG=${clusterKubeconfig}

The platform console: http://127.0.0.1:${consolePort}/
  sign in with the token of ${kcp.kubeconfig} (users[0].user.token; kcp's admin is the platform team here),
  and with that token and workspace ${tenant.path} for a tenant's view

Try:
  kubectl --kubeconfig ${tenantKubeconfig} get kubernetesclusters,providerconfigs,machinecapabilities
  kubectl --kubeconfig ${tenantKubeconfig} describe kubernetescluster my-cluster
  kubectl --kubeconfig ${tenantKubeconfig} patch kubernetescluster my-cluster --type merge -p '{"spec":{"nodeCount":3}}'
  kubectl --kubeconfig ${platform.providerKubeconfig} get providermachineflavors
  kubectl --kubeconfig ${infra.kubeconfig} get managed -A          # the Crossplane OTC resources in kcp-<fingerprint>
  kubectl --kubeconfig ${clusterKubeconfig} get namespaces
  kubectl --kubeconfig ${tenantKubeconfig} delete kubernetescluster my-cluster   # ordered teardown

In the new cluster the OTC cloud controller manager runs with the OTC simulator (${workload.simulatorUrl}) as its cloud:
  ${workload.nodes.join("\n  ")}
  Service ${DEMO_NAMESPACE}/${DEMO_SERVICE}: load balancer ingress ${workload.ingressIp}

Logs: ${kcp.logFile}, ${dir}/*.log (the console's: platform-console.log) and ${workload.logFile}
Press Ctrl-C to stop and clean up.`);
  } catch (err) {
    await platformConsole?.stop();
    await workload?.stop();
    await platform?.stop();
    await environment.stop();
    throw err;
  }
}

/** Prints each condition as it changes until the kubeconfig Secret is there and the cluster is Ready. */
async function followProgress(client: RestClient, log: (message: string) => void): Promise<Cluster> {
  return followConditions<Cluster>(client, objectPath(KUBERNETES_CLUSTER_RESOURCE, "default", "my-cluster"), {
    log,
    done: (kc) => kc.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" && kc.status?.kubeconfigSecretName !== undefined,
    noPhase: "Pending",
    timeoutMs: 300_000,
    description: "KubernetesCluster my-cluster Ready with its kubeconfig",
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
