/**
 * The chaos run's generated-input phase: every bundle of generated-input.ts
 * goes through kcp into a namespace of its own, as a tenant would apply it,
 * and is then judged by what kcp and the controller made of it.
 *
 * - Each bundle goes the way its mutation class says (generated-input.ts):
 *   a valid one is accepted and its cluster ends Ready for its generation;
 *   an invalid one has the object its class names
 *   refused by the schema (kcp answers 400 or 422), or the cluster gets the
 *   condition its class names, False with a message (what to change), and
 *   is never Ready.
 * - Every accepted KubernetesCluster gets a condition for its current
 *   generation (a valid one: Ready) before the phase's deadline: none stuck.
 * - Every credential in the bundles' Secrets is recorded for the credential
 *   guard (recordE2eCredentials), which then looks for them in every log.
 * - The controller never crashed: the same process ran throughout.
 * - Nothing was made for an invalid bundle: no managed resource on the
 *   infrastructure cluster carries its cluster's uid, and the cloud has no
 *   CCE cluster of its name.
 */
import { collectionPath, KUBERNETES_CLUSTER_RESOURCE, MACHINE_CAPABILITIES_RESOURCE, PROVIDER_CONFIG_RESOURCE } from "@edgeconnect/api";
import type { Platform } from "@edgeconnect/demo";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { CLUSTER_V3, clusterObjectNames, labelValue, UID_LABEL, VPC_V1 } from "@edgeconnect/provisioning";
import { recordE2eCredentials, type Workspace } from "@edgeconnect/testenv";
import { pool, waitFor, withRetry } from "../bench/measure.js";
import type { Cluster } from "../bench/platform-run.js";
import { readyForGeneration } from "./chaos-checks.js";
import { caseSecrets, expectedOutcome, generateCases, type ExpectedOutcome, type GeneratedCase } from "./generated-input.js";

/** Bundles per workspace: the controller is run with --max-clusters-per-workspace=1000. */
export const CASES_PER_WORKSPACE = 500;
const APPLY_CONCURRENCY = 16;

export interface GeneratedInputOptions {
  readonly platform: Platform;
  /** kcp admin, current (kcp may have restarted since the workspaces were made). */
  readonly admin: RestClient;
  readonly infra: RestClient;
  /** Made before the faults began: `Math.ceil(count / CASES_PER_WORKSPACE)` tenant workspaces. */
  readonly workspaces: readonly Workspace[];
  readonly count: number;
  readonly seed: number;
  readonly timeoutMs: number;
  readonly log: (message: string) => void;
}

export interface GeneratedInputFigures {
  readonly cases: number;
  readonly valid: number;
  readonly invalid: number;
  /** Invalid bundles that went exactly as their class says. */
  readonly asExpected: number;
  /** Invalid bundles with an object refused by the schema, as their class says. */
  readonly refusedBySchema: number;
  /** Invalid bundles whose cluster got the condition their class says (also after a refusal of another object). */
  readonly toldByCondition: number;
  readonly crashes: number;
  readonly stuck: number;
  readonly cloudObjectsForInvalid: number;
  /** From the first apply until every accepted cluster had its condition; undefined when the deadline came first. */
  readonly settledS: number | undefined;
  /** Per mutation: bundles, refused by the schema, told by a condition. */
  readonly byMutation: Readonly<Record<string, { cases: number; refused: number; told: number }>>;
  readonly violations: readonly string[];
}

interface Applied {
  readonly generated: GeneratedCase;
  readonly workspace: Workspace;
  /** The kinds kcp refused (400 or 422), with its answer's status. */
  readonly refused: ReadonlyMap<string, number>;
  /** Whether the KubernetesCluster itself was stored. */
  readonly clusterStored: boolean;
}

export async function runGeneratedInput(options: GeneratedInputOptions): Promise<GeneratedInputFigures> {
  const { platform, admin, log } = options;
  const cases = generateCases({ seed: options.seed, count: options.count, credentials: platform.passwordCredentials(0) });
  recordE2eCredentials(
    "chaos-generated-input",
    caseSecrets(cases).map((value, index) => ({ origin: `credential ${index} of the generated input (seed ${options.seed})`, value })),
  );
  const controllerPid = platform.controllerPid;
  const started = Date.now();
  const applied: Applied[] = [];
  await pool(cases.length, APPLY_CONCURRENCY, async (index) => {
    const generated = cases[index];
    const workspace = options.workspaces[Math.floor(index / CASES_PER_WORKSPACE)];
    if (generated === undefined || workspace === undefined) return;
    applied.push(await applyCase(admin.cluster(workspace.path), generated, workspace));
    if (applied.length % 1000 === 0) log(`generated input: ${applied.length} of ${cases.length} bundles sent`);
  });
  log(`generated input: ${cases.length} bundles sent in ${Math.round((Date.now() - started) / 1000)} s; waiting for a condition on every stored cluster`);

  const stored = applied.filter((entry) => entry.clusterStored);
  let clusters = new Map<string, Cluster>();
  const settled = await waitFor(
    async () => {
      clusters = await storedClusters(admin, options.workspaces);
      return stored.every((entry) => settledAsExpected(entry, clusters.get(key(entry.workspace, entry.generated))));
    },
    { timeoutMs: options.timeoutMs, intervalMs: 2_000 },
  );
  const settledS = settled ? Math.round((Date.now() - started) / 100) / 10 : undefined;

  const violations: string[] = [];
  const byMutation: Record<string, { cases: number; refused: number; told: number }> = {};
  const builtUids = await managedResourceOwners(options.infra);
  const cloudClusters = new Set([...platform.otc.state.cceClusters.values()].map((cluster) => cluster.name));
  let refusedBySchema = 0;
  let toldByCondition = 0;
  let stuck = 0;
  let cloudObjectsForInvalid = 0;
  let asExpected = 0;
  for (const entry of applied) {
    const { generated, workspace } = entry;
    const tally = (byMutation[generated.mutation] ??= { cases: 0, refused: 0, told: 0 });
    tally.cases++;
    const cluster = clusters.get(key(workspace, generated));
    const where = `${workspace.path} ${generated.namespace} (${generated.mutation})`;
    if (entry.clusterStored && !hasCurrentCondition(cluster)) {
      stuck++;
      violations.push(`stuck: ${where} has no condition for generation ${cluster?.metadata?.generation ?? "?"}`);
    } else if (entry.clusterStored && !settledAsExpected(entry, cluster)) {
      stuck++;
      violations.push(`stuck: valid input ${where} is not Ready for generation ${cluster?.metadata?.generation ?? "?"}: ${JSON.stringify(cluster?.status?.conditions?.map((c) => `${c.type} ${c.status} ${c.reason ?? ""}`) ?? [])}`);
    }
    const verdict = judge(entry, cluster, expectedOutcome(generated.mutation));
    if (verdict.problem !== undefined) violations.push(`${where}: ${verdict.problem}`);
    if (verdict.refused) {
      refusedBySchema++;
      tally.refused++;
    }
    if (verdict.told) {
      toldByCondition++;
      tally.told++;
    }
    if (generated.expectation === "valid") continue;
    if (verdict.problem === undefined) asExpected++;
    if (!entry.clusterStored) continue;
    const uid = cluster?.metadata?.uid;
    const madeInfrastructure = uid !== undefined && builtUids.has(labelValue(uid));
    const otcName = clusterObjectNames(generated.namespace, clusterName(generated), workspace.cluster).otc.cluster;
    if (madeInfrastructure || cloudClusters.has(otcName)) {
      cloudObjectsForInvalid++;
      violations.push(`something was made for invalid input ${where}: ${madeInfrastructure ? "managed resources" : ""} ${cloudClusters.has(otcName) ? "a CCE cluster" : ""}`.trim());
    }
  }
  const crashes = platform.controllerPid === controllerPid && platform.replica(0).running ? 0 : 1;
  if (crashes > 0) violations.push(`the controller did not survive the generated input (pid ${controllerPid ?? "?"} → ${platform.controllerPid ?? "none"})`);
  return {
    cases: cases.length,
    valid: cases.filter((generated) => generated.expectation === "valid").length,
    invalid: cases.filter((generated) => generated.expectation === "invalid").length,
    asExpected,
    refusedBySchema,
    toldByCondition,
    crashes,
    stuck,
    cloudObjectsForInvalid,
    settledS,
    byMutation,
    violations,
  };
}

/** The workspaces the phase needs for `count` bundles. */
export function workspacesFor(count: number): number {
  return Math.ceil(count / CASES_PER_WORKSPACE);
}

async function applyCase(workspace: RestClient, generated: GeneratedCase, target: Workspace): Promise<Applied> {
  await withRetry(`namespace ${generated.namespace}`, () => createOnce(workspace, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: generated.namespace } }));
  const refused = new Map<string, number>();
  let clusterStored = false;
  // After a refusal the rest goes on: what the cluster is told depends on what is missing.
  for (const object of generated.objects) {
    try {
      await withRetry(`${object.kind ?? "?"} in ${generated.namespace}`, () => createOnce(workspace, collectionOf(object, generated.namespace), object));
      if (object.kind === KUBERNETES_CLUSTER_RESOURCE.kind) clusterStored = true;
    } catch (err) {
      const cause: unknown = err instanceof Error && err.cause instanceof HttpStatusError ? err.cause : err;
      if (!(cause instanceof HttpStatusError) || (cause.status !== 400 && cause.status !== 422)) throw err;
      refused.set(object.kind ?? "?", cause.status);
    }
  }
  return { generated, workspace: target, refused, clusterStored };
}

/**
 * Creates `object` as `kubectl create` does (a POST, which the schema judges
 * with 400 or 422); an object a retried POST already made is fine.
 */
async function createOnce(workspace: RestClient, collection: string, object: KubeObject): Promise<void> {
  try {
    await workspace.create(collection, object);
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
  }
}

function collectionOf(object: KubeObject, namespace: string): string {
  switch (object.kind) {
    case "Secret":
      return `/api/v1/namespaces/${namespace}/secrets`;
    case PROVIDER_CONFIG_RESOURCE.kind:
      return collectionPath(PROVIDER_CONFIG_RESOURCE, namespace);
    case MACHINE_CAPABILITIES_RESOURCE.kind:
      return collectionPath(MACHINE_CAPABILITIES_RESOURCE, namespace);
    case KUBERNETES_CLUSTER_RESOURCE.kind:
      return collectionPath(KUBERNETES_CLUSTER_RESOURCE, namespace);
    default:
      throw new Error(`the generator made a ${object.kind ?? "kind-less object"}, which this run does not apply`);
  }
}

function clusterName(generated: GeneratedCase): string {
  return generated.objects.find((object) => object.kind === KUBERNETES_CLUSTER_RESOURCE.kind)?.metadata?.name ?? "";
}

function key(workspace: Workspace, generated: GeneratedCase): string {
  return `${workspace.path}|${generated.namespace}/${clusterName(generated)}`;
}

/** Every KubernetesCluster of the workspaces, by `key`. */
async function storedClusters(admin: RestClient, workspaces: readonly Workspace[]): Promise<Map<string, Cluster>> {
  const clusters = new Map<string, Cluster>();
  for (const workspace of workspaces) {
    const list = await admin.cluster(workspace.path).list<Cluster>(collectionPath(KUBERNETES_CLUSTER_RESOURCE));
    for (const cluster of list.items) clusters.set(`${workspace.path}|${cluster.metadata?.namespace ?? ""}/${cluster.metadata?.name ?? ""}`, cluster);
  }
  return clusters;
}

/** Where a stored cluster's case must end: a valid one Ready for its generation, any other with a condition for it. */
function settledAsExpected(entry: Applied, cluster: Cluster | undefined): boolean {
  return entry.generated.expectation === "valid" ? readyForGeneration(cluster) : hasCurrentCondition(cluster);
}

/** A condition written for the cluster's current generation: the controller's pass over it ended. */
function hasCurrentCondition(cluster: Cluster | undefined): boolean {
  const generation = cluster?.metadata?.generation;
  if (cluster === undefined || generation === undefined) return false;
  return cluster.status?.observedGeneration === generation || (cluster.status?.conditions ?? []).some((condition) => condition.observedGeneration === generation);
}

function isReady(cluster: Cluster): boolean {
  return cluster.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") === true;
}

interface Verdict {
  /** Refused by the schema as its class says. */
  readonly refused: boolean;
  /** Told by the condition its class says, with a message. */
  readonly told: boolean;
  /** What went otherwise than the class says. */
  readonly problem?: string;
}

/**
 * The case against what its class says must happen (generated-input.ts):
 * the named object refused, and then, or else, the named condition False
 * with a message and the cluster not Ready.
 */
function judge(entry: Applied, cluster: Cluster | undefined, outcome: ExpectedOutcome): Verdict {
  const refusals = [...entry.refused.entries()].map(([kind, status]) => `${kind} refused with HTTP ${status}`);
  if (outcome.kind === "valid") return { refused: false, told: false, ...(refusals.length > 0 ? { problem: `valid input refused: ${refusals.join(", ")}` } : {}) };
  const refusedAsSaid = outcome.kind === "refused" && entry.refused.has(outcome.object);
  if (outcome.kind === "refused" && !refusedAsSaid) return { refused: false, told: false, problem: `the schema should have refused the ${outcome.object}; ${refusals.join(", ") || "nothing was refused"}` };
  const unexpected = [...entry.refused.keys()].filter((kind) => outcome.kind !== "refused" || kind !== outcome.object);
  if (unexpected.length > 0) return { refused: refusedAsSaid, told: false, problem: `refused beyond its mutation: ${unexpected.join(", ")}` };
  const condition = outcome.kind === "condition" ? outcome.condition : outcome.then;
  if (condition === undefined) return { refused: refusedAsSaid, told: false };
  if (cluster === undefined) return { refused: refusedAsSaid, told: false, problem: "the KubernetesCluster was not stored" };
  const found = cluster.status?.conditions?.find((c) => c.type === condition.type);
  const told = found?.status === "False" && found.reason === condition.reason && (found.message ?? "").trim() !== "" && !isReady(cluster);
  return told
    ? { refused: refusedAsSaid, told }
    : { refused: refusedAsSaid, told, problem: `expected ${condition.type} False ${condition.reason} with a message, found ${JSON.stringify(cluster.status?.conditions?.map((c) => `${c.type} ${c.status} ${c.reason ?? ""}`) ?? [])}` };
}

/** The owner uids (label values) of every VPC and CCE cluster managed resource on the infrastructure cluster. */
async function managedResourceOwners(infra: RestClient): Promise<Set<string>> {
  const owners = new Set<string>();
  for (const kind of [VPC_V1, CLUSTER_V3]) {
    const list = await infra.list(`/apis/${kind.apiVersion}/${kind.plural}`);
    for (const item of list.items) {
      const uid = item.metadata?.labels?.[UID_LABEL];
      if (uid !== undefined) owners.add(uid);
    }
  }
  return owners;
}
