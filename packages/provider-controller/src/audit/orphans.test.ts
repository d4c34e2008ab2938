import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CLUSTER_V3, clusterObjectNames, CROSSPLANE_PROVIDER_CONFIG, EIP_V1, KEYPAIR_V2, NODE_POOL_V3, ownerAnnotations, ownerLabels, SUBNET_V1, tenantNamespace, VPC_V1 } from "@edgeconnect/provisioning";
import { requestKey } from "@edgeconnect/runtime";
import { NAMESPACES, type InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { decide, orphanKey, owners, workspaces, type AuditInput, type Listed, type Presence } from "./orphans.js";

const GONE = { cluster: "root:org:gone", namespace: "default", name: "my-cluster" };
const LIVE = { cluster: "root:org:live", namespace: "default", name: "my-cluster" };
const NS = tenantNamespace(GONE.cluster).name;

function made(kind: InfraKind, owner: typeof GONE, name: string, extra: Partial<NonNullable<KubeObject["metadata"]>> = {}): Listed {
  const marks = { ...owner, uid: "kc-uid" };
  return { kind, obj: { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name, namespace: tenantNamespace(owner.cluster).name, uid: `${name}-uid`, labels: ownerLabels(marks), annotations: ownerAnnotations(marks), ...extra } } };
}

function namespaceOf(cluster: string, extra: Partial<NonNullable<KubeObject["metadata"]>> = {}): KubeObject {
  const ns = tenantNamespace(cluster);
  return { apiVersion: "v1", kind: "Namespace", metadata: { name: ns.name, uid: `${ns.name}-uid`, labels: ns.labels, annotations: ns.annotations, ...extra } };
}

/** Everything teardown makes for GONE, and a cluster of LIVE's. */
function world(): Listed[] {
  return [
    made(NODE_POOL_V3, GONE, "np"),
    made(CLUSTER_V3, GONE, "cce"),
    made(EIP_V1, GONE, "eip"),
    made(KEYPAIR_V2, GONE, "kp"),
    made(SUBNET_V1, GONE, "subnet"),
    made(VPC_V1, GONE, "vpc"),
    made(CROSSPLANE_PROVIDER_CONFIG, GONE, "pc"),
    made(VPC_V1, LIVE, "live-vpc"),
  ];
}

function input(owned: Listed[], overrides: Partial<AuditInput> = {}): AuditInput {
  return {
    owned,
    namespaces: [namespaceOf(GONE.cluster), namespaceOf(LIVE.cluster)],
    clusters: new Map<string, Presence>([
      [requestKey(GONE), "absent"],
      [requestKey(LIVE), "present"],
    ]),
    workspaces: new Map<string, Presence>([
      [GONE.cluster, "absent"],
      [LIVE.cluster, "present"],
    ]),
    previous: new Set(),
    teardown: false,
    ...overrides,
  };
}

/** Every current orphan as if the previous audit had found it too. */
function seenBefore(owned: Listed[], namespaces: KubeObject[] = [namespaceOf(GONE.cluster)]): Set<string> {
  return new Set([...owned.map(({ kind, obj }) => orphanKey(kind, obj)), ...namespaces.map((ns) => orphanKey(NAMESPACES, ns))]);
}

const names = (decision: ReturnType<typeof decide>): string[] => decision.deletions.map((d) => `${d.kind.kind} ${d.name}`);

describe("orphans", () => {
  it("names each owner and workspace to look up once, and nothing without our marks in its tenant namespace", () => {
    const stray = made(VPC_V1, GONE, "moved");
    const elsewhere: Listed = { kind: stray.kind, obj: { ...stray.obj, metadata: { ...stray.obj.metadata, namespace: "kube-system" } } };
    const unmarked: Listed = { kind: VPC_V1, obj: { metadata: { name: "x", namespace: NS } } };
    expect(owners([...world(), elsewhere, unmarked]).map(requestKey).sort()).toEqual([requestKey(GONE), requestKey(LIVE)].sort());
    expect(workspaces([namespaceOf(GONE.cluster), namespaceOf(GONE.cluster), { metadata: { name: "kcp-000000000000", annotations: { "platform.edgeconnect.eu/logical-cluster": GONE.cluster } } }])).toEqual([GONE.cluster]);
  });

  it("reports what a confirmed-absent cluster or workspace left, by kind, and nothing of a present or unknown one", () => {
    const decision = decide(input(world()));
    expect(decision.orphans.map((o) => o.obj.metadata?.name).sort()).toEqual(["cce", "eip", "kp", NS, "np", "pc", "subnet", "vpc"].sort());
    expect(Object.fromEntries(decision.counts)).toEqual({ NodePoolV3: 1, ClusterV3: 1, KeypairV2: 1, EIPV1: 1, SubnetV1: 1, VpcV1: 1, ProviderConfig: 1, Namespace: 1 });
    expect(decision.deletions).toEqual([]);

    const unsure = decide(input(world(), { clusters: new Map([[requestKey(GONE), "unknown"]]), workspaces: new Map(), teardown: true, previous: seenBefore(world()) }));
    expect(unsure.orphans).toEqual([]);
    expect(unsure.deletions).toEqual([]);
    expect(Object.fromEntries(unsure.counts)).toMatchObject({ VpcV1: 0, Namespace: 0 });
  });

  it("does not count a namespace already being deleted, only what of ours may keep it Terminating", () => {
    const terminating = namespaceOf(GONE.cluster, { deletionTimestamp: "2026-12-02T15:00:00Z" });
    const decision = decide(input(world(), { namespaces: [terminating, namespaceOf(LIVE.cluster)], teardown: true, previous: seenBefore(world(), [terminating]) }));
    expect(decision.orphans.map((o) => o.kind.kind)).not.toContain("Namespace");
    expect(Object.fromEntries(decision.counts)).toMatchObject({ Namespace: 0, VpcV1: 1, NodePoolV3: 1 });
    expect(names(decision).filter((name) => name.startsWith("Namespace"))).toEqual([]);
  });

  it("deletes nothing that the previous audit did not find orphaned too", () => {
    const decision = decide(input(world(), { teardown: true }));
    expect(decision.orphans).toHaveLength(8);
    expect(decision.deletions).toEqual([]);
    expect(decision.pending).toBe(true);
  });

  it("tears down child before parent, each stage only once the one before is gone, by uid", () => {
    let owned = world();
    const step = (): string[] => names(decide(input(owned, { teardown: true, previous: seenBefore(owned) })));
    expect(step()).toEqual(["NodePoolV3 np"]);
    expect(decide(input(owned, { teardown: true, previous: seenBefore(owned) })).deletions[0]).toMatchObject({ namespace: NS, uid: "np-uid" });
    // Asked already and still going: nothing to ask, the next stage waits.
    owned = owned.map((l) => (l.obj.metadata?.name === "np" ? { ...l, obj: { ...l.obj, metadata: { ...l.obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } } } : l));
    expect(step()).toEqual([]);
    owned = owned.filter((l) => l.obj.metadata?.name !== "np");
    expect(step()).toEqual(["ClusterV3 cce"]);
    owned = owned.filter((l) => l.obj.metadata?.name !== "cce");
    expect(step().sort()).toEqual(["EIPV1 eip", "KeypairV2 kp"]);
    owned = owned.filter((l) => !["eip", "kp"].includes(l.obj.metadata?.name ?? ""));
    expect(step()).toEqual(["SubnetV1 subnet"]);
    owned = owned.filter((l) => l.obj.metadata?.name !== "subnet");
    expect(step()).toEqual(["VpcV1 vpc"]);
    owned = owned.filter((l) => l.obj.metadata?.name !== "vpc");
    // The managed resources gone: the ProviderConfig, its credentials and the login key.
    expect(step()).toEqual(["ProviderConfig pc", "Secret pc", `Secret ${clusterObjectNames(GONE.namespace, GONE.name, GONE.cluster).keypair}`]);
    owned = owned.filter((l) => l.obj.metadata?.name !== "pc");
    // Nothing of ours left in the namespace: it goes last.
    expect(step()).toEqual([`Namespace ${NS}`]);
    expect(decide(input(owned, { teardown: true, previous: seenBefore(owned) })).deletions[0]).toMatchObject({ uid: `${NS}-uid` });
  });

  it("holds the next stage for an orphan of the current one found only now", () => {
    const owned = world().filter((l) => l.kind !== NODE_POOL_V3);
    const fresh = made(CLUSTER_V3, GONE, "cce-2");
    const decision = decide(input([...owned, fresh], { teardown: true, previous: seenBefore(owned) }));
    expect(names(decision)).toEqual(["ClusterV3 cce"]);
    const onlyFresh = decide(input([fresh, made(VPC_V1, GONE, "vpc")], { teardown: true, previous: seenBefore([made(VPC_V1, GONE, "vpc")]) }));
    expect(names(onlyFresh)).toEqual([]);
  });

  it("keeps a namespace while anything of ours is in it, and one whose workspace still has a cluster", () => {
    const pcOnly = [made(CROSSPLANE_PROVIDER_CONFIG, GONE, "pc")];
    const decision = decide(input(pcOnly, { teardown: true, previous: seenBefore(pcOnly), clusters: new Map([[requestKey(GONE), "present"]]) }));
    expect(decision.orphans.map((o) => o.kind.kind)).toEqual(["Namespace"]);
    expect(decision.deletions).toEqual([]);
    const emptyButUsed = decide(input([], { teardown: true, previous: seenBefore([]), workspaces: new Map([[GONE.cluster, "present"]]) }));
    expect(emptyButUsed.orphans).toEqual([]);
    expect(emptyButUsed.deletions).toEqual([]);
  });
});
