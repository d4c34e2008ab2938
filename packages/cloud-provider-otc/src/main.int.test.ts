/**
 * The built `otc-cloud-controller-manager` as a process, the way a cluster
 * runs it: flags, a cloud.conf whose [Endpoints] point at the OTC simulator,
 * project discovery through IAM, leader election on its Lease, probes, a
 * node initialised, a LoadBalancer Service served and cleaned up, and a clean
 * exit on SIGTERM that releases the Lease. Credentials never show in its
 * output.
 *
 * The process watches every Node and Service of its cluster, as a CCM does,
 * so it gets a kube-apiserver of its own: on the shared one it would act on
 * the objects of suites running in parallel.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import type { OtcSimulator } from "@edgeconnect/otc-simulator";
import { connectFromEnv, eventually, holds, keepE2eLog, KubeApiServer, Reaper, resolveControlPlaneBinaries } from "@edgeconnect/testenv";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CREDENTIALS, startSimulatedCloud, SUBNET, type SimulatedCloud } from "./testing/simulated-cloud.fixture.js";
import { NODES_PATH, servicePath, TAINT_UNINITIALIZED, type Node, type Service } from "./kube/objects.js";

const { state } = connectFromEnv();
// Only where the environment runs a local kube-apiserver (not kind, not skipped) is there a binary to start another.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("otc-cloud-controller-manager process tests skipped: they start a kube-apiserver of their own, which needs the local one's binaries");

const MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string };
}

describeInfra("otc-cloud-controller-manager process", () => {
  let reaper: Reaper;
  let cluster: KubeApiServer;
  let kube: RestClient;
  const run = randomBytes(3).toString("hex");
  const namespace = `ccm-${run}`;
  const nodeName = `ccm-${run}-worker`;
  const dir = mkdtempSync(join(tmpdir(), "ccm-"));
  let cloud: SimulatedCloud;
  let sim: OtcSimulator;
  let ccm: Launched;

  /** A controller manager process, its output collected, its exit awaited. */
  interface Launched {
    readonly child: ChildProcess;
    readonly exited: Promise<number | null>;
    output(): string;
    /** The first JSON log entry with this message. */
    logged(message: string): Record<string, unknown> | undefined;
  }

  function launch(name: string, sections: { loadBalancer: boolean }, extraArgs: readonly string[] = []): Launched {
    const cloudConf = join(dir, `${name}.conf`);
    writeFileSync(
      cloudConf,
      [
        "[Global]",
        `access-key = ${CREDENTIALS.accessKey}`,
        `secret-key = "${CREDENTIALS.secretKey}"`,
        "region = eu-de",
        ...(sections.loadBalancer
          ? ["[LoadBalancer]", `subnet-id = ${SUBNET.neutronSubnetId}`, `network-id = ${SUBNET.neutronNetworkId}`, `cluster-name = proc-${run}`]
          : []),
        "[Endpoints]",
        ...(["iam", "ecs", "vpc", "elb"] as const).map((service) => `${service} = ${sim.endpoints[service]}`),
        "",
      ].join("\n"),
    );
    const child = spawn(
      process.execPath,
      [
        MAIN,
        "--cloud-provider=otc",
        `--cloud-config=${cloudConf}`,
        `--kubeconfig=${cluster.kubeconfigPath}`,
        `--leader-elect-resource-namespace=${namespace}`,
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=127.0.0.1:0",
        ...extraArgs,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    return {
      child,
      exited: new Promise((resolve) =>
        child.once("exit", (code) => {
          keepE2eLog(`cloud-controller-manager-${name}-${run}`, output);
          resolve(code);
        }),
      ),
      output: () => output,
      logged: (message) =>
        output
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry.msg === message),
    };
  }

  beforeAll(async () => {
    reaper = Reaper.start();
    cluster = await KubeApiServer.start({ ...(await resolveControlPlaneBinaries()), reaper });
    kube = cluster.adminClient();
    cloud = await startSimulatedCloud({ transitionDelayMs: 20 });
    sim = cloud.sim;
    sim.addServer({ name: nodeName, flavor: "s3.xlarge.4", az: "eu-de-02", addresses: { vpc: [{ addr: "192.168.0.50", type: "fixed" }] } });
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await kube.create(NODES_PATH, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: nodeName },
      spec: { taints: [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }] },
    });
    ccm = launch("ccm", { loadBalancer: true }, ["--node-monitor-period=500ms"]);
  });

  afterAll(async () => {
    if (ccm?.child.exitCode === null) ccm.child.kill("SIGKILL");
    kube?.close();
    await cluster?.stop();
    await reaper?.close();
    await cloud?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the Lease and becomes ready", async () => {
    const listening = await eventually(() => {
      const entry = ccm.logged("serving metrics and probes");
      return holds(entry !== undefined, `not listening yet; output so far:\n${ccm.output()}`, entry);
    });
    await eventually(async () => {
      const response = await fetch(`http://127.0.0.1:${String(listening?.probes)}/readyz`).catch(() => undefined);
      return holds(response?.status === 200, `readyz ${response?.status}`);
    });
    const lease = await eventually(async () => {
      const found = await kube.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/cloud-controller-manager`).catch(() => undefined);
      return holds(found?.spec?.holderIdentity !== undefined && found.spec.holderIdentity !== "", "no holder yet", found);
    });
    expect(lease?.spec?.holderIdentity).toMatch(/_[0-9a-f]{16}$/);
    const metrics = await (await fetch(`http://127.0.0.1:${String(listening?.metrics)}/metrics`)).text();
    expect(metrics).toMatch(/leader_election_master_status\{name="cloud-controller-manager"\} 1/);
  });

  it("initialises the node from ECS and removes the uninitialized taint", async () => {
    const [server] = [...sim.state.servers.values()];
    const node = await eventually(async () => {
      const current = await kube.get<Node>(`${NODES_PATH}/${nodeName}`);
      const tainted = (current.spec?.taints ?? []).some((taint) => taint.key === TAINT_UNINITIALIZED);
      return holds(!tainted, "still tainted", current);
    });
    expect(node?.spec?.providerID).toBe(`otc://${server?.id}`);
    expect(node?.metadata?.labels).toMatchObject({
      "node.kubernetes.io/instance-type": "s3.xlarge.4",
      "topology.kubernetes.io/zone": "eu-de-02",
      "topology.kubernetes.io/region": "eu-de",
    });
    await eventually(async () => {
      const current = await kube.get<Node>(`${NODES_PATH}/${nodeName}`);
      const internal = current.status?.addresses?.find((address) => address.type === "InternalIP")?.address;
      return holds(internal === "192.168.0.50", `addresses ${JSON.stringify(current.status?.addresses)}`);
    });
  });

  it("serves a LoadBalancer Service and cleans up after it", async () => {
    await kube.create(`/api/v1/namespaces/${namespace}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: { type: "LoadBalancer", selector: { app: "web" }, ports: [{ protocol: "TCP", port: 80 }] },
    });
    const ip = await eventually(async () => {
      const service = await kube.get<Service>(servicePath(namespace, "web"));
      const address = service.status?.loadBalancer?.ingress?.[0]?.ip;
      return holds(address !== undefined, "no ingress yet", address);
    });
    expect([...sim.state.eips.values()].map((eip) => eip.publicIpAddress)).toContain(ip);
    expect([...sim.state.loadbalancers.values()].map((lb) => lb.name)).toContain(`kube_proc-${run}_${namespace}_web`);

    await kube.delete(servicePath(namespace, "web"));
    await eventually(async () => {
      const gone = await kube.get(servicePath(namespace, "web")).then(
        () => false,
        () => true,
      );
      return holds(gone && sim.state.loadbalancers.size === 0 && sim.state.eips.size === 0, "LB or EIP still there");
    });
  });

  it("exits cleanly on SIGTERM, releases the Lease, and never printed the secret key", async () => {
    ccm.child.kill("SIGTERM");
    expect(await ccm.exited).toBe(0);
    const lease = await kube.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/cloud-controller-manager`);
    expect(lease.spec?.holderIdentity ?? "").toBe("");
    expect(ccm.output()).not.toContain(CREDENTIALS.secretKey);
  });

  it("runs without LoadBalancer support when cloud.conf has no subnet-id, leaving Services pending", async () => {
    const limited = launch("no-lb", { loadBalancer: false }, ["--controllers=service", "--leader-elect=false"]);
    try {
      await eventually(() => holds(limited.logged("serving metrics and probes") !== undefined, `not started; output:\n${limited.output()}`));
      expect(limited.logged("LoadBalancer support is off: cloud.conf has no [LoadBalancer] subnet-id; Services of type LoadBalancer stay pending")).toBeDefined();
      await kube.create(`/api/v1/namespaces/${namespace}/services`, {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "pending" },
        spec: { type: "LoadBalancer", selector: { app: "pending" }, ports: [{ protocol: "TCP", port: 80 }] },
      });
      await sleep(1_500);
      const service = await kube.get<Service>(servicePath(namespace, "pending"));
      expect(service.status?.loadBalancer?.ingress).toBeUndefined();
      expect(service.metadata?.finalizers ?? []).toEqual([]);
      expect(sim.state.loadbalancers.size).toBe(0);
    } finally {
      limited.child.kill("SIGTERM");
      expect(await limited.exited).toBe(0);
    }
  });
});
