/**
 * The OTC teardown against a real kube-apiserver with the provider's CRDs:
 * a node pool created after the watch caches last looked (they are stopped,
 * so they cannot hold it) is still found, deleted, and named in the
 * tenant's status while it waits; nothing of a parent stage is asked before
 * it is gone; the ProviderConfig goes only after every managed resource,
 * and the namespace only once the ProviderConfig is gone too.
 *
 * No Crossplane provider runs here: managed resources without a finalizer
 * go at once. Where the test needs one to stay, a finalizer of its own
 * stands in for Crossplane's (a provider of a suite running in parallel
 * would take its own off), and every managed resource is paused, so that
 * such a provider leaves them alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { KubernetesCluster } from "@edgeconnect/api";
import { getIfPresent, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { SILENT } from "@edgeconnect/runtime";
import {
  CLUSTER_V3,
  clusterObjectNames,
  CROSSPLANE_PROVIDER_CONFIG,
  EIP_V1,
  KEYPAIR_V2,
  MANAGED_RESOURCE_KINDS,
  NODE_POOL_V3,
  ownerAnnotations,
  ownerLabels,
  renderCluster,
  renderCrossplaneProviderConfig,
  renderEip,
  renderKeypair,
  renderNodePool,
  renderSubnet,
  renderVpc,
  SUBNET_V1,
  tenantNamespace,
  VPC_V1,
} from "@edgeconnect/provisioning";
import { applyCrds, connectFromEnv, eventually, holds, parseManifests, REPO_ROOT } from "@edgeconnect/testenv";
import { InfrastructureCluster, kindPath, NAMESPACES, SECRETS, type InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { CACHED_KINDS } from "./observed-infrastructure.js";
import type { Pass, ProvisionContext } from "./provision.js";
import { StatusReport } from "./status-report.js";
import { cluster, statusHarness } from "./status-report.fixture.js";
import { teardown } from "./teardown.js";

const { infra: connection } = connectFromEnv();
const describeInfra = "skipped" in connection ? describe.skip : describe;
if ("skipped" in connection) console.warn(`teardown integration test skipped: ${connection.skipped}`);

const CRDS = join(REPO_ROOT, "scripts", "binaries", "crossplane-otc-simulator", "crds");
/** Stands in for Crossplane's finalizers (the managed resource's, in-use.crossplane.io): only this test takes it off. */
const HOLD = "teardown.test.edgeconnect.eu/hold";
const PAUSED = { "crossplane.io/paused": "true" };
const MERGE_PATCH = "application/merge-patch+json";
/** The tenant side has no kubeconfig Secret: the teardown reads and deletes nothing there. */
const noKubeconfig = async (path: string): Promise<never> => {
  throw new HttpStatusError("GET", path, 404, "");
};

describeInfra("OTC teardown on a real kube-apiserver", () => {
  const kube = connection as RestClient;
  const run = randomBytes(3).toString("hex");
  const request = { cluster: `root:teardown-${run}`, namespace: "default", name: "my-cluster" };
  const namespace = tenantNamespace(request.cluster);
  const ns = namespace.name;
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  const configName = "otc";
  const providerConfig = names.providerConfig(request.namespace, configName);
  const credentialsSecret = names.credentialsSecret(request.namespace, configName);
  const owner = { ...request, uid: `uid-${run}` };
  const meta = (name: string, annotations: Record<string, string> = {}) => ({ name, namespace: ns, labels: ownerLabels(owner), annotations: { ...ownerAnnotations(owner), ...annotations } });
  // The render functions keep no finalizers: added to what they render.
  const held = <T extends { metadata: object }>(obj: T): T => ({ ...obj, metadata: { ...obj.metadata, finalizers: [HOLD] } });
  const common = { providerConfigName: providerConfig, region: "eu-de" };
  const pool = (flavor: string, zone: string) =>
    renderNodePool({
      providerConfigName: providerConfig,
      metadata: meta(names.nodePool(flavor, zone), PAUSED),
      name: names.otc.nodePool(flavor, zone),
      clusterId: "cce-id",
      keypairName: names.otc.keypair,
      flavor,
      availabilityZone: zone,
      nodeCount: 1,
      nodeDiskGiB: 100,
    });
  const uncachedPool = names.nodePool("s3.xlarge.4", "eu-de-02");
  const infra = new InfrastructureCluster(kube);

  const path = (kind: InfraKind, name?: string): string => kindPath(kind, ns, name);
  const read = async (kind: InfraKind, name: string): Promise<KubeObject | undefined> => getIfPresent<KubeObject>(kube, path(kind, name));
  const release = async (kind: InfraKind, name: string): Promise<void> => {
    if ((await read(kind, name)) === undefined) return;
    await kube.request("PATCH", path(kind, name), { body: { metadata: { finalizers: null } }, contentType: MERGE_PATCH });
  };
  const namespaceDeleting = async (): Promise<boolean> => {
    try {
      return (await kube.get<KubeObject>(kindPath(NAMESPACES, undefined, ns))).metadata?.deletionTimestamp !== undefined;
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return true;
      throw err;
    }
  };

  beforeAll(async () => {
    const crds = readdirSync(CRDS)
      .filter((file) => file.endsWith(".yaml"))
      .flatMap((file) => parseManifests(readFileSync(join(CRDS, file), "utf8")));
    await applyCrds(kube, crds, { timeoutMs: 120_000 });
    await kube.create(kindPath(NAMESPACES), { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: namespace.labels, annotations: namespace.annotations } });

    const managed: [InfraKind, KubeObject][] = [
      [VPC_V1, renderVpc({ ...common, metadata: meta(names.vpc, PAUSED), name: names.otc.vpc })],
      [SUBNET_V1, renderSubnet({ ...common, metadata: meta(names.subnet, PAUSED), name: names.otc.subnet, vpcId: "vpc-id" })],
      [EIP_V1, renderEip({ ...common, metadata: meta(names.eip, PAUSED), name: names.otc.eip })],
      [KEYPAIR_V2, renderKeypair({ ...common, metadata: meta(names.keypair, PAUSED), name: names.otc.keypair, publicKey: "ssh-ed25519 AAAA test" })],
      [CLUSTER_V3, renderCluster({ ...common, metadata: meta(names.cluster, PAUSED), name: names.otc.cluster, vpcId: "vpc-id", subnetNetworkId: "net-id", eipAddress: "198.51.100.7", kubernetesVersion: "v1.31" })],
      [NODE_POOL_V3, pool("s3.large.2", "eu-de-01")],
    ];
    for (const [kind, obj] of managed) await kube.create(path(kind), obj);
    await kube.create(path(CROSSPLANE_PROVIDER_CONFIG), held(renderCrossplaneProviderConfig(meta(providerConfig), credentialsSecret)));
    for (const name of [credentialsSecret, names.keypair]) await kube.create(path(SECRETS), { apiVersion: "v1", kind: "Secret", metadata: meta(name), data: { key: "dGVzdA==" } });

    for (const kind of CACHED_KINDS) infra.watch(kind, {});
    const sources = Object.values(infra.sources());
    for (const source of sources) void source.start();
    await eventually(
      async () => {
        const cached = MANAGED_RESOURCE_KINDS.reduce((count, kind) => count + infra.list(kind, ns).length, 0);
        return holds(sources.every((source) => source.hasSynced) && cached === managed.length, `${cached} of ${managed.length} managed resources cached`);
      },
      { timeoutMs: 30_000, description: "the caches hold the managed resources" },
    );
    // Stopped, the caches keep what they hold and learn nothing more: the node pool made next cannot be in them.
    await Promise.all(sources.map(async (source) => source.stop()));
    await kube.create(path(NODE_POOL_V3), held(pool("s3.xlarge.4", "eu-de-02")));
    await kube.request("PATCH", `${path(NODE_POOL_V3, uncachedPool)}/status`, {
      contentType: MERGE_PATCH,
      body: {
        status: {
          conditions: [
            { type: "Synced", status: "False", reason: "ReconcileError", message: "cannot delete node pool: CCE.01400001 the cluster is busy", lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") },
            { type: "Ready", status: "True", reason: "Available", lastTransitionTime: "2026-01-01T00:00:00Z" },
          ],
        },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await release(NODE_POOL_V3, uncachedPool).catch(() => undefined);
    await release(CROSSPLANE_PROVIDER_CONFIG, providerConfig).catch(() => undefined);
    await kube.delete(kindPath(NAMESPACES, undefined, ns)).catch(() => undefined);
    kube.close();
  });

  it("deletes what the caches never saw, child before parent, and releases the namespace only after everything is gone", async () => {
    expect(infra.list(NODE_POOL_V3, ns).map((obj) => obj.metadata?.name)).not.toContain(uncachedPool);

    const kc = cluster(undefined, { providerRef: { type: "OTC", configRef: { name: configName } } } as KubernetesCluster["spec"]);
    const harness = statusHarness(kc);
    // The tenant side: the kubeconfig Secret is deleted there, the status written there; no other cluster of the tenant.
    const scope = { ...harness.scope, client: { ...(harness.scope.client as object), get: noKubeconfig, delete: noKubeconfig } } as unknown as Pass["scope"];
    const context = { infra, resources: {}, now: () => new Date() } as unknown as ProvisionContext;
    const pass = (): { pass: Pass; report: StatusReport } => {
      const signal = AbortSignal.timeout(60_000);
      return { pass: { request, scope, signal, writes: infra.bound(signal), log: SILENT }, report: new StatusReport(kc, harness.recorder) };
    };
    const ready = (): string | undefined => harness.written()?.conditions?.find((c) => c.type === "Ready")?.message;

    // The uncached node pool holds the first stage: the cached one is gone, nothing of the later stages is asked yet.
    const first = pass();
    expect(await teardown(context, first.pass, kc, first.report)).toEqual({ requeueAfterMs: 2_000 });
    expect((await read(NODE_POOL_V3, uncachedPool))?.metadata?.deletionTimestamp).toBeDefined();
    expect(await read(NODE_POOL_V3, names.nodePool("s3.large.2", "eu-de-01"))).toBeUndefined();
    expect((await read(CLUSTER_V3, names.cluster))?.metadata?.deletionTimestamp).toBeUndefined();
    expect(ready()).toMatch(
      new RegExp(`^deleting the node pool: waiting \\(Synced=False ReconcileError: cannot delete node pool: CCE\\.01400001 the cluster is busy\\) since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`),
    );
    expect(harness.written()?.phase).toBe("Deleting");
    expect(await namespaceDeleting()).toBe(false);

    // The managed resources go; the ProviderConfig, still in use, holds the namespace.
    await release(NODE_POOL_V3, uncachedPool);
    const second = pass();
    expect(await teardown(context, second.pass, kc, second.report)).toEqual({ requeueAfterMs: 2_000 });
    for (const kind of MANAGED_RESOURCE_KINDS) expect((await kube.list(path(kind))).items).toEqual([]);
    expect((await read(CROSSPLANE_PROVIDER_CONFIG, providerConfig))?.metadata?.deletionTimestamp).toBeDefined();
    expect(ready()).toMatch(new RegExp(`^deleting the credentials: waiting \\(finalizers: ${HOLD.replace(/\./g, "\\.")}\\) since `));
    // Its credentials went first: nothing reads them once the managed resources are gone.
    expect(await read(SECRETS, credentialsSecret)).toBeUndefined();
    expect(await namespaceDeleting()).toBe(false);

    // Once it is gone: the namespace, and the finalizer may go.
    await release(CROSSPLANE_PROVIDER_CONFIG, providerConfig);
    const last = pass();
    expect(await teardown(context, last.pass, kc, last.report)).toBeUndefined();
    expect(await read(SECRETS, credentialsSecret)).toBeUndefined();
    expect(await read(SECRETS, names.keypair)).toBeUndefined();
    expect(await namespaceDeleting()).toBe(true);
  }, 120_000);
});
