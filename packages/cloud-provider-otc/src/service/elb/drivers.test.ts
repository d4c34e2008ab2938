import { createPublicIp, getPublicIp } from "@edgeconnect/otc";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { ElbClass } from "../load-balancer-intent.js";
import { EipUnavailableError, ForeignLoadBalancerError } from "../load-balancer.js";
import { eipAlias } from "./eips.js";
import { ATTEMPTS, desired, EIP_PATH, elbPath, port, startHarness, tcpMonitor, UID, type Harness } from "./elb-test.fixture.js";

describe.each<ElbClass>(["shared", "dedicated"])("%s ELB driver", (elbClass) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(elbClass);
  });
  afterEach(() => h.close());

  const want = (overrides: Parameters<typeof desired>[1] = {}) => desired(elbClass, overrides);
  const only = <T>(map: ReadonlyMap<string, T>): T => {
    expect(map.size).toBe(1);
    return [...map.values()][0] as T;
  };

  it("creates the LB with a listener, pool, members and monitor per port and an owned EIP as ingress", async () => {
    const status = await h.driver.ensure(want());
    const { state } = h.sim;
    const lb = only(state.loadbalancers);
    expect(lb).toMatchObject({ name: "kube_test_default_web", description: `kubernetes.io/service-uid=${UID}`, api: elbClass === "shared" ? "v2" : "v3" });
    const eip = only(state.eips);
    expect(eip).toMatchObject({ alias: eipAlias(UID), portId: lb.vipPortId });
    expect(eip.bandwidth.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
    expect(status).toEqual({ ingress: [{ ip: eip.publicIpAddress }] });

    const listeners = [...state.listeners.values()].map((l) => `${l.protocol}/${l.protocolPort}`).sort();
    expect(listeners).toEqual(["TCP/80", "UDP/53"]);
    for (const listener of state.listeners.values()) {
      const pool = state.pools.get(listener.defaultPoolId ?? "");
      expect(pool).toMatchObject({ protocol: listener.protocol, lbAlgorithm: "ROUND_ROBIN", sessionPersistence: undefined });
      const members = pool?.memberIds.map((id) => state.members.get(id));
      const nodePort = listener.protocol === "TCP" ? 30080 : 30053;
      expect(members?.map((m) => `${m?.address}:${m?.protocolPort}`).sort()).toEqual([`192.168.0.21:${nodePort}`, `192.168.0.22:${nodePort}`]);
      expect(members?.every((m) => m?.subnetId === want().subnetId)).toBe(true);
      expect(state.monitors.get(pool?.healthmonitorId ?? "")).toMatchObject({
        type: listener.protocol === "TCP" ? "TCP" : "UDP_CONNECT",
        delay: 5,
        timeout: 3,
        maxRetries: 3,
      });
    }
    expect(await h.driver.find(want().name, UID)).toEqual({ state: "owned", id: lb.id, status });
  });

  it("changes nothing when ensured again", async () => {
    const first = await h.driver.ensure(want());
    const mark = h.mark();
    expect(await h.driver.ensure(want())).toEqual(first);
    expect(h.mutationsSince(mark)).toEqual([]);
    expect(h.sim.faults.requests.length).toBeGreaterThan(mark);
  });

  it("reconciles added and removed ports and members", async () => {
    await h.driver.ensure(want());
    const before = h.sim.state.counts();
    await h.driver.ensure(
      want({
        ports: [port("TCP", 80, 30080), port("TCP", 443, 30443)],
        members: [
          { address: "192.168.0.22", name: "node-b" },
          { address: "192.168.0.23", name: "node-c" },
        ],
      }),
    );
    const { state } = h.sim;
    const summary = [...state.listeners.values()].map((listener) => {
      const pool = state.pools.get(listener.defaultPoolId ?? "");
      const members = pool?.memberIds.map((id) => `${state.members.get(id)?.address}:${state.members.get(id)?.protocolPort}`).sort();
      return `${listener.protocol}/${listener.protocolPort} -> ${members?.join(",")}`;
    });
    expect(summary.sort()).toEqual([
      "TCP/443 -> 192.168.0.22:30443,192.168.0.23:30443",
      "TCP/80 -> 192.168.0.22:30080,192.168.0.23:30080",
    ]);
    expect(h.sim.state.counts()).toEqual({ ...before, members: 4 });
  });

  it("restores members removed behind its back, on every call", async () => {
    await h.driver.ensure(want());
    const [lost] = h.sim.state.members.values();
    if (lost === undefined) throw new Error("no member");
    h.sim.state.members.delete(lost.id);
    const pool = h.sim.state.pools.get(lost.poolId);
    pool?.memberIds.splice(pool.memberIds.indexOf(lost.id), 1);
    await h.driver.ensure(want());
    expect(h.sim.state.members.size).toBe(4);
  });

  it("probes the health-check node port over HTTP for Local, updating settings in place and replacing on type change", async () => {
    const local = (delaySeconds: number) =>
      want({ ports: [port("TCP", 80, 30080, { monitor: tcpMonitor({ type: "HTTP", port: 32123, urlPath: "/healthz", delaySeconds }) })] });
    await h.driver.ensure(local(5));
    const monitor = only(h.sim.state.monitors);
    expect(monitor).toMatchObject({ type: "HTTP", monitorPort: 32123, urlPath: "/healthz", delay: 5 });
    await h.driver.ensure(local(7));
    expect(only(h.sim.state.monitors)).toMatchObject({ id: monitor.id, delay: 7 });
    await h.driver.ensure(want({ ports: [port("TCP", 80, 30080)] }));
    const replaced = only(h.sim.state.monitors);
    expect(replaced.id).not.toBe(monitor.id);
    expect(replaced).toMatchObject({ type: "TCP", monitorPort: undefined });
  });

  it("adds SOURCE_IP persistence for ClientIP affinity in place and clears it by replacing the pool", async () => {
    await h.driver.ensure(want({ ports: [port("TCP", 80, 30080)] }));
    const plain = only(h.sim.state.pools);
    await h.driver.ensure(want({ ports: [port("TCP", 80, 30080, { sessionAffinity: true })] }));
    expect(only(h.sim.state.pools)).toMatchObject({ id: plain.id, sessionPersistence: { type: "SOURCE_IP" } });
    await h.driver.ensure(want({ ports: [port("TCP", 80, 30080)] }));
    const pool = only(h.sim.state.pools);
    expect(pool.id).not.toBe(plain.id);
    expect(pool.sessionPersistence).toBeUndefined();
    expect(pool.memberIds).toHaveLength(2);
    expect(pool.healthmonitorId).toBeDefined();
  });

  it("refuses a foreign LB with the Service's name and changes nothing", async () => {
    await h.driver.ensure(want({ description: "kubernetes.io/service-uid=someone-else", serviceUid: "someone-else" }));
    const before = h.sim.state.counts();
    const mark = h.mark();
    await expect(h.driver.ensure(want())).rejects.toThrow(ForeignLoadBalancerError);
    await h.driver.delete(want().name, UID);
    expect(h.mutationsSince(mark)).toEqual([]);
    expect(h.sim.state.counts()).toEqual(before);
    const [foreign] = h.sim.state.loadbalancers.keys();
    expect(await h.driver.find(want().name, UID)).toEqual({ state: "foreign", id: foreign });
  });

  it("deletes everything it created, the owned EIP included, and is idempotent", async () => {
    await h.driver.ensure(want());
    await h.driver.delete(want().name, UID);
    expect(h.sim.state.counts()).toEqual({ loadbalancers: 0, listeners: 0, pools: 0, members: 0, monitors: 0, eips: 0 });
    const mark = h.mark();
    await h.driver.delete(want().name, UID);
    expect(h.mutationsSince(mark)).toEqual([]);
    expect(await h.driver.find(want().name, UID)).toEqual({ state: "absent" });
  });

  it("finishes a delete that failed half-way", async () => {
    await h.driver.ensure(want());
    h.sim.faults.failNext({ method: "DELETE", pathPrefix: elbPath(elbClass, "listeners") }, 500, ATTEMPTS);
    await expect(h.driver.delete(want().name, UID)).rejects.toThrow(/500/);
    expect(h.sim.state.loadbalancers.size).toBe(1);
    await h.driver.delete(want().name, UID);
    expect(h.sim.state.counts()).toEqual({ loadbalancers: 0, listeners: 0, pools: 0, members: 0, monitors: 0, eips: 0 });
  });

  it("releases an orphaned owned EIP when the LB is already gone", async () => {
    const orphan = await createPublicIp(h.client, { alias: eipAlias(UID), bandwidth: { name: "bw", size: 5 } });
    const other = await createPublicIp(h.client, { alias: "someone-elses", bandwidth: { name: "bw", size: 5 } });
    await h.driver.delete(want().name, UID);
    expect(await getPublicIp(h.client, orphan.id)).toBeUndefined();
    expect(await getPublicIp(h.client, other.id)).toBeDefined();
  });

  it("binds a BYO EIP by id or address, and leaves it unbound but allocated on delete", async () => {
    const byo = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    const status = await h.driver.ensure(want({ eip: { kind: "byo-id", id: byo.id } }));
    expect(status).toEqual({ ingress: [{ ip: byo.public_ip_address }] });
    expect(h.sim.state.eips.size).toBe(1);
    expect(h.sim.state.eips.get(byo.id)?.portId).toBe(only(h.sim.state.loadbalancers).vipPortId);
    expect(await h.driver.ensure(want({ eip: { kind: "byo-address", address: byo.public_ip_address } }))).toEqual(status);
    await h.driver.delete(want().name, UID);
    expect(h.sim.state.loadbalancers.size).toBe(0);
    expect(await getPublicIp(h.client, byo.id)).toMatchObject({ status: "DOWN", port_id: null });
  });

  it("rejects a BYO EIP that is missing or bound elsewhere", async () => {
    await expect(h.driver.ensure(want({ eip: { kind: "byo-id", id: "no-such-eip" } }))).rejects.toThrow(EipUnavailableError);
    await expect(h.driver.ensure(want({ eip: { kind: "byo-address", address: "80.158.99.99" } }))).rejects.toThrow(EipUnavailableError);
    const server = h.sim.addServer({ name: "vm", addresses: { vpc: [{ addr: "192.168.0.50", type: "fixed" }] } });
    const serverPort = Object.values(server.addresses)[0]?.[0]?.portId;
    const taken = await createPublicIp(h.client, { alias: "operator", bandwidth: { name: "bw", size: 5 } });
    const eip = h.sim.state.eips.get(taken.id);
    if (eip === undefined) throw new Error("no EIP");
    eip.portId = serverPort;
    await expect(h.driver.ensure(want({ eip: { kind: "byo-id", id: taken.id } }))).rejects.toThrow(EipUnavailableError);
    expect(eip.portId).toBe(serverPort);
  });

  it("converges after a member create failed with 500, without a second LB or EIP", async () => {
    h.sim.faults.failNext({ method: "POST", pathPrefix: elbPath(elbClass, "pools/") }, 500, ATTEMPTS);
    await expect(h.driver.ensure(want())).rejects.toThrow(/500/);
    const status = await h.driver.ensure(want());
    expect(h.sim.state.counts()).toEqual({ loadbalancers: 1, listeners: 2, pools: 2, members: 4, monitors: 2, eips: 1 });
    expect(status.ingress[0]?.ip).toBe([...h.sim.state.eips.values()][0]?.publicIpAddress);
  });

  it("converges after the LB stayed busy (409) beyond its patience", async () => {
    await h.driver.ensure(want());
    const [lbId] = h.sim.state.loadbalancers.keys();
    h.sim.faults.busy(lbId ?? "", 300);
    await expect(h.impatient.ensure(want({ ports: [port("TCP", 80, 30080)] }))).rejects.toThrow(/timed out/);
    h.sim.faults.failNext({ method: "DELETE", pathPrefix: elbPath(elbClass, "listeners") }, 409, ATTEMPTS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(h.driver.ensure(want({ ports: [port("TCP", 80, 30080)] }))).rejects.toThrow(/409/);
    await h.driver.ensure(want({ ports: [port("TCP", 80, 30080)] }));
    expect(h.sim.state.counts()).toEqual({ loadbalancers: 1, listeners: 1, pools: 1, members: 2, monitors: 1, eips: 1 });
  });

  it("releases the spare EIP a retried allocation created", async () => {
    h.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: EIP_PATH }, 500);
    const status = await h.driver.ensure(want());
    const eip = only(h.sim.state.eips);
    expect(status.ingress[0]?.ip).toBe(eip.publicIpAddress);
  });

  it("reuses an owned EIP whose allocation seemed to fail instead of allocating another", async () => {
    h.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: EIP_PATH }, 500, ATTEMPTS);
    await expect(h.driver.ensure(want())).rejects.toThrow(/500/);
    expect(h.sim.state.eips.size).toBe(ATTEMPTS);
    const mark = h.mark();
    await h.driver.ensure(want());
    expect(h.mutationsSince(mark).filter((request) => request.method === "POST" && request.path === EIP_PATH)).toEqual([]);
    expect(h.sim.state.eips.size).toBe(1);
    expect(h.sim.state.counts().loadbalancers).toBe(1);
  });

  it("ends with one LB when the LB create's answer was lost", async () => {
    h.sim.faults.failNextAfterEffect({ method: "POST", pathPrefix: elbPath(elbClass, "loadbalancers") }, 500);
    await h.driver.ensure(want()).catch(() => undefined);
    await h.driver.ensure(want());
    expect(h.sim.state.counts()).toEqual({ loadbalancers: 1, listeners: 2, pools: 2, members: 4, monitors: 2, eips: 1 });
  });
});
