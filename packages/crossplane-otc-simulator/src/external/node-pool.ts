/**
 * NodePoolV3 (opentelekomcloud_cce_node_pool_v3, reference §1.7).
 * Terraform waits for the cluster to be Available, orders the pool,
 * records its ID at once, then waits from
 * Synchronizing/Synchronized to the normal (empty) phase; SoldOut or Error
 * fail that wait after the ID is recorded, so the MR reads Ready with its
 * last operation failed. `initialNodeCount` scales in place; the node
 * template is ForceNew.
 */
import { createCceNodePool, deleteCceNodePool, getCceCluster, getCceNodePool, updateCceNodePool, type CceNodePool, type CceVolume } from "@edgeconnect/otc";
import type { ExternalPhase } from "../managed/conditions.js";
import { defined, numberParameter, requiredString, stringParameter, type ExternalKind } from "../managed/external.js";
import type { Parameters } from "../managed/resource.js";

export const NODE_POOL_V3: ExternalKind = {
  group: "cce.opentelekomcloud.m.crossplane.io",
  version: "v1alpha1",
  kind: "NodePoolV3",
  plural: "nodepoolv3s",
  scope: "Namespaced",
  forceNew: new Set(["cluster_id", "flavor", "availability_zone", "os", "key_pair", "root_volume", "data_volumes", "runtime", "region"]),
  inPlace: {
    arguments: new Set(["initial_node_count"]),
    async apply({ otc, signal }, id, parameters) {
      const count = numberParameter(parameters, "initialNodeCount");
      if (count === undefined) throw new Error('The argument "initial_node_count" is required, but no definition was found.');
      await updateCceNodePool(otc, requiredString(parameters, "clusterId", "cluster_id"), id, { initialNodeCount: count }, { signal });
    },
  },
  async waitBeforeCreate({ otc, signal }, parameters) {
    const clusterId = requiredString(parameters, "clusterId", "cluster_id");
    const cluster = await getCceCluster(otc, clusterId, { signal });
    if (cluster === undefined) throw new Error(`error waiting for CCE cluster ${clusterId} to become available: the cluster does not exist`);
    const phase = cluster.status?.phase ?? "";
    return phase === "Available" ? undefined : `CCE cluster ${clusterId} to become Available (it is ${phase})`;
  },
  async create({ otc, signal }, parameters) {
    const count = numberParameter(parameters, "initialNodeCount");
    if (count === undefined) throw new Error('The argument "initial_node_count" is required, but no definition was found.');
    const os = stringParameter(parameters, "os");
    const runtime = stringParameter(parameters, "runtime");
    const [rootVolume] = volumes(parameters, "rootVolume");
    if (rootVolume === undefined) throw new Error('The argument "root_volume" is required, but no definition was found.');
    const pool = await createCceNodePool(
      otc,
      requiredString(parameters, "clusterId", "cluster_id"),
      {
        metadata: { name: requiredString(parameters, "name", "name") },
        spec: {
          type: "vm",
          initialNodeCount: count,
          nodeTemplate: {
            flavor: requiredString(parameters, "flavor", "flavor"),
            az: stringParameter(parameters, "availabilityZone") ?? "random",
            ...(os === undefined ? {} : { os }),
            login: { sshKey: requiredString(parameters, "keyPair", "key_pair") },
            rootVolume,
            dataVolumes: volumes(parameters, "dataVolumes"),
            ...(runtime === undefined ? {} : { runtime: { name: runtime } }),
          },
        },
      },
      { signal },
    );
    return pool.metadata.uid;
  },
  async observe({ otc, signal }, id, parameters) {
    const clusterId = requiredString(parameters, "clusterId", "cluster_id");
    const pool = await getCceNodePool(otc, clusterId, id, { signal });
    if (pool === undefined) return undefined;
    const phase = pool.status?.phase ?? "";
    const reported = reportedParameters(pool, clusterId, otc.region, parameters);
    return {
      phase: phaseOf(phase),
      atProvider: { ...parameters, ...reported, id: pool.metadata.uid, status: phase },
      reported,
    };
  },
  async delete({ otc, signal }, id, parameters) {
    await deleteCceNodePool(otc, requiredString(parameters, "clusterId", "cluster_id"), id, { signal });
  },
};

function phaseOf(phase: string): ExternalPhase {
  switch (phase) {
    case "":
      return { kind: "settled" };
    case "Synchronizing":
    case "Synchronized":
      return { kind: "settling" };
    case "Deleting":
      return { kind: "deleting" };
    default:
      return { kind: "failed", message: `error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state '${phase}', wanted target ''` };
  }
}

function reportedParameters(pool: CceNodePool, clusterId: string, region: string, parameters: Parameters): Parameters {
  const template = pool.spec.nodeTemplate;
  return defined({
    name: pool.metadata.name,
    clusterId,
    flavor: template.flavor,
    // "random" lets CCE pick a zone per scale-out: whatever zone it names is what was asked for.
    availabilityZone: stringParameter(parameters, "availabilityZone") === "random" ? undefined : template.az,
    initialNodeCount: pool.spec.initialNodeCount,
    os: template.os,
    keyPair: template.login.sshKey,
    runtime: template.runtime?.name,
    rootVolume: [volumeParameters(template.rootVolume)],
    dataVolumes: template.dataVolumes.map(volumeParameters),
    region,
  });
}

function volumeParameters(volume: CceVolume): Parameters {
  return { size: volume.size, volumetype: volume.volumetype };
}

/** `rootVolume` / `dataVolumes` as CCE takes them; entries without size or type are left out for CCE to refuse. */
function volumes(parameters: Parameters, name: string): CceVolume[] {
  const list = parameters[name];
  if (!Array.isArray(list)) return [];
  return (list as unknown[]).flatMap((entry): CceVolume[] => {
    if (entry === null || typeof entry !== "object") return [];
    const { size, volumetype } = entry as Record<string, unknown>;
    return typeof size === "number" && typeof volumetype === "string" ? [{ size, volumetype }] : [];
  });
}
