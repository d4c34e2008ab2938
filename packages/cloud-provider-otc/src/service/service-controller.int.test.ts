/**
 * The service controller against the real kube-apiserver of the test
 * environment and the OTC simulator: Services of both ELB classes created,
 * updated (ports, nodes) and deleted with every OTC object and auto EIP
 * released; a foreign LB with our name left alone; a BYO EIP kept; SCTP and
 * class changes refused with events; injected faults recovered from without
 * leaks; Services with a loadBalancerClass ignored.
 *
 * Each suite run has its own namespace and labels its nodes, and the
 * reflectors select by them, so other suites' objects never count.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { createPublicIp, createLoadBalancerV2, type OtcClient } from "@edgeconnect/otc";
import type { OtcSimulator } from "@edgeconnect/otc-simulator";
import { EventRecorder, Reflector, RuntimeMetrics, runManager, Store } from "@edgeconnect/runtime";
import { connectFromEnv, eventually, holds, StallingProxy } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { LoadBalancerConfig } from "../config/cloud-config.js";
import { PROJECT, startSimulatedCloud, SUBNET, type SimulatedCloud } from "../testing/simulated-cloud.fixture.js";
import { FINALIZER_LOAD_BALANCER_CLEANUP, NODES_PATH, servicePath, type Node, type Service } from "../kube/objects.js";
import { DedicatedLoadBalancerDriver } from "./elb/dedicated-driver.js";
import { SharedLoadBalancerDriver } from "./elb/shared-driver.js";
import { serviceController } from "./service-controller.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;

const CLUSTER = "it";

interface CoreEvent extends KubeObject {
  reason: string;
  type: string;
  message: string;
}

describeInfra("service controller on a real API server and the OTC simulator", () => {
  const kube = infra as RestClient;
  const run = randomBytes(3).toString("hex");
  const namespace = `lb-${run}`;
  const nodeLabel = `edgeconnect.eu/it-run`;
  const config: LoadBalancerConfig = { subnetId: SUBNET.neutronSubnetId, networkId: SUBNET.neutronNetworkId, bandwidthMbit: 50, availabilityZones: ["eu-de-01"] };
  let cloud: SimulatedCloud;
  let sim: OtcSimulator;
  let otc: OtcClient;
  let manager: { stop: AbortController; running: Promise<void> };
  const writes: string[] = [];
  const proxies: StallingProxy[] = [];

  beforeAll(async () => {
    cloud = await startSimulatedCloud({ transitionDelayMs: 20, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    ({ sim, client: otc } = cloud);
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    for (const [suffix, address] of [["a", "192.168.0.101"], ["b", "192.168.0.102"]] as const) await createNode(suffix, address);

    manager = startManager(kube);
  });

  /**
   * The controller as the controller manager runs it: through runManager,
   * whose sync gate holds every reconcile until both reflectors have listed.
   * `nodeClient` carries the Node reflector's calls.
   */
  function startManager(nodeClient: RestClient): { stop: AbortController; running: Promise<void> } {
    const services = new Store<Service>();
    const nodes = new Store<Node>();
    // Records the controller's writes (Events included), which a no-op PATCH would not show in resourceVersions.
    const client: Pick<RestClient, "request" | "apply" | "create"> = {
      create: (path, body, options) => {
        writes.push(`POST ${path}`);
        return kube.create(path, body, options);
      },
      request: (method, path, options) => {
        if (method !== "GET") writes.push(`${method} ${path}`);
        return kube.request(method, path, options);
      },
      apply: (path, body, fieldManager, options) => {
        writes.push(`APPLY ${path}`);
        return kube.apply(path, body, fieldManager, options);
      },
    };
    const recorder = new EventRecorder({ client, component: "cloud-controller-manager" });
    const parts = serviceController({
      client,
      services,
      nodes,
      drivers: {
        shared: new SharedLoadBalancerDriver(otc, { pollIntervalMs: 10 }),
        dedicated: new DedicatedLoadBalancerDriver(otc, { pollIntervalMs: 10, availabilityZones: config.availabilityZones }),
      },
      config,
      clusterName: CLUSTER,
      recorder,
      resyncPeriodMs: 2_000,
    });
    const stop = new AbortController();
    const running = runManager(
      {
        flags: { metricsBindAddress: "0", healthProbeBindAddress: "0" },
        metrics: new RuntimeMetrics(),
        sources: {
          nodes: new Reflector<Node>({ client: nodeClient, path: NODES_PATH, labelSelector: `${nodeLabel}=${run}`, store: nodes, handlers: parts.nodeHandlers }),
          services: new Reflector<Service>({ client: kube, path: `/api/v1/namespaces/${namespace}/services`, store: services, handlers: parts.serviceHandlers }),
        },
        controllers: [parts.controller],
      },
      stop.signal,
    );
    return { stop, running };
  }

  afterAll(async () => {
    // While the controller still runs, so that it can release the cleanup finalizers.
    const services = `/api/v1/namespaces/${namespace}/services`;
    await kube.request("DELETE", services);
    await eventually(async () => {
      const left = (await kube.list<Service>(services)).items.length;
      return holds(left === 0, `${left} Services left`);
    });
    manager.stop.abort();
    await manager.running;
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await kube.request("DELETE", NODES_PATH, { query: { labelSelector: `${nodeLabel}=${run}` } });
    await kube.delete(`/api/v1/namespaces/${namespace}`);
    await cloud?.close();
  });

  async function createNode(suffix: string, address: string): Promise<string> {
    const name = `lb-${run}-${suffix}`;
    await kube.create(NODES_PATH, { apiVersion: "v1", kind: "Node", metadata: { name, labels: { [nodeLabel]: run } } });
    await kube.request("PATCH", `${NODES_PATH}/${name}/status`, {
      body: { status: { addresses: [{ type: "InternalIP", address }, { type: "Hostname", address: name }] } },
      contentType: "application/merge-patch+json",
    });
    return name;
  }

  async function createService(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}): Promise<Service> {
    return kube.create<Service>(`/api/v1/namespaces/${namespace}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, annotations },
      spec: { type: "LoadBalancer", selector: { app: name }, ...spec },
    });
  }

  const getService = (name: string): Promise<Service> => kube.get<Service>(servicePath(namespace, name));
  const lbName = (service: string): string => `kube_${CLUSTER}_${namespace}_${service}`;
  const lbsNamed = (service: string) => [...sim.state.loadbalancers.values()].filter((lb) => lb.name === lbName(service));
  const eipsOwnedBy = (uid: string) => [...sim.state.eips.values()].filter((eip) => eip.alias === `k8s-svc-${uid}`);

  async function reasons(name: string): Promise<string[]> {
    const service = await getService(name).catch(() => undefined);
    const uid = service?.metadata?.uid;
    if (uid === undefined) return [];
    const list = await kube.list<CoreEvent>(`/api/v1/namespaces/${namespace}/events`, { query: { fieldSelector: `involvedObject.uid=${uid}` } });
    return list.items.map((event) => event.reason);
  }

  async function ingressOf(name: string): Promise<string | undefined> {
    return (await getService(name)).status?.loadBalancer?.ingress?.[0]?.ip;
  }

  async function waitGone(name: string): Promise<void> {
    await eventually(
      async () => {
        const gone = await getService(name).then(
          () => false,
          () => true,
        );
        return holds(gone, "Service still there");
      },
      { description: `${name} deleted` },
    );
  }

  function topology(service: string) {
    const [lb] = lbsNamed(service);
    if (lb === undefined) return undefined;
    const listeners = [...sim.state.listeners.values()].filter((listener) => listener.loadbalancerId === lb.id);
    const pools = [...sim.state.pools.values()].filter((pool) => pool.loadbalancerId === lb.id);
    const members = [...sim.state.members.values()].filter((member) => pools.some((pool) => pool.id === member.poolId));
    const monitors = [...sim.state.monitors.values()].filter((monitor) => pools.some((pool) => pool.id === monitor.poolId));
    return {
      api: lb.api,
      listeners: listeners.map((listener) => `${listener.protocol}:${listener.protocolPort}`).sort(),
      members: members.map((member) => `${member.address}:${member.protocolPort}`).sort(),
      monitors: monitors.map((monitor) => monitor.type).sort(),
    };
  }

  it("creates a shared ELB with an auto EIP, follows port and node changes, and deletes everything with the Service", async () => {
    const created = await createService("web", {
      ports: [
        { name: "http", protocol: "TCP", port: 80 },
        { name: "dns", protocol: "UDP", port: 53 },
      ],
    });
    const uid = created.metadata?.uid ?? "";
    const [http, dns] = created.spec?.ports ?? [];
    await eventually(async () => holds((await ingressOf("web")) !== undefined, "no ingress yet"), { description: "web has an ingress" });

    const eips = eipsOwnedBy(uid);
    expect(eips).toHaveLength(1);
    expect(await ingressOf("web")).toBe(eips[0]?.publicIpAddress);
    expect((await getService("web")).metadata?.finalizers).toContain(FINALIZER_LOAD_BALANCER_CLEANUP);
    expect(topology("web")).toEqual({
      api: "v2",
      listeners: ["TCP:80", "UDP:53"],
      members: [`192.168.0.101:${dns?.nodePort}`, `192.168.0.101:${http?.nodePort}`, `192.168.0.102:${dns?.nodePort}`, `192.168.0.102:${http?.nodePort}`].sort(),
      monitors: ["TCP", "UDP_CONNECT"],
    });
    await eventually(async () => holds((await reasons("web")).includes("EnsuredLoadBalancer"), "no EnsuredLoadBalancer event"), { description: "events" });
    expect(await reasons("web")).toContain("EnsuringLoadBalancer");

    const current = await getService("web");
    await kube.replace(servicePath(namespace, "web"), {
      ...current,
      spec: { ...current.spec, ports: [{ name: "http", protocol: "TCP", port: 80, nodePort: http?.nodePort }, { name: "https", protocol: "TCP", port: 443 }] },
    });
    const third = await createNode("c", "192.168.0.103");
    await eventually(
      async () => {
        const now = topology("web");
        const ok = JSON.stringify(now?.listeners) === JSON.stringify(["TCP:443", "TCP:80"]) && now?.members.length === 6;
        return holds(ok, `topology ${JSON.stringify(now)}`);
      },
      { description: "ports and nodes reconciled" },
    );
    await kube.delete(`${NODES_PATH}/${third}`);
    await eventually(async () => holds(topology("web")?.members.length === 4, `topology ${JSON.stringify(topology("web"))}`), { description: "node removed" });

    await kube.delete(servicePath(namespace, "web"));
    await waitGone("web");
    expect(lbsNamed("web")).toHaveLength(0);
    expect(eipsOwnedBy(uid)).toHaveLength(0);
    expect([...sim.state.listeners.values(), ...sim.state.pools.values()].filter((object) => !sim.state.loadbalancers.has(object.loadbalancerId))).toHaveLength(0);
  });

  it("resyncs against OTC without writing to the Service, its events or OTC when both are in step, and repairs drift", async () => {
    await createService("steady", { ports: [{ protocol: "TCP", port: 80 }] });
    await eventually(async () => holds((await ingressOf("steady")) !== undefined, "no ingress yet"), { description: "steady has an ingress" });
    const settled = await eventually(
      async () => {
        const before = await getService("steady");
        await sleep(300);
        const after = await getService("steady");
        return holds(before.metadata?.resourceVersion === after.metadata?.resourceVersion, "still changing", after);
      },
      { description: "steady settled" },
    );
    const mark = sim.faults.requests.length;
    const written = writes.length;
    // Two resync periods of the controller under test.
    await sleep(4_500);
    const requests = sim.faults.requests.slice(mark);
    expect(requests.filter((request) => request.method === "GET").length).toBeGreaterThan(0);
    expect(requests.filter((request) => request.method !== "GET")).toEqual([]);
    expect(writes.slice(written)).toEqual([]);
    expect((await getService("steady")).metadata?.resourceVersion).toBe(settled.metadata?.resourceVersion);

    const [lb] = lbsNamed("steady");
    const member = [...sim.state.members.values()].find((candidate) => sim.state.pools.get(candidate.poolId)?.loadbalancerId === lb?.id);
    sim.state.members.delete(member?.id ?? "");
    const pool = sim.state.pools.get(member?.poolId ?? "");
    pool?.memberIds.splice(pool.memberIds.indexOf(member?.id ?? ""), 1);
    await eventually(async () => holds(topology("steady")?.members.length === 2, `topology ${JSON.stringify(topology("steady"))}`), {
      description: "member lost in OTC restored by the resync",
    });
  });

  it("restarts with a slow Node list without touching a member: no reconcile before every cache has synced", async () => {
    await createService("restart", { ports: [{ protocol: "TCP", port: 80 }] });
    await eventually(async () => holds(topology("restart")?.members.length === 2, `topology ${JSON.stringify(topology("restart"))}`), {
      description: "restart has both members",
    });
    manager.stop.abort();
    await manager.running;

    // The Node LIST is held; watches and every other call pass.
    const proxy = await StallingProxy.start({
      upstream: kube.server,
      matches: (method, path) => method === "GET" && path.startsWith(NODES_PATH) && !path.includes("watch=true"),
    });
    proxies.push(proxy);
    proxy.stall();
    const mark = sim.faults.requests.length;
    manager = startManager(kube.withServer(proxy.url));
    await eventually(() => holds(proxy.counts.held > 0, "the Node list was not asked for yet"), { description: "node list stalled" });
    // Long enough for the Service list to arrive and a reconcile to run, were one allowed.
    await sleep(2_500);
    expect(sim.faults.requests.slice(mark)).toEqual([]);
    expect(topology("restart")?.members).toHaveLength(2);

    proxy.resume();
    await eventually(() => holds(sim.faults.requests.length > mark, "no reconcile after the Node list arrived"), { description: "reconciled" });
    await sleep(500);
    expect(sim.faults.requests.slice(mark).filter((request) => request.method === "DELETE")).toEqual([]);
    expect(topology("restart")?.members).toHaveLength(2);
  });

  it("creates a dedicated ELB for otc.cloud/elb-class: dedicated and deletes it with its EIP", async () => {
    const created = await createService("api", { ports: [{ protocol: "TCP", port: 8443 }] }, { "otc.cloud/elb-class": "dedicated" });
    const uid = created.metadata?.uid ?? "";
    await eventually(async () => holds((await ingressOf("api")) !== undefined, "no ingress yet"), { description: "api has an ingress" });
    expect(topology("api")).toMatchObject({ api: "v3", listeners: ["TCP:8443"], monitors: ["TCP"] });
    expect(await ingressOf("api")).toBe(eipsOwnedBy(uid)[0]?.publicIpAddress);

    await kube.delete(servicePath(namespace, "api"));
    await waitGone("api");
    expect(lbsNamed("api")).toHaveLength(0);
    expect(eipsOwnedBy(uid)).toHaveLength(0);
  });

  it("leaves a foreign ELB with the Service's name untouched, also when the Service is deleted", async () => {
    const foreign = await createLoadBalancerV2(otc, { name: lbName("taken"), description: "kubernetes.io/service-uid=someone-else", vip_subnet_id: SUBNET.neutronSubnetId });
    await createService("taken", { ports: [{ protocol: "TCP", port: 80 }] });
    await eventually(async () => holds((await reasons("taken")).includes("SyncLoadBalancerFailed"), "no warning yet"), { description: "warning event" });
    expect(topology("taken")?.listeners).toEqual([]);
    expect(await ingressOf("taken")).toBeUndefined();

    await kube.delete(servicePath(namespace, "taken"));
    await waitGone("taken");
    expect(sim.state.loadbalancers.get(foreign.id)?.description).toBe("kubernetes.io/service-uid=someone-else");
  });

  it("binds a bring-your-own EIP and never releases it", async () => {
    const eip = await createPublicIp(otc, { bandwidth: { name: "byo", size: 10 } });
    await eventually(async () => holds(sim.state.eips.get(eip.id)?.status === "DOWN", "EIP not usable yet"), { description: "EIP ready" });
    await createService("byo", { ports: [{ protocol: "TCP", port: 80 }] }, { "otc.cloud/elb-eip-id": eip.id });
    await eventually(async () => holds((await ingressOf("byo")) === eip.public_ip_address, "not bound yet"), { description: "BYO EIP bound" });

    await kube.delete(servicePath(namespace, "byo"));
    await waitGone("byo");
    expect(lbsNamed("byo")).toHaveLength(0);
    expect(sim.state.eips.get(eip.id)).toBeDefined();
    expect(sim.state.eips.get(eip.id)?.portId).toBeUndefined();
  });

  it("refuses SCTP with a Warning event and creates nothing", async () => {
    await createService("sctp", { ports: [{ name: "diameter", protocol: "SCTP", port: 3868 }] });
    await eventually(async () => holds((await reasons("sctp")).includes("SyncLoadBalancerFailed"), "no warning yet"), { description: "warning event" });
    expect(lbsNamed("sctp")).toHaveLength(0);
    expect((await getService("sctp")).metadata?.finalizers ?? []).not.toContain(FINALIZER_LOAD_BALANCER_CLEANUP);
  });

  it("refuses a class change with an event and leaves the existing ELB as it is", async () => {
    await createService("switch", { ports: [{ protocol: "TCP", port: 80 }] });
    await eventually(async () => holds((await ingressOf("switch")) !== undefined, "no ingress yet"), { description: "switch has an ingress" });
    const before = topology("switch");
    const current = await getService("switch");
    await kube.replace(servicePath(namespace, "switch"), {
      ...current,
      metadata: { ...current.metadata, annotations: { "otc.cloud/elb-class": "dedicated" } },
    });
    await eventually(
      async () => {
        const warned = await kube.list<CoreEvent>(`/api/v1/namespaces/${namespace}/events`, {
          query: { fieldSelector: `involvedObject.uid=${current.metadata?.uid},reason=SyncLoadBalancerFailed` },
        });
        return holds(warned.items.some((event) => event.message.includes("otc.cloud/elb-class")), "no class-change warning");
      },
      { description: "class change refused" },
    );
    expect(lbsNamed("switch")).toHaveLength(1);
    expect(topology("switch")).toEqual(before);

    await kube.delete(servicePath(namespace, "switch"));
    await waitGone("switch");
    expect(lbsNamed("switch")).toHaveLength(0);
  });

  it("recovers from injected OTC faults without leaking load balancers or EIPs", async () => {
    sim.faults.failNext({ method: "POST", pathPrefix: "/v2.0/lbaas/pools" }, 500, 2);
    sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: `/v1/${PROJECT.id}/publicips` }, 502, 1);
    const created = await createService("flaky", { ports: [{ protocol: "TCP", port: 80 }] });
    const uid = created.metadata?.uid ?? "";
    await eventually(async () => holds((await ingressOf("flaky")) !== undefined, "no ingress yet"), { description: "flaky converged" });
    expect(lbsNamed("flaky")).toHaveLength(1);
    expect(eipsOwnedBy(uid)).toHaveLength(1);

    const [lb] = lbsNamed("flaky");
    sim.faults.busy(lb?.id ?? "", 300);
    await kube.delete(servicePath(namespace, "flaky"));
    await waitGone("flaky");
    expect(lbsNamed("flaky")).toHaveLength(0);
    expect(eipsOwnedBy(uid)).toHaveLength(0);
  });

  it("ignores Services with a loadBalancerClass", async () => {
    await createService("other-class", { ports: [{ protocol: "TCP", port: 80 }], loadBalancerClass: "example.com/metallb" });
    await createService("marker", { ports: [{ protocol: "TCP", port: 81 }] });
    await eventually(async () => holds((await ingressOf("marker")) !== undefined, "marker not done"), { description: "a later Service was handled" });
    expect(lbsNamed("other-class")).toHaveLength(0);
    expect((await getService("other-class")).metadata?.finalizers ?? []).toEqual([]);
    expect(await reasons("other-class")).toEqual([]);
  });
});
