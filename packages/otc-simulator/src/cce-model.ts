/**
 * CCE's behaviour over time, shared by the cluster and node pool routes: a
 * cluster is Creating, then Available; deleting one makes it Deleting, and
 * when it is gone its master EIP is unbound and its node pools and their
 * servers are gone too (CCE deletes them). A node pool is Synchronizing
 * until, one sync later, it has its servers (phase "") or finds its flavor
 * sold out in its zone (SoldOut, retried every sync until capacity appears);
 * scaling synchronises again, deleting takes one sync. Every step runs on
 * the simulator's clock through `SimulatorState.schedule`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { ApiError } from "./api.js";
import type { CceCluster, CceClusterSpec, Eip, NodePool, SimulatorState } from "./state.js";

/** CCE's error: a Kubernetes Status carrying a CCE code derived from the HTTP status (`CCE.01400001`). */
export function cceError(status: number, message: string): ApiError {
  return new ApiError(status, `CCE.01${status}001`, message, "cce");
}

/** A cluster or node pool of the project; 404 otherwise. */
export function ownedCluster(state: SimulatorState, id: string, projectId: string): CceCluster {
  const cluster = state.cceClusters.get(id);
  if (cluster?.projectId !== projectId) throw cceError(404, `cluster ${id} could not be found`);
  return cluster;
}

export function ownedNodePool(state: SimulatorState, cluster: CceCluster, id: string): NodePool {
  const pool = state.nodePools.get(id);
  if (pool?.clusterId !== cluster.id) throw cceError(404, `node pool ${id} could not be found in cluster ${cluster.id}`);
  return pool;
}

/** The API server's port on the cluster's internal address and on its EIP. */
export const API_PORT = 5443;

export function createCluster(
  state: SimulatorState,
  projectId: string,
  name: string,
  spec: CceClusterSpec,
  internalAddress: string,
): CceCluster {
  const now = state.clock();
  const cluster: CceCluster = {
    id: randomUUID(),
    projectId,
    name,
    spec,
    phase: "Creating",
    internalAddress,
    masterPortId: randomUUID(),
    createdAt: now,
    updatedAt: now,
  };
  state.cceClusters.set(cluster.id, cluster);
  state.schedule(state.settings.cceClusterCreateMs, () => {
    if (cluster.phase === "Creating") setPhase(state, cluster, "Available");
  });
  return cluster;
}

/** Deleting now, gone after the delete delay; deleting a Deleting cluster changes nothing. */
export function deleteCluster(state: SimulatorState, cluster: CceCluster): void {
  if (cluster.phase === "Deleting") return;
  setPhase(state, cluster, "Deleting");
  state.schedule(state.settings.cceClusterDeleteMs, () => {
    const eip = masterEip(state, cluster);
    if (eip !== undefined) eip.portId = undefined;
    for (const pool of [...state.nodePools.values()]) if (pool.clusterId === cluster.id) removeNodePool(state, pool);
    state.cceClusters.delete(cluster.id);
  });
}

/** The EIP bound to the cluster's master port, if any. */
export function masterEip(state: SimulatorState, cluster: CceCluster): Eip | undefined {
  return [...state.eips.values()].find((eip) => eip.portId === cluster.masterPortId);
}

export type NodePoolInput = Pick<NodePool, "name" | "flavor" | "az" | "os" | "sshKey" | "runtime" | "rootVolume" | "dataVolumes" | "initialNodeCount">;

export function createNodePool(state: SimulatorState, cluster: CceCluster, input: NodePoolInput): NodePool {
  const now = state.clock();
  const pool: NodePool = {
    id: randomUUID(),
    projectId: cluster.projectId,
    clusterId: cluster.id,
    ...input,
    phase: "Synchronizing",
    serverIds: [],
    createdAt: now,
    updatedAt: now,
    generation: 0,
  };
  state.nodePools.set(pool.id, pool);
  synchronizeLater(state, pool);
  return pool;
}

/** A new node count: Synchronizing again, superseding a pending sync or SoldOut retry. */
export function scaleNodePool(state: SimulatorState, pool: NodePool, initialNodeCount: number): void {
  pool.initialNodeCount = initialNodeCount;
  pool.phase = "Synchronizing";
  pool.updatedAt = state.clock();
  synchronizeLater(state, pool);
}

/** Deleting now; after one sync its servers are gone and so is the pool. */
export function deleteNodePool(state: SimulatorState, pool: NodePool): void {
  if (pool.phase === "Deleting") return;
  pool.phase = "Deleting";
  pool.updatedAt = state.clock();
  pool.generation += 1;
  state.schedule(state.settings.nodePoolSyncMs, () => {
    if (state.nodePools.get(pool.id) === pool) removeNodePool(state, pool);
  });
}

function removeNodePool(state: SimulatorState, pool: NodePool): void {
  for (const id of pool.serverIds) state.servers.delete(id);
  state.nodePools.delete(pool.id);
}

function setPhase(state: SimulatorState, cluster: CceCluster, phase: string): void {
  cluster.phase = phase;
  cluster.updatedAt = state.clock();
}

function synchronizeLater(state: SimulatorState, pool: NodePool): void {
  pool.generation += 1;
  const generation = pool.generation;
  // At least 1 ms, so that a SoldOut retry waits for the clock instead of spinning within one settle().
  state.schedule(Math.max(state.settings.nodePoolSyncMs, 1), () => {
    if (state.nodePools.get(pool.id) === pool && pool.generation === generation) synchronize(state, pool);
  });
}

/** Brings the pool's servers to its node count, all or nothing, or marks it SoldOut and retries. */
function synchronize(state: SimulatorState, pool: NodePool): void {
  const missing = pool.initialNodeCount - pool.serverIds.length;
  if (missing < 0) {
    for (const id of pool.serverIds.splice(missing)) state.servers.delete(id);
  } else if (missing > 0) {
    const zone = placement(state, pool, missing);
    if (zone === undefined) {
      pool.phase = "SoldOut";
      synchronizeLater(state, pool);
      return;
    }
    const cluster = state.cceClusters.get(pool.clusterId);
    const subnet = state.subnets.find((candidate) => candidate.neutronNetworkId === cluster?.spec.subnetId);
    for (let i = 0; i < missing; i += 1) {
      const addresses = cluster === undefined || subnet === undefined ? {} : { [cluster.spec.vpcId]: [{ addr: state.allocateAddress(subnet), type: "fixed" as const }] };
      const server = state.addServer({ name: `${pool.name}-${randomSuffix()}`, flavor: pool.flavor, az: zone, projectId: pool.projectId, addresses });
      pool.serverIds.push(server.id);
    }
  }
  pool.phase = "";
  pool.updatedAt = state.clock();
}

/**
 * The zone that takes `count` more servers of the pool's flavor: its own, or
 * for `random` the one with the most room (the first of equals, so unlimited
 * flavors land in `<region>-01`).
 */
function placement(state: SimulatorState, pool: NodePool, count: number): string | undefined {
  const zones = pool.az === "random" ? state.zones : [pool.az];
  let best: { zone: string; free: number } | undefined;
  for (const zone of zones) {
    const free = state.freeCapacity(pool.flavor, zone);
    if (best === undefined || free > best.free) best = { zone, free };
  }
  return best !== undefined && best.free >= count ? best.zone : undefined;
}

/** CCE names a pool's nodes `<pool>-<5 random characters>`. */
function randomSuffix(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return [...randomBytes(5)].map((byte) => alphabet[byte % alphabet.length]).join("");
}
