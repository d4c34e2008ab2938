/**
 * What the chaos run judges, as plain functions over what it recorded: how
 * often each cluster became Ready, whether the cloud got one cluster per
 * order, whether any tenant's identity acted in another tenant's project,
 * and what is left over after the teardowns.
 */
import type { RequestLogEntry } from "@edgeconnect/otc-simulator";

/** Per tracked cluster, the Ready states seen in order (true/false), collapsed to transitions by `readyTransitions`. */
export class ReadyHistory {
  private readonly last = new Map<string, boolean>();
  private readonly becameReady = new Map<string, number>();
  private readonly lostReady = new Map<string, number>();
  /** How each cluster read when it first fell back from Ready (`state`), for the violation to name the cause. */
  private readonly lostAs = new Map<string, string>();

  /** Records one observation; `undefined` (not readable now: kcp restarting) changes nothing. */
  observe(cluster: string, ready: boolean | undefined, state?: string): void {
    if (ready === undefined) return;
    const before = this.last.get(cluster) ?? false;
    if (ready && !before) this.becameReady.set(cluster, (this.becameReady.get(cluster) ?? 0) + 1);
    if (!ready && before) {
      this.lostReady.set(cluster, (this.lostReady.get(cluster) ?? 0) + 1);
      if (state !== undefined && !this.lostAs.has(cluster)) this.lostAs.set(cluster, state);
    }
    this.last.set(cluster, ready);
  }

  isReady(cluster: string): boolean {
    return this.last.get(cluster) === true;
  }

  /** Clusters that became Ready other than exactly once, or fell back from Ready: each with its counts. */
  violations(clusters: readonly string[]): string[] {
    return clusters.flatMap((cluster) => {
      const became = this.becameReady.get(cluster) ?? 0;
      const lost = this.lostReady.get(cluster) ?? 0;
      const lostAs = this.lostAs.get(cluster);
      return became === 1 && lost === 0 ? [] : [`${cluster}: became Ready ${became} time(s), lost Ready ${lost} time(s)${lostAs === undefined ? "" : ` (first as ${lostAs})`}`];
    });
  }
}

/** One tenant as the cloud knows it: its IAM user (`domain/user`) and project id. */
export interface CloudAccount {
  readonly user: string;
  readonly project: string;
}

/**
 * Requests in which a tenant's identity reached another tenant's project:
 * a token issued to tenant A's user for B's project, or a call with A's
 * token answered in B's project (the log records the token's scope, and the
 * simulator refuses a token outside its project with 403, which is counted
 * too). Requests by identities that are no tenant's (the platform's) are
 * not judged here.
 */
export function crossTenantRequests(log: readonly RequestLogEntry[], accounts: readonly CloudAccount[]): RequestLogEntry[] {
  const projectOf = new Map(accounts.map((account) => [account.user, account.project]));
  return log.filter((entry) => {
    const user = entry.caller?.user;
    const own = user === undefined ? undefined : projectOf.get(user);
    if (own === undefined) return false;
    return (entry.caller?.project !== undefined && entry.caller.project !== own) || (entry.status === 403 && /\/projects?\//.test(entry.path));
  });
}

/** CCE clusters created (201) per project, from the request log: more than one per order is a double create. */
export function clusterCreates(log: readonly RequestLogEntry[]): Map<string, number> {
  const creates = new Map<string, number>();
  for (const entry of log) {
    const match = /^\/api\/v3\/projects\/([^/]+)\/clusters$/.exec(entry.path);
    if (entry.method !== "POST" || match?.[1] === undefined || entry.status !== 201) continue;
    creates.set(match[1], (creates.get(match[1]) ?? 0) + 1);
  }
  return creates;
}

/** The projects whose create count is not `expected`: each with its count. */
export function doubleCreates(creates: ReadonlyMap<string, number>, projects: readonly string[], expected = 1): string[] {
  return projects.flatMap((project) => ((creates.get(project) ?? 0) === expected ? [] : [`${project}: ${creates.get(project) ?? 0} CCE clusters created`]));
}

/** The sum over every kind of a LiveObjects count: what the cloud still holds. */
export function cloudObjectCount(live: Readonly<Record<string, number>>): number {
  return Object.values(live).reduce((sum, count) => sum + count, 0);
}

/** Injected faults by kind, as the simulator answered them: errors (500), throttling (429), lost answers (500 after the request took effect). */
export interface AnsweredFaults {
  readonly errors: number;
  readonly throttled: number;
  readonly lost: number;
}

/**
 * The injected faults the simulator answered to the client that names
 * itself `agent` (the controller): counted from the request log, so a fault
 * armed but never dealt, or dealt to another client (the Crossplane
 * simulator), or a 500 or 429 the cloud itself answered, is not counted.
 */
export function answeredFaults(log: readonly RequestLogEntry[], agent: string): AnsweredFaults {
  let errors = 0;
  let throttled = 0;
  let lost = 0;
  for (const entry of log) {
    if (entry.agent !== agent || entry.fault === undefined) continue;
    if (entry.fault === "after") lost++;
    else if (entry.status === 429) throttled++;
    else errors++;
  }
  return { errors, throttled, lost };
}

/** One tenant's teardown as it went: the way, whether its calls went through, and where its infrastructure lived. */
export interface TeardownRecord {
  readonly way: string;
  /** The way's calls were all answered (a delete, an unbinding, a workspace deletion). */
  readonly done: boolean;
  /** Its OTC project. */
  readonly project: string;
  /** Its `kcp-<fp>` namespace on the infrastructure cluster. */
  readonly namespace: string;
}

/**
 * Per way, the tenants it tore down: its calls went through, its project
 * holds nothing in the cloud any more, and its `kcp-<fp>` namespace is
 * gone. `ways` lists every way, so a way that tore nothing down shows 0.
 */
export function tornDownByWay(
  records: readonly TeardownRecord[],
  ways: readonly string[],
  cloudObjectsOf: (project: string) => number,
  namespacesLeft: ReadonlySet<string>,
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(ways.map((way) => [way, 0]));
  for (const record of records) {
    if (record.done && cloudObjectsOf(record.project) === 0 && !namespacesLeft.has(record.namespace)) counts[record.way] = (counts[record.way] ?? 0) + 1;
  }
  return counts;
}

/** What `readyForGeneration` reads of a KubernetesCluster. */
export interface GenerationConditions {
  readonly metadata?: { readonly generation?: number };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly observedGeneration?: number }[] };
}

/** Whether the cluster's Ready condition is True for its current generation: the controller finished its latest spec. */
export function readyForGeneration(cluster: GenerationConditions | undefined): boolean {
  const generation = cluster?.metadata?.generation;
  if (generation === undefined) return false;
  return cluster?.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True" && condition.observedGeneration === generation) === true;
}
