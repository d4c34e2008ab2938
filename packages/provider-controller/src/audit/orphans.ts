/**
 * The orphan audit's decisions, free of I/O: which of our objects on the
 * infrastructure cluster serve a KubernetesCluster that is confirmed gone,
 * and, when teardown is on, what to delete of them now.
 *
 * An orphan is only ever what a live look confirmed absent: an owner the
 * audit could not look at, or got no clear answer about, is `unknown`, and
 * unknown is never an orphan. Teardown acts only on what two audits in a row
 * found orphaned (a cluster deleted by hand and made again under its name a
 * moment later owns the same infrastructure), and in teardown's own order:
 * the managed resources child before parent, each stage gone before the
 * next is asked; the Crossplane ProviderConfig and the Secrets it and the
 * node login need once no managed resource of the cluster is left; the
 * namespace last, once nothing of ours is left in it.
 */
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { clusterObjectNames, CROSSPLANE_PROVIDER_CONFIG, LOGICAL_CLUSTER_ANNOTATION, MANAGED_RESOURCE_KINDS, tenantNamespace } from "@edgeconnect/provisioning";
import { requestKey, type DeepReadonly, type Request } from "@edgeconnect/runtime";
import { NAMESPACES, SECRETS, type InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { ownerRequest } from "../infrastructure/owner.js";
import { TEARDOWN_STAGES } from "../kubernetes-cluster/observed-infrastructure.js";

/** What a live look at a KubernetesCluster (or at a workspace's clusters) said. */
export type Presence = "present" | "absent" | "unknown";

export interface Listed {
  readonly kind: InfraKind;
  readonly obj: DeepReadonly<KubeObject>;
}

export interface AuditInput {
  /** Our managed resources and Crossplane ProviderConfigs, everywhere. */
  readonly owned: readonly Listed[];
  /** Our namespaces. */
  readonly namespaces: readonly DeepReadonly<KubeObject>[];
  /** Of each owner in `owners(owned)`, by `requestKey`; missing counts as unknown. */
  readonly clusters: ReadonlyMap<string, Presence>;
  /** Of each logical cluster in `workspaces(namespaces)`: whether any KubernetesCluster is left there; missing counts as unknown. */
  readonly workspaces: ReadonlyMap<string, Presence>;
  /** `orphanKey`s the previous audit found. */
  readonly previous: ReadonlySet<string>;
  readonly teardown: boolean;
}

export interface Orphan extends Listed {
  readonly key: string;
  /** What it was made for: a KubernetesCluster, or for a namespace its logical cluster. */
  readonly owner: Request | { readonly cluster: string };
}

/** One delete: by uid when the object was listed, by name for the Secrets, which are never listed. */
export interface Deletion {
  readonly kind: InfraKind;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
}

export interface AuditDecision {
  readonly orphans: readonly Orphan[];
  /** Orphans by kind, every audited kind present. */
  readonly counts: ReadonlyMap<string, number>;
  readonly deletions: readonly Deletion[];
  /** Teardown has work left that a later look must finish. */
  readonly pending: boolean;
}

/** The kinds the audit lists, managed resources children first. */
export const AUDITED_KINDS: readonly InfraKind[] = [...MANAGED_RESOURCE_KINDS, CROSSPLANE_PROVIDER_CONFIG];

/** Identifies one object across audits; the uid makes one made again under the same name a new one. */
export function orphanKey(kind: InfraKind, obj: DeepReadonly<KubeObject>): string {
  return `${kind.kind}/${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}/${obj.metadata?.uid ?? ""}`;
}

/**
 * The KubernetesCluster `obj` was made for, if it carries our owner marks
 * and sits in that cluster's tenant namespace; nothing else is ever judged.
 */
export function ownerOf(obj: DeepReadonly<KubeObject>): Request | undefined {
  const owner = ownerRequest(obj);
  if (owner === undefined || obj.metadata?.namespace !== tenantNamespace(owner.cluster).name) return undefined;
  return owner;
}

/** The logical cluster a namespace of ours belongs to, if it is that cluster's tenant namespace. */
export function workspaceOf(namespace: DeepReadonly<KubeObject>): string | undefined {
  const cluster = namespace.metadata?.annotations?.[LOGICAL_CLUSTER_ANNOTATION];
  if (cluster === undefined || namespace.metadata?.name !== tenantNamespace(cluster).name) return undefined;
  return cluster;
}

/** The owners to look up, each once. */
export function owners(owned: readonly Listed[]): Request[] {
  const byKey = new Map<string, Request>();
  for (const { obj } of owned) {
    const owner = ownerOf(obj);
    if (owner !== undefined) byKey.set(requestKey(owner), owner);
  }
  return [...byKey.values()];
}

/** The logical clusters whose namespaces to judge. */
export function workspaces(namespaces: readonly DeepReadonly<KubeObject>[]): string[] {
  return [...new Set(namespaces.flatMap((ns) => workspaceOf(ns) ?? []))];
}

export function decide(input: AuditInput): AuditDecision {
  const orphans: Orphan[] = [];
  for (const { kind, obj } of input.owned) {
    const owner = ownerOf(obj);
    if (owner !== undefined && input.clusters.get(requestKey(owner)) === "absent") orphans.push({ kind, obj, owner, key: orphanKey(kind, obj) });
  }
  for (const obj of input.namespaces) {
    // Being deleted already (teardown's last step, or the audit's): going, not left behind. What keeps one Terminating,
    // if anything of ours, is reported on its own above.
    if (obj.metadata?.deletionTimestamp !== undefined) continue;
    const cluster = workspaceOf(obj);
    if (cluster !== undefined && input.workspaces.get(cluster) === "absent") orphans.push({ kind: NAMESPACES, obj, owner: { cluster }, key: orphanKey(NAMESPACES, obj) });
  }
  const counts = new Map<string, number>([...AUDITED_KINDS, NAMESPACES].map((kind) => [kind.kind, 0]));
  for (const orphan of orphans) counts.set(orphan.kind.kind, (counts.get(orphan.kind.kind) ?? 0) + 1);
  if (!input.teardown) return { orphans, counts, deletions: [], pending: false };

  const deletions: Deletion[] = [];
  const confirmed = (orphan: Orphan): boolean => input.previous.has(orphan.key);
  const pending = orphans.length > 0;

  const byOwner = new Map<string, Orphan[]>();
  for (const orphan of orphans) {
    if (!("name" in orphan.owner)) continue;
    const key = requestKey(orphan.owner);
    byOwner.set(key, [...(byOwner.get(key) ?? []), orphan]);
  }
  for (const group of byOwner.values()) deletions.push(...teardownStep(group, confirmed));

  for (const orphan of orphans.filter((o) => o.kind === NAMESPACES && confirmed(o))) {
    const namespace = orphan.obj.metadata?.name;
    // Anything of ours still in it, orphaned or not, goes first: a namespace deleted around managed resources hangs in Terminating.
    const occupied = input.owned.some(({ obj }) => obj.metadata?.namespace === namespace);
    if (!occupied && orphan.obj.metadata?.deletionTimestamp === undefined) deletions.push(deletionOf(orphan));
  }
  return { orphans, counts, deletions, pending };
}

/**
 * What to delete now of one gone cluster's orphans: the first stage with
 * anything left, of it only what the previous audit found too. A stage
 * waits for its objects found just now as well: the next stage holds what
 * they are deleted with (the network under the cluster, the credentials
 * under every managed resource).
 */
function teardownStep(group: readonly Orphan[], confirmed: (orphan: Orphan) => boolean): Deletion[] {
  const ready = (orphan: Orphan): boolean => confirmed(orphan) && orphan.obj.metadata?.deletionTimestamp === undefined;
  for (const stage of TEARDOWN_STAGES) {
    const left = group.filter((orphan) => stage.some((kind) => kind.kind === orphan.kind.kind));
    if (left.length > 0) return left.filter(ready).map(deletionOf);
  }
  const configs = group.filter((orphan) => orphan.kind.kind === CROSSPLANE_PROVIDER_CONFIG.kind);
  if (!configs.every(confirmed)) return [];
  const owner = group[0]?.owner as Request;
  const names = clusterObjectNames(owner.namespace, owner.name, owner.cluster);
  const namespace = tenantNamespace(owner.cluster).name;
  return [
    ...configs.filter(ready).map(deletionOf),
    // The credentials Secret is named like its ProviderConfig (object-names.ts); the login key is the cluster's.
    ...configs.map((config) => ({ kind: SECRETS, namespace, name: config.obj.metadata?.name ?? "" })),
    { kind: SECRETS, namespace, name: names.keypair },
  ];
}

function deletionOf(orphan: Orphan): Deletion {
  const { namespace, name, uid } = orphan.obj.metadata ?? {};
  return { kind: orphan.kind, ...(namespace === undefined ? {} : { namespace }), name: name ?? "", ...(uid === undefined ? {} : { uid }) };
}
