/**
 * Listeners, pools, members and health monitors of one owned ELB, made to
 * match the Service on every call (never only on change events: members
 * lost on the cloud side come back on the next sync), and torn down
 * bottom-up. Every change is followed by a wait for ACTIVE, because the ELB
 * refuses the next change while it is still applying the last.
 */
import type { OtcClient } from "@edgeconnect/otc";
import type { DesiredLoadBalancer, PortSpec } from "../load-balancer.js";
import { diffListeners, diffMembers, monitorChange, monitorSettings, poolChange, poolSettings } from "./diff.js";
import type { ElbApi, ListenerView, PoolView } from "./elb-api.js";
import { waitActive, type Poller } from "./poll.js";

/** One owned load balancer and the means to change it. */
export interface OwnedLoadBalancer {
  readonly client: OtcClient;
  readonly api: ElbApi;
  readonly poller: Poller;
  readonly id: string;
}

async function change<T>(lb: OwnedLoadBalancer, request: () => Promise<T>): Promise<T> {
  const result = await request();
  await waitActive(lb.client, lb.api, lb.poller, lb.id);
  return result;
}

export async function reconcileChildren(lb: OwnedLoadBalancer, desired: DesiredLoadBalancer): Promise<void> {
  const { client, api } = lb;
  const [listeners, pools] = await Promise.all([api.listListeners(client, lb.id), api.listPools(client, lb.id)]);
  const diff = diffListeners(desired.ports, listeners);
  const used = new Set(diff.matched.map(({ listener }) => listener.default_pool_id));
  for (const listener of diff.surplus) await removeListener(lb, listener, pools);
  const removed = new Set(diff.surplus.map((listener) => listener.default_pool_id));
  for (const pool of pools) if (!used.has(pool.id) && !removed.has(pool.id)) await removePool(lb, pool);

  const matched = [...diff.matched];
  for (const port of diff.missing) {
    const listener = await change(lb, () =>
      api.createListener(client, { loadbalancer_id: lb.id, protocol: port.protocol, protocol_port: port.port, name: port.name }),
    );
    matched.push({ port, listener });
  }
  for (const { port, listener } of matched) {
    const pool = await reconcilePool(lb, port, listener, pools);
    await reconcileMembers(lb, desired, port, pool.id);
    await reconcileMonitor(lb, port, pool);
  }
}

/** Everything below the LB, bottom-up; the LB itself is the caller's (EIPs may need detaching first). */
export async function removeChildren(lb: OwnedLoadBalancer): Promise<void> {
  const [listeners, pools] = await Promise.all([lb.api.listListeners(lb.client, lb.id), lb.api.listPools(lb.client, lb.id)]);
  for (const listener of listeners) await removeListener(lb, listener, pools);
  const removed = new Set(listeners.map((listener) => listener.default_pool_id));
  for (const pool of pools) if (!removed.has(pool.id)) await removePool(lb, pool);
}

async function reconcilePool(lb: OwnedLoadBalancer, port: PortSpec, listener: ListenerView, pools: readonly PoolView[]): Promise<PoolView> {
  const existing = pools.find((pool) => pool.id === listener.default_pool_id);
  if (existing !== undefined) {
    const wanted = poolChange(port, existing);
    if (wanted.kind === "keep") return existing;
    if (wanted.kind === "update") return change(lb, () => lb.api.updatePool(lb.client, existing.id, wanted.settings));
    await removePool(lb, existing);
  }
  return change(lb, () =>
    lb.api.createPool(lb.client, { listener_id: listener.id, protocol: port.protocol, name: port.name, ...poolSettings(port) }),
  );
}

/** Adds before removing, so a node-port change never leaves the pool empty. */
async function reconcileMembers(lb: OwnedLoadBalancer, desired: DesiredLoadBalancer, port: PortSpec, poolId: string): Promise<void> {
  const { missing, surplus } = diffMembers(desired.members, port.nodePort, await lb.api.listMembers(lb.client, poolId));
  for (const node of missing) {
    await change(lb, () =>
      lb.api.createMember(lb.client, poolId, { address: node.address, protocol_port: port.nodePort, name: node.name, subnetId: desired.subnetId }),
    );
  }
  for (const member of surplus) await change(lb, () => lb.api.deleteMember(lb.client, poolId, member.id));
}

async function reconcileMonitor(lb: OwnedLoadBalancer, port: PortSpec, pool: PoolView): Promise<void> {
  // By id: listing monitors cannot filter by pool on v2 and would read every monitor of the project.
  const monitor = pool.healthmonitor_id === null ? undefined : await lb.api.getHealthMonitor(lb.client, pool.healthmonitor_id);
  const wanted = monitorChange(port.monitor, monitor);
  if (wanted.kind === "keep") return;
  if (wanted.kind === "update" && monitor !== undefined) {
    await change(lb, () => lb.api.updateHealthMonitor(lb.client, monitor.id, wanted.settings));
    return;
  }
  if (wanted.kind === "replace" && monitor !== undefined) await change(lb, () => lb.api.deleteHealthMonitor(lb.client, monitor.id));
  await change(lb, () =>
    lb.api.createHealthMonitor(lb.client, { pool_id: pool.id, type: port.monitor.type, ...monitorSettings(port.monitor) }),
  );
}

async function removeListener(lb: OwnedLoadBalancer, listener: ListenerView, pools: readonly PoolView[]): Promise<void> {
  const pool = pools.find((candidate) => candidate.id === listener.default_pool_id);
  if (pool !== undefined) await removePool(lb, pool);
  await change(lb, () => lb.api.deleteListener(lb.client, listener.id));
}

async function removePool(lb: OwnedLoadBalancer, pool: PoolView): Promise<void> {
  const { client, api } = lb;
  if (pool.healthmonitor_id !== null) {
    const monitorId = pool.healthmonitor_id;
    await change(lb, () => api.deleteHealthMonitor(client, monitorId));
  }
  for (const member of await api.listMembers(client, pool.id)) await change(lb, () => api.deleteMember(client, pool.id, member.id));
  await change(lb, () => api.deletePool(client, pool.id));
}
