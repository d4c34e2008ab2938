import { describe, expect, it } from "@jest/globals";
import type { KubernetesCluster } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { SILENT } from "@edgeconnect/runtime";
import {
  ACCOUNT_ANNOTATIONS,
  CLUSTER_V3,
  clusterObjectNames,
  CROSSPLANE_PROVIDER_CONFIG,
  MANAGED_BY_LABEL,
  NODE_POOL_V3,
  ownerAnnotations,
  ownerLabels,
  tenantNamespace,
  VPC_V1,
} from "@edgeconnect/provisioning";
import { NAMESPACES, SECRETS, type InfraKind, type InfrastructureWrites } from "../infrastructure/infrastructure-cluster.js";
import type { Pass, ProvisionContext } from "./provision.js";
import { tenantResources } from "../tenant/tenant-resources.js";
import { StatusReport } from "./status-report.js";
import { cluster, REQUEST, statusHarness } from "./status-report.fixture.js";
import { blockerMessage, MAX_STAGE_POLL_MS, STAGE_POLL_MS, stagePollMs, teardown, teardownBlocker } from "./teardown.js";

const NOW = new Date("2026-03-04T05:06:07Z");
const minutes = (n: number): number => n * 60_000;
const at = (ms: number): string => new Date(ms).toISOString();
/** The tenant side has no kubeconfig Secret: the teardown reads and deletes nothing there. */
const noKubeconfig = async (path: string): Promise<never> => {
  throw new HttpStatusError("GET", path, 404, "");
};

describe("stagePollMs", () => {
  it("starts at STAGE_POLL_MS, doubles as the wait grows, and stops at the cap", () => {
    expect([-5_000, Number.NaN, 0, 1_000, 3_999].map(stagePollMs)).toEqual([STAGE_POLL_MS, STAGE_POLL_MS, STAGE_POLL_MS, STAGE_POLL_MS, STAGE_POLL_MS]);
    expect([4_000, 7_999, 8_000, 20_000, 40_000].map(stagePollMs)).toEqual([4_000, 4_000, 8_000, 16_000, 32_000]);
    expect([64_000, minutes(60), Number.POSITIVE_INFINITY].map(stagePollMs)).toEqual([MAX_STAGE_POLL_MS, MAX_STAGE_POLL_MS, MAX_STAGE_POLL_MS]);
    expect(MAX_STAGE_POLL_MS).toBe(60_000);
  });
});

describe("teardownBlocker", () => {
  const deletedAt = NOW.getTime() - minutes(5);

  it("names Crossplane's failing Synced condition, since the later of the deletion and its transition", () => {
    const pool = {
      metadata: { name: "pool", deletionTimestamp: at(deletedAt), finalizers: ["finalizer.managedresource.crossplane.io"] },
      status: {
        conditions: [
          { type: "Synced", status: "False", reason: "ReconcileError", message: "cannot delete: CCE busy", lastTransitionTime: at(deletedAt + 30_000) },
          { type: "Ready", status: "False", reason: "Deleting", lastTransitionTime: at(deletedAt) },
        ],
      },
    };
    const blocker = teardownBlocker("NodePoolV3", pool, NOW);
    expect(blocker).toEqual({ kind: "NodePoolV3", name: "pool", reason: "ReconcileError", sinceMs: deletedAt + 30_000, detail: "Synced=False ReconcileError: cannot delete: CCE busy" });
    expect(blockerMessage("the node pool", blocker)).toBe("deleting the node pool: waiting (Synced=False ReconcileError: cannot delete: CCE busy) since 2026-03-04T05:01:37Z");
  });

  it("never names the managed resource to the tenant, not even where Crossplane's words repeat its name", () => {
    const name = "default-my-cluster-0a1b2c3d-np-4e5f6a7b";
    const pool = {
      metadata: { name, deletionTimestamp: at(deletedAt) },
      status: { conditions: [{ type: "Synced", status: "False", reason: "ReconcileError", message: `cannot delete NodePoolV3 ${name}: ${name} is busy`, lastTransitionTime: at(deletedAt) }] },
    };
    const message = blockerMessage("the node pool", teardownBlocker("NodePoolV3", pool, NOW));
    expect(message).toBe("deleting the node pool: waiting (Synced=False ReconcileError: cannot delete NodePoolV3 the node pool: the node pool is busy) since 2026-03-04T05:01:07Z");
    expect(message).not.toContain(name);
  });

  it("takes Ready when Synced is fine, and the deletion when the condition is older", () => {
    const vpc = {
      metadata: { name: "vpc", deletionTimestamp: at(deletedAt) },
      status: { conditions: [{ type: "Synced", status: "True", reason: "ReconcileSuccess" }, { type: "Ready", status: "False", reason: "Deleting", lastTransitionTime: at(deletedAt - minutes(60)) }] },
    };
    expect(teardownBlocker("VpcV1", vpc, NOW)).toEqual({ kind: "VpcV1", name: "vpc", reason: "Deleting", sinceMs: deletedAt, detail: "Ready=False Deleting" });
  });

  it("falls back to the finalizers holding it, and to now for an object just asked to go", () => {
    const config = { metadata: { name: "pc", finalizers: ["in-use.crossplane.io"] }, status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: at(deletedAt - minutes(60)) }] } };
    const blocker = teardownBlocker("ProviderConfig", config, NOW);
    expect(blocker).toEqual({ kind: "ProviderConfig", name: "pc", sinceMs: NOW.getTime(), detail: "finalizers: in-use.crossplane.io" });
    expect(blockerMessage("the credentials", blocker)).toBe("deleting the credentials: waiting (finalizers: in-use.crossplane.io) since 2026-03-04T05:06:07Z");
  });

  it("bounds Crossplane's message so that the time still fits the status message", async () => {
    const long = `${"terraform says ".repeat(60)}end`;
    const blocker = teardownBlocker("ClusterV3", { metadata: { name: "cce", deletionTimestamp: at(deletedAt) }, status: { conditions: [{ type: "Synced", status: "False", reason: "ReconcileError", message: long }] } }, NOW);
    expect(blocker.detail?.length).toBeLessThan(330);
    const kc = cluster();
    const { scope, written, recorder } = statusHarness(kc);
    const report = new StatusReport(kc, recorder);
    report.deletingBlocked(blockerMessage("the CCE cluster", blocker));
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    expect(written()?.conditions?.find((c) => c.type === "Ready")?.message).toMatch(/since 2026-03-04T05:01:07Z$/);
  });
});

describe("StatusReport.deletingBlocked", () => {
  it("writes a message safe to show, and keeps the time", async () => {
    const kc = cluster();
    const { scope, written, recorder } = statusHarness(kc);
    const report = new StatusReport(kc, recorder);
    const blocker = teardownBlocker(
      "NodePoolV3",
      {
        metadata: { name: "default-my-cluster-0a1b2c3d-np-4e5f6a7b", deletionTimestamp: "2026-03-04T05:00:00Z" },
        status: { conditions: [{ type: "Synced", status: "False", reason: "ReconcileError", message: "DELETE https://cce.eu-de.otc.t-systems.com/api/v3/projects/0123456789abcdef0123456789abcdef/clusters/x in kcp-0123456789ab: 409", lastTransitionTime: "2026-03-04T05:01:00Z" }] },
      },
      NOW,
    );
    report.deletingBlocked(blockerMessage("the node pool", blocker));
    await report.flush({ scope, signal: new AbortController().signal, request: REQUEST });
    const ready = written()?.conditions?.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "Deleting" });
    expect(ready?.message).toMatch(/^deleting the node pool: waiting \(Synced=False ReconcileError: DELETE \[address\] in \[namespace\]: 409\) since 2026-03-04T05:01:00Z$/);
    expect(written()?.phase).toBe("Deleting");
  });
});

/**
 * The infrastructure cluster's API in memory: what the teardown asks of
 * it, objects with finalizers staying (marked deleted) until a test takes
 * them off, and the deletions in the order asked.
 */
class FakeInfrastructure {
  readonly objects = new Map<string, KubeObject>();
  readonly deletes: string[] = [];
  readonly applies: string[] = [];

  constructor(private readonly clock: () => Date) {}

  put(kind: InfraKind, obj: KubeObject): void {
    this.objects.set(key(kind, obj.metadata?.namespace, obj.metadata?.name ?? ""), obj);
  }

  release(kind: InfraKind, namespace: string | undefined, name: string): void {
    const obj = this.objects.get(key(kind, namespace, name));
    if (obj?.metadata?.deletionTimestamp !== undefined) this.objects.delete(key(kind, namespace, name));
    else if (obj !== undefined) this.objects.set(key(kind, namespace, name), { ...obj, metadata: { ...obj.metadata, finalizers: [] } });
  }

  has(kind: InfraKind, namespace: string | undefined, name: string): boolean {
    return this.objects.has(key(kind, namespace, name));
  }

  writes(): InfrastructureWrites {
    const fake: Pick<InfrastructureWrites, "get" | "getNamespace" | "delete" | "list" | "apply"> = {
      apply: async <T extends KubeObject, R extends KubeObject = T>(kind: InfraKind, obj: T) => {
        this.applies.push(`${kind.kind}/${obj.metadata?.name ?? ""}`);
        this.put(kind, structuredClone(obj));
        return obj as unknown as R;
      },
      get: async <T extends KubeObject>(kind: InfraKind, namespace: string | undefined, name: string) => structuredClone(this.objects.get(key(kind, namespace, name))) as T | undefined,
      getNamespace: async (name: string) => this.objects.get(key(NAMESPACES, undefined, name)),
      delete: async (kind: InfraKind, namespace: string | undefined, name: string) => {
        this.deletes.push(`${kind.kind}/${name}`);
        const obj = this.objects.get(key(kind, namespace, name));
        if (obj === undefined) return true;
        if ((obj.metadata?.finalizers ?? []).length === 0) {
          this.objects.delete(key(kind, namespace, name));
          return true;
        }
        obj.metadata = { ...obj.metadata, deletionTimestamp: obj.metadata?.deletionTimestamp ?? this.clock().toISOString() };
        return false;
      },
      list: async <T extends KubeObject>(kind: InfraKind, namespace: string, labels: Readonly<Record<string, string>>) =>
        [...this.objects.entries()]
          .filter(([k, obj]) => k.startsWith(`${kind.kind}/${namespace}/`) && Object.entries(labels).every(([label, value]) => obj.metadata?.labels?.[label] === value))
          .map(([, obj]) => structuredClone(obj) as T),
    };
    return fake as InfrastructureWrites;
  }
}

function key(kind: InfraKind, namespace: string | undefined, name: string): string {
  return `${kind.kind}/${namespace ?? ""}/${name}`;
}

describe("teardown", () => {
  const request = REQUEST;
  const ns = tenantNamespace(request.cluster);
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  const providerConfig = names.providerConfig(request.namespace, "otc");
  const credentials = names.credentialsSecret(request.namespace, "otc");
  const owner = { ...request, uid: "uid-1" };
  const meta = (name: string, finalizers: string[] = [], of = owner) => ({ name, namespace: ns.name, labels: ownerLabels(of), annotations: ownerAnnotations(of), finalizers });
  const kc = cluster(undefined, { providerRef: { type: "OTC", configRef: { name: "otc" } } } as KubernetesCluster["spec"]);

  /** The tenant's side of the credentials: its ProviderConfig "otc", the Secret it names, and what IAM says of them. */
  interface Tenant {
    readonly credentials: string;
    readonly projectId: string;
  }

  function setup(tenant?: Tenant): {
    fake: FakeInfrastructure;
    run: () => Promise<{ result: { requeueAfterMs: number } | undefined; report: StatusReport; ready: string | undefined }>;
    tick: (ms: number) => void;
    blocked: ({ kind: string } | undefined)[];
  } {
    let now = NOW;
    const fake = new FakeInfrastructure(() => now);
    fake.put(NAMESPACES, { metadata: { name: ns.name, labels: ns.labels, annotations: ns.annotations } });
    fake.put(SECRETS, { metadata: meta(credentials) });
    fake.put(SECRETS, { metadata: meta(names.keypair) });
    fake.put(CROSSPLANE_PROVIDER_CONFIG, { metadata: meta(providerConfig, ["in-use.crossplane.io"]), spec: { credentials: { source: "Secret", secretRef: { name: credentials, key: "credentials" } } } });
    const harness = statusHarness(kc);
    const scope = { ...harness.scope, client: { ...(harness.scope.client as object), get: noKubeconfig, delete: noKubeconfig } } as unknown as Pass["scope"];
    const blocked: ({ kind: string } | undefined)[] = [];
    const teardowns = { teardownBlocked: (_uid: string, blocker: { kind: string } | undefined) => void blocked.push(blocker && { kind: blocker.kind }) };
    const context = { resources: tenantResources({}), now: () => now, teardowns, ...(tenant === undefined ? {} : tenantCredentials(tenant, scope)) } as unknown as ProvisionContext;
    const run = async () => {
      const report = new StatusReport(kc, harness.recorder);
      const result = await teardown(context, { request, scope, signal: new AbortController().signal, writes: fake.writes(), log: SILENT }, kc, report);
      return { result, report, ready: harness.written()?.conditions?.find((c) => c.type === "Ready")?.message };
    };
    return { fake, run, tick: (ms) => (now = new Date(now.getTime() + ms)), blocked };
  }

  /** IAM's verdict on `tenant`, and its objects in `scope`'s listers. */
  function tenantCredentials(tenant: Tenant, scope: Pass["scope"]): Pick<ProvisionContext, "gateway" | "allowedAuthUrls"> {
    const objects: KubeObject[] = [
      { metadata: { name: "otc", namespace: request.namespace }, spec: { credentials: { source: "Secret", secretRef: { name: "otc-credentials" } } } },
      { metadata: { name: "otc-credentials", namespace: request.namespace }, data: { credentials: Buffer.from(tenant.credentials).toString("base64") } },
    ];
    Object.assign(scope, { lister: () => ({ get: (namespace: string, name: string) => objects.find((o) => o.metadata?.namespace === namespace && o.metadata.name === name), list: () => objects }) });
    const gateway = { verify: async () => ({ accepted: true, projectId: tenant.projectId }) };
    return { gateway, allowedAuthUrls: ["https://iam.*.otc.t-systems.com/"] } as unknown as Pick<ProvisionContext, "gateway" | "allowedAuthUrls">;
  }

  it("keeps Crossplane's copy of the credentials the tenant's current ones while it waits, for the account the copy was made for only", async () => {
    const otcCredentials = (password: string): string =>
      ["auth_url=https://iam.eu-de.otc.t-systems.com/v3", "user_name=alice", `password=${password}`, "domain_name=OTC0001", "tenant_name=eu-de", ""].join("\n");
    const copy = (): string | undefined => (fake.objects.get(`Secret/${ns.name}/${credentials}`) as { data?: Record<string, string> } | undefined)?.data?.credentials;
    const account = { [`${ACCOUNT_ANNOTATIONS.projectId}`]: "p-1", [`${ACCOUNT_ANNOTATIONS.region}`]: "eu-de" };
    const pool = names.nodePool("s3.large.2", "eu-de-01");
    const holdPool = (f: FakeInfrastructure): void => f.put(NODE_POOL_V3, { metadata: { ...meta(pool, ["finalizer.managedresource.crossplane.io"]), deletionTimestamp: at(NOW.getTime()) } });

    // Rotated since the last provisioning pass: the copy still holds the old password.
    let { fake, run } = setup({ credentials: otcCredentials("Rotated#Pa55word-1"), projectId: "p-1" });
    fake.put(SECRETS, { metadata: { ...meta(credentials), annotations: { ...meta(credentials).annotations, ...account } }, data: { credentials: "b2xk" } });
    holdPool(fake);
    await run();
    expect(Buffer.from(copy() ?? "", "base64").toString()).toContain("Rotated#Pa55word-1");
    await run();
    expect(fake.applies).toEqual([`Secret/${credentials}`]);

    // Credentials of another project would not delete this one's resources: the copy stays.
    ({ fake, run } = setup({ credentials: otcCredentials("Other#Pa55word-1"), projectId: "p-2" }));
    fake.put(SECRETS, { metadata: { ...meta(credentials), annotations: { ...meta(credentials).annotations, ...account } }, data: { credentials: "b2xk" } });
    holdPool(fake);
    await run();
    expect(copy()).toBe("b2xk");

    // No copy left: none is made.
    ({ fake, run } = setup({ credentials: otcCredentials("Rotated#Pa55word-1"), projectId: "p-1" }));
    fake.objects.delete(`Secret/${ns.name}/${credentials}`);
    holdPool(fake);
    await run();
    expect(fake.applies).toEqual([]);
  });

  it("asks nothing of a parent while a child waits, says which step waits, and polls less the longer it waits", async () => {
    const { fake, run, tick } = setup();
    const pool = names.nodePool("s3.large.2", "eu-de-01");
    fake.put(NODE_POOL_V3, {
      metadata: meta(pool, ["finalizer.managedresource.crossplane.io"]),
      status: { conditions: [{ type: "Synced", status: "False", reason: "ReconcileError", message: "the cluster is busy", lastTransitionTime: at(NOW.getTime() - minutes(60)) }] },
    });
    fake.put(CLUSTER_V3, { metadata: meta(names.cluster) });

    const first = await run();
    expect(first.result).toEqual({ requeueAfterMs: STAGE_POLL_MS });
    expect(fake.deletes).toEqual([`NodePoolV3/${pool}`]);
    expect(first.ready).toBe(`deleting the node pool: waiting (Synced=False ReconcileError: the cluster is busy) since 2026-03-04T05:06:07Z`);

    // From its deletionTimestamp alone, as a restarted controller would see it; no second delete of what is going already.
    tick(20_000);
    expect((await run()).result).toEqual({ requeueAfterMs: 16_000 });
    tick(minutes(10));
    expect((await run()).result).toEqual({ requeueAfterMs: MAX_STAGE_POLL_MS });
    expect(fake.deletes).toEqual([`NodePoolV3/${pool}`]);
    expect(fake.has(NAMESPACES, undefined, ns.name)).toBe(true);

    fake.release(NODE_POOL_V3, ns.name, pool);
    await run();
    expect(fake.deletes.slice(0, 4)).toEqual([`NodePoolV3/${pool}`, `ClusterV3/${names.cluster}`, `Secret/${credentials}`, `ProviderConfig/${providerConfig}`]);
  });

  it("deletes the namespace only once every ProviderConfig of the cluster is gone, each one's credentials first", async () => {
    const { fake, run, blocked } = setup();
    fake.put(VPC_V1, { metadata: meta(names.vpc) });
    // One the cluster no longer names (an older naming, or another tenant ProviderConfig): it goes too.
    fake.put(SECRETS, { metadata: meta("superseded") });
    fake.put(CROSSPLANE_PROVIDER_CONFIG, { metadata: meta("superseded"), spec: { credentials: { source: "Secret", secretRef: { name: "superseded", key: "credentials" } } } });

    const held = await run();
    expect(held.result).toEqual({ requeueAfterMs: STAGE_POLL_MS });
    expect(held.ready).toBe(`deleting the credentials: waiting (finalizers: in-use.crossplane.io) since 2026-03-04T05:06:07Z`);
    expect(fake.has(VPC_V1, ns.name, names.vpc)).toBe(false);
    expect(fake.deletes.indexOf(`Secret/${credentials}`)).toBeLessThan(fake.deletes.indexOf(`ProviderConfig/${providerConfig}`));
    expect(fake.has(SECRETS, ns.name, credentials)).toBe(false);
    expect(fake.has(NAMESPACES, undefined, ns.name)).toBe(true);

    fake.release(CROSSPLANE_PROVIDER_CONFIG, ns.name, providerConfig);
    expect((await run()).result).toBeUndefined();
    for (const name of ["superseded", credentials]) expect(fake.has(SECRETS, ns.name, name)).toBe(false);
    expect(fake.has(CROSSPLANE_PROVIDER_CONFIG, ns.name, "superseded")).toBe(false);
    expect(fake.deletes.slice(-2)).toEqual([`Secret/${names.keypair}`, `Namespace/${ns.name}`]);
    // What the teardown waited on, told for the metric, and then that it waits on nothing.
    expect(blocked).toEqual([{ kind: "ProviderConfig" }, undefined]);
    expect(fake.has(NAMESPACES, undefined, ns.name)).toBe(false);
  });

  it("keeps the namespace while anything of ours is left in it, and leaves other clusters' resources alone", async () => {
    const { fake, run } = setup();
    fake.release(CROSSPLANE_PROVIDER_CONFIG, ns.name, providerConfig);
    const orphan = { ...request, name: "other-cluster", uid: "uid-2" };
    fake.put(VPC_V1, { metadata: meta("other-vpc", [], orphan) });
    fake.put(VPC_V1, { metadata: { name: "not-ours", namespace: ns.name, labels: { [MANAGED_BY_LABEL]: "someone-else" } } });

    expect((await run()).result).toBeUndefined();
    expect(fake.has(VPC_V1, ns.name, "other-vpc")).toBe(true);
    expect(fake.has(NAMESPACES, undefined, ns.name)).toBe(true);
    expect(fake.deletes).not.toContain("VpcV1/other-vpc");

    fake.objects.delete(key(VPC_V1, ns.name, "other-vpc"));
    expect((await run()).result).toBeUndefined();
    // Not ours (another manager's label): it does not hold the namespace.
    expect(fake.has(NAMESPACES, undefined, ns.name)).toBe(false);
  });
});
