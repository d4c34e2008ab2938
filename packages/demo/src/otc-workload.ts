/**
 * The OTC cloud controller manager at work in the demo. The local
 * kube-apiserver plays a workload cluster on OTC: two Nodes registered as a
 * kubelet with `--cloud-provider=external` registers them (tainted
 * uninitialized), the OTC simulator plays the cloud (their ECS servers, a
 * subnet for load balancers), and the real `otc-cloud-controller-manager`
 * process runs against both with a cloud.conf whose [Endpoints] name the
 * simulator. A LoadBalancer Service then gets an ELB and an EIP.
 *
 * The simulator is test support; the controller manager talks to it exactly
 * as it would to OTC, signatures included.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RestClient } from "@edgeconnect/kcp-ts";
import { startOtcSimulator } from "@edgeconnect/otc-simulator";
import { eventually, holds, REPO_ROOT } from "@edgeconnect/testenv";

const CREDENTIALS = { accessKey: "DEMOACCESSKEY0000001", secretKey: "demo-secret-key" };
const PROJECT = { id: "de70de70de70de70de70de70de70de70", name: "eu-de" };
const SUBNET = {
  vpcSubnetId: "de700000-0000-4000-8000-000000000001",
  neutronSubnetId: "de700000-0000-4000-8000-000000000002",
  neutronNetworkId: "de700000-0000-4000-8000-000000000003",
  cidr: "192.168.0.0/24",
};
const NODES = [
  { name: "demo-worker-1", address: "192.168.0.21", zone: "eu-de-01" },
  { name: "demo-worker-2", address: "192.168.0.22", zone: "eu-de-02" },
];
export const DEMO_NAMESPACE = "demo";
export const DEMO_SERVICE = "hello";

interface NodeView {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { providerID?: string; taints?: { key: string }[] };
}

interface ServiceView {
  status?: { loadBalancer?: { ingress?: { ip?: string }[] } };
}

export interface OtcWorkload {
  readonly simulatorUrl: string;
  readonly cloudConfig: string;
  readonly logFile: string;
  /** One line per node: its providerID, zone and instance type as the controller manager set them. */
  readonly nodes: readonly string[];
  readonly ingressIp: string;
  stop(): Promise<void>;
}

export async function startOtcWorkload(kube: RestClient, kubeconfig: string, dir: string, log: (message: string) => void): Promise<OtcWorkload> {
  const sim = await startOtcSimulator({ credentials: [CREDENTIALS], projects: [PROJECT], transitionDelayMs: 500 });
  let ccm: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (ccm !== undefined && ccm.exitCode === null) {
      const exited = new Promise((resolve) => ccm?.once("exit", resolve));
      ccm.kill("SIGTERM");
      await exited;
    }
    await sim.close();
  };
  try {
    sim.addSubnet(SUBNET);
    for (const node of NODES) {
      sim.addServer({ name: node.name, flavor: "s3.large.2", az: node.zone, addresses: { vpc: [{ addr: node.address, type: "fixed" }] } });
      await kube.create("/api/v1/nodes", {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: node.name },
        spec: { taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }] },
      });
    }
    const cloudConfig = join(dir, "cloud.conf");
    writeFileSync(
      cloudConfig,
      [
        "[Global]",
        `access-key = ${CREDENTIALS.accessKey}`,
        `secret-key = "${CREDENTIALS.secretKey}"`,
        "region = eu-de",
        "",
        "[LoadBalancer]",
        `subnet-id = ${SUBNET.neutronSubnetId}`,
        `network-id = ${SUBNET.neutronNetworkId}`,
        "cluster-name = demo",
        "",
        "; the OTC simulator stands in for the public endpoints",
        "[Endpoints]",
        ...(["iam", "ecs", "vpc", "elb"] as const).map((service) => `${service} = ${sim.endpoints[service]}`),
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    const logFile = join(dir, "otc-cloud-controller-manager.log");
    const logStream = createWriteStream(logFile);
    ccm = spawn(
      process.execPath,
      [
        join(REPO_ROOT, "packages", "cloud-provider-otc", "dist", "main.js"),
        "--cloud-provider=otc",
        `--cloud-config=${cloudConfig}`,
        `--kubeconfig=${kubeconfig}`,
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=127.0.0.1:0",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    ccm.stdout?.pipe(logStream);
    ccm.stderr?.pipe(logStream);
    log(`otc-cloud-controller-manager started (log: ${logFile})`);

    const initialised = await eventually(
      async () => {
        const nodes = await Promise.all(NODES.map((node) => kube.get<NodeView>(`/api/v1/nodes/${node.name}`)));
        const pending = nodes.filter((node) => (node.spec?.taints ?? []).some((taint) => taint.key === "node.cloudprovider.kubernetes.io/uninitialized"));
        return holds(pending.length === 0, `${pending.length} node(s) still uninitialised`, nodes);
      },
      { description: "nodes initialised by the controller manager", timeoutMs: 120_000 },
    );
    const nodes = initialised.map(
      (node) =>
        `${node.metadata?.name}  providerID=${node.spec?.providerID}  zone=${node.metadata?.labels?.["topology.kubernetes.io/zone"]}  type=${node.metadata?.labels?.["node.kubernetes.io/instance-type"]}`,
    );
    log("nodes initialised: providerID, zone, region and instance type set; uninitialized taint removed");

    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: DEMO_NAMESPACE } });
    await kube.create(`/api/v1/namespaces/${DEMO_NAMESPACE}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: DEMO_SERVICE },
      spec: { type: "LoadBalancer", selector: { app: DEMO_SERVICE }, ports: [{ name: "http", protocol: "TCP", port: 80 }] },
    });
    const ingressIp = await eventually(
      async () => {
        const service = await kube.get<ServiceView>(`/api/v1/namespaces/${DEMO_NAMESPACE}/services/${DEMO_SERVICE}`);
        const ip = service.status?.loadBalancer?.ingress?.[0]?.ip;
        return holds(ip !== undefined, "no ingress yet", ip ?? "");
      },
      { description: "the LoadBalancer Service served", timeoutMs: 120_000 },
    );
    log(`Service ${DEMO_NAMESPACE}/${DEMO_SERVICE} has an ELB with EIP ${ingressIp}`);
    return { simulatorUrl: sim.url, cloudConfig, logFile, nodes, ingressIp, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
