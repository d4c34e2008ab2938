/**
 * The cloud node and node lifecycle controllers against the test
 * environment's real kube-apiserver and the OTC simulator: a registered node
 * is initialised, a shut-down instance taints its NotReady node, a deleted
 * instance takes its node along, and an ECS error deletes nothing.
 *
 * The API server is shared with other suites, so the controllers only see
 * nodes carrying this run's label, and every node is removed afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { HttpStatusError, type RestClient } from "@edgeconnect/kcp-ts";
import { combineHandlers, EventRecorder, Reflector, Store } from "@edgeconnect/runtime";
import { connectFromEnv, eventually, holds } from "@edgeconnect/testenv";
import { randomBytes, randomUUID } from "node:crypto";
import { OtcInstances } from "../instances/instances.js";
import { PROJECT, REGION, startSimulatedCloud, type SimulatedCloud } from "../testing/simulated-cloud.fixture.js";
import { NODES_PATH, nodePath, TAINT_SHUTDOWN, TAINT_UNINITIALIZED, type Node, type NodeCondition } from "../kube/objects.js";
import { cloudNodeController } from "./cloud-node-controller.js";
import { cloudNodeLifecycleController } from "./cloud-node-lifecycle-controller.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`node controller tests skipped: ${infra.skipped}`);

const MONITOR_PERIOD_MS = 200;
const WAIT = { timeoutMs: 20_000, intervalMs: 100 };

interface KubeEvent {
  readonly reason?: string;
  readonly type?: string;
  readonly message?: string;
  readonly involvedObject?: { readonly name?: string };
}

describeInfra("cloud node controllers on a real API server", () => {
  const client = infra as RestClient;
  const run = randomBytes(3).toString("hex");
  const label = "ccm-node-test";
  const nodeNames: string[] = [];
  const stop = new AbortController();
  let cloud: SimulatedCloud;
  let recorder: EventRecorder;
  let reflector: Reflector<Node>;
  let controllers: Promise<unknown>;

  beforeAll(async () => {
    cloud = await startSimulatedCloud();
    recorder = new EventRecorder({ client, component: "cloud-node-controller" });
    const nodes = new Store<Node>();
    const options = {
      client,
      nodes,
      instances: new OtcInstances(cloud.client, REGION),
      recorder,
      nodeMonitorPeriodMs: MONITOR_PERIOD_MS,
      nodeStatusUpdateFrequencyMs: 1_000,
    };
    const node = cloudNodeController(options);
    const lifecycle = cloudNodeLifecycleController(options);
    reflector = new Reflector<Node>({
      client,
      path: NODES_PATH,
      store: nodes,
      labelSelector: `${label}=${run}`,
      handlers: combineHandlers(node.handlers, lifecycle.handlers),
    });
    void reflector.start();
    await reflector.synced;
    controllers = Promise.all([node.controller.start(stop.signal), lifecycle.controller.start(stop.signal)]);
  });

  afterAll(async () => {
    stop.abort();
    await controllers;
    await reflector?.stop();
    await recorder?.flush();
    for (const name of nodeNames) await client.delete(nodePath(name)).catch(ignoreNotFound);
    const events = await client.list<KubeEvent & { metadata: { name: string } }>("/api/v1/namespaces/default/events");
    for (const event of events.items.filter((e) => nodeNames.includes(e.involvedObject?.name ?? ""))) {
      await client.delete(`/api/v1/namespaces/default/events/${event.metadata.name}`).catch(ignoreNotFound);
    }
    await cloud?.close();
  });

  async function createNode(suffix: string, spec: Node["spec"], ready: NodeCondition["status"]): Promise<string> {
    const name = `ccm-${run}-${suffix}`;
    nodeNames.push(name);
    // With its status, as a kubelet registers: the controllers never see it without a Ready condition.
    await client.create(NODES_PATH, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name, labels: { [label]: run } },
      spec,
      status: { conditions: [readyCondition(ready)], addresses: [{ type: "Hostname", address: name }] },
    });
    return name;
  }

  async function setReady(name: string, status: NodeCondition["status"]): Promise<void> {
    await client.request("PATCH", `${nodePath(name)}/status`, {
      body: { status: { conditions: [readyCondition(status)] } },
      contentType: "application/merge-patch+json",
    });
  }

  const getNode = (name: string): Promise<Node> => client.get<Node>(nodePath(name));
  const waitGone = (name: string): Promise<undefined> =>
    eventually(async () => {
      const gone = await getNode(name).then(
        () => false,
        (error: unknown) => error instanceof HttpStatusError && error.status === 404,
      );
      return holds(gone, "node still there");
    }, WAIT);
  const taintKeys = (node: Node): string[] => (node.spec?.taints ?? []).map((taint) => taint.key);

  async function eventsOf(name: string): Promise<KubeEvent[]> {
    await recorder.flush();
    const list = await client.list<KubeEvent>("/api/v1/namespaces/default/events", { query: { fieldSelector: `involvedObject.name=${name}` } });
    return list.items;
  }

  it("initialises a registered node: providerID, labels, addresses, taint removed, event Synced", async () => {
    const serverId = randomUUID();
    const name = `ccm-${run}-init`;
    cloud.sim.addServer({
      id: serverId,
      name,
      flavor: "s3.large.2",
      az: "eu-de-02",
      addresses: { "vpc-1": [{ addr: "192.168.0.21", type: "fixed" }, { addr: "80.158.2.21", type: "floating" }] },
    });
    await createNode("init", { taints: [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }] }, "True");

    const node = await eventually(async () => {
      const current = await getNode(name);
      const done = current.spec?.providerID !== undefined && !taintKeys(current).includes(TAINT_UNINITIALIZED) && (current.status?.addresses?.length ?? 0) === 3;
      return done ? [true, current] : [false, `providerID ${current.spec?.providerID}, taints ${taintKeys(current).join(",")}`];
    }, WAIT);
    expect(node.spec?.providerID).toBe(`otc://${serverId}`);
    expect(node.metadata?.labels).toMatchObject({
      "node.kubernetes.io/instance-type": "s3.large.2",
      "beta.kubernetes.io/instance-type": "s3.large.2",
      "topology.kubernetes.io/zone": "eu-de-02",
      "failure-domain.beta.kubernetes.io/zone": "eu-de-02",
      "topology.kubernetes.io/region": REGION,
      "failure-domain.beta.kubernetes.io/region": REGION,
    });
    expect(node.status?.addresses).toEqual([
      { type: "InternalIP", address: "192.168.0.21" },
      { type: "ExternalIP", address: "80.158.2.21" },
      { type: "Hostname", address: name },
    ]);
    const synced = await eventually<KubeEvent>(async () => {
      const found = (await eventsOf(name)).find((event) => event.reason === "Synced");
      return found ? [true, found] : [false, "no Synced event yet"];
    }, WAIT);
    expect(synced).toMatchObject({ type: "Normal", message: "Node synced successfully" });
  });

  it("leaves a node without an instance tainted and says why", async () => {
    const name = await createNode("orphan", { taints: [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }] }, "True");
    const warning = await eventually<KubeEvent>(async () => {
      const found = (await eventsOf(name)).find((event) => event.reason === "InstanceNotFound");
      return found ? [true, found] : [false, "no InstanceNotFound event yet"];
    }, WAIT);
    expect(warning.type).toBe("Warning");
    const node = await getNode(name);
    expect(taintKeys(node)).toContain(TAINT_UNINITIALIZED);
    expect(node.spec?.providerID).toBeUndefined();
  });

  it("refreshes the addresses of an initialised node when the cloud's change", async () => {
    const serverId = randomUUID();
    const server = cloud.sim.addServer({ id: serverId, name: `ccm-${run}-refresh`, addresses: { "vpc-1": [{ addr: "192.168.0.31", type: "fixed" }] } });
    const name = await createNode("refresh", { providerID: `otc://${serverId}` }, "True");
    await eventually(async () => {
      const addresses = (await getNode(name)).status?.addresses?.map((a) => a.address) ?? [];
      return addresses[0] === "192.168.0.31" ? [true, undefined] : [false, `addresses ${addresses.join(",")}`];
    }, WAIT);
    server.addresses = { "vpc-1": [{ addr: "192.168.0.32", type: "fixed", portId: "p" }] };
    await eventually(async () => {
      const addresses = (await getNode(name)).status?.addresses?.map((a) => a.address) ?? [];
      return addresses[0] === "192.168.0.32" ? [true, undefined] : [false, `addresses ${addresses.join(",")}`];
    }, WAIT);
  });

  it("taints a NotReady node whose instance is shut down, and lifts the taint once it is Ready", async () => {
    const serverId = randomUUID();
    const server = cloud.sim.addServer({ id: serverId, name: `ccm-${run}-stopped`, status: "SHUTOFF" });
    const name = await createNode("stopped", { providerID: `otc://${serverId}` }, "False");
    await eventually(async () => {
      const keys = taintKeys(await getNode(name));
      return keys.includes(TAINT_SHUTDOWN) ? [true, undefined] : [false, `taints ${keys.join(",")}`];
    }, WAIT);
    expect((await getNode(name)).spec?.taints).toContainEqual({ key: TAINT_SHUTDOWN, effect: "NoSchedule" });

    server.status = "ACTIVE";
    await setReady(name, "True");
    await eventually(async () => {
      const keys = taintKeys(await getNode(name));
      return keys.includes(TAINT_SHUTDOWN) ? [false, `taints ${keys.join(",")}`] : [true, undefined];
    }, WAIT);
  });

  it("deletes a NotReady node whose instance is gone", async () => {
    const serverId = randomUUID();
    cloud.sim.addServer({ id: serverId, name: `ccm-${run}-gone` });
    const name = await createNode("gone", { providerID: `otc://${serverId}` }, "False");
    await sleep(5 * MONITOR_PERIOD_MS);
    expect((await getNode(name)).metadata?.name).toBe(name);

    cloud.sim.state.servers.delete(serverId);
    await waitGone(name);
    expect((await eventsOf(name)).map((event) => event.reason)).toContain("DeletingNode");
  });

  it("keeps a NotReady node while ECS answers errors, even for an instance that is gone", async () => {
    const serverId = randomUUID();
    const serverPath = `/v1/${PROJECT.id}/cloudservers/${serverId}`;
    cloud.sim.faults.failNext({ method: "GET", pathPrefix: serverPath }, 500, 1_000);
    const name = await createNode("outage", { providerID: `otc://${serverId}` }, "Unknown");

    await eventually(() => {
      const failed = cloud.sim.faults.requests.filter((r) => r.path === serverPath && r.status === 500).length;
      return failed >= 5 ? [true, undefined] : [false, `${failed} failed lookups so far`];
    }, WAIT);
    expect((await getNode(name)).metadata?.name).toBe(name);

    // The same node goes once ECS answers again: the check above could have failed.
    cloud.sim.faults.clear();
    await waitGone(name);
  });
});

function readyCondition(status: NodeCondition["status"]): object {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  return { type: "Ready", status, reason: "Test", message: "set by the test", lastHeartbeatTime: now, lastTransitionTime: now };
}

function ignoreNotFound(error: unknown): void {
  if (!(error instanceof HttpStatusError && error.status === 404)) throw error;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
