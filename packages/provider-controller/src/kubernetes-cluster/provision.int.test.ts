/**
 * The OTC provisioning and teardown passes against real servers, without
 * kcp: the e2e infrastructure kube-apiserver (with kube-controller-manager,
 * so namespaces really go), the Crossplane OTC provider simulator as its own
 * process, the OTC simulator, and the real OtcGateway. provision() and
 * teardown() are called in a loop as the KubernetesClusterReconciler calls
 * them (a fresh StatusReport on the latest status each pass, flushed after a
 * provisioning pass, interrupted and flushed when a pass throws), woken by the
 * infrastructure caches' events or after a second.
 *
 * The kcp side is an in-memory tenant: the listers serve its KubernetesCluster,
 * ProviderConfig, MachineCapabilities and labelled Secrets, its client takes
 * the status writes and the kubeconfig Secret's create/apply/delete.
 *
 * CCE's clustercert needs a workload cluster in the OTC simulator: it is given
 * one that nothing connects to (as in crossplane-otc-simulator.e2e.test.ts), so
 * the kubeconfig is issued and handed back for real, but not used here; the
 * e2e suite reaches a workload kube-apiserver with it.
 *
 * Only the provisioning scenario's namespace is watched by the Crossplane
 * simulator (`--namespace`); the other scenarios must create nothing it could see.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes, randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parse } from "yaml";
import { SECRET_LABEL, type KubernetesCluster, type KubernetesClusterStatus, type MachineCapabilities, type ProviderConfig, type ProviderMachineFlavor } from "@edgeconnect/api";
import { getIfPresent, HttpStatusError, type KubeObject, type RequestOptionsLite, type RestClient } from "@edgeconnect/kcp-ts";
import { createCertificateAuthority, startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";
import {
  ACCOUNT_ANNOTATIONS,
  clusterObjectNames,
  CONDITION,
  CROSSPLANE_PROVIDER_CONFIG,
  LOGICAL_CLUSTER_ANNOTATION,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MANAGED_RESOURCE_KINDS,
  namespaceOwner,
  ownerAnnotations,
  ownerLabels,
  REASON,
  tenantNamespace,
} from "@edgeconnect/provisioning";
import { EventRecorder, SILENT, tenantMessage, type ClusterScope, type DeepReadonly, type EventClient, type Lister, type WatchedResource } from "@edgeconnect/runtime";
import { connectFromEnv, CrossplaneOtcSimulator, E2E_LOG_DIR_ENV_VAR, Reaper, resolveBinary } from "@edgeconnect/testenv";
import { InfrastructureCluster, kindPath, NAMESPACES, SECRETS, type InfraKind, type Namespace } from "../infrastructure/infrastructure-cluster.js";
import type { KubernetesClusterReconcilerOptions } from "./kubernetes-cluster-reconciler.js";
import { OtcGateway } from "../otc/otc-gateway.js";
import { tenantResources, type Secret, type TenantResources } from "../tenant/tenant-resources.js";
import { CACHED_KINDS } from "./observed-infrastructure.js";
import { provision, type Pass } from "./provision.js";
import { StatusReport } from "./status-report.js";
import { SupersededProviderConfigs } from "./superseded-provider-configs.js";
import { teardown } from "./teardown.js";

const { infra: connection, state } = connectFromEnv();
const describeInfra = "skipped" in connection ? describe.skip : describe;
if ("skipped" in connection) console.warn(`provision integration test skipped: ${connection.skipped}`);

// Credential literals, so that the run's credential guard looks for them in every log, Event and status.
const ACCOUNT = { domainName: "OTC-EU-DE-00000000001000042", userName: "provision-int-admin", password: "provision-int-password-Tq8zW3", projectName: "eu-de_provisionint" };
const REFUSED_ACCOUNT = { domainName: "OTC-EU-DE-00000000001000043", userName: "provision-int-other", password: "provision-int-password-Gm5rK7", projectName: "eu-de_provisionother" };
const PROJECT_ID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
const REFUSED_PROJECT_ID = "1a2b3c4d5e6f708192a3b4c5d6e7f809";
/** What clustercert's kubeconfig names as the server; nothing connects to it. */
const WORKLOAD_URL = "https://127.0.0.1:6443";
const FLAVORS: ProviderMachineFlavor[] = [
  { name: "otc-s3-large-2", flavor: "s3.large.2", vCPUCount: 2, memorySize: "4Gi" },
  { name: "otc-c4-xlarge-2", flavor: "c4.xlarge.2", vCPUCount: 4, memorySize: "8Gi" },
  { name: "otc-s3-xlarge-4", flavor: "s3.xlarge.4", vCPUCount: 4, memorySize: "16Gi" },
].map(({ name, flavor, vCPUCount, memorySize }) => ({
  apiVersion: "platform.edgeconnect.eu/v1alpha1",
  kind: "ProviderMachineFlavor",
  metadata: { name },
  spec: { available: true, providerRef: { type: "OTC" }, flavor, capabilities: { vCPUCount, memorySize }, availableZones: ["eu-de-01", "eu-de-02", "eu-de-03"] },
}));
const EMPTY_PROJECT = { vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 };

type Cluster = KubernetesCluster & KubeObject;
type Account = typeof ACCOUNT;
interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}
type Conditioned = KubeObject & { status?: { conditions?: Condition[] } };

/** The seed's password credentials file. */
function passwordCredentials(authUrl: string, account: Account, password = account.password): string {
  return [`auth_url=${authUrl}/v3`, `user_name=${account.userName}`, `password=${password}`, `domain_name=${account.domainName}`, `tenant_name=${account.projectName}`, ""].join("\n");
}

/** The kcp side of one tenant workspace, in memory: what its listers show and what its client was asked to write. */
interface Tenant {
  readonly request: { readonly cluster: string; readonly namespace: string; readonly name: string };
  readonly scope: ClusterScope;
  /** The KubernetesCluster as the tenant's API server holds it now: what the next pass reads. */
  cluster(): Cluster;
  condition(type: string): Condition | undefined;
  /** The tenant's Secrets in the cluster's namespace, by name. */
  readonly secrets: Map<string, Secret>;
  /** Every write its client was asked for, `METHOD path`. */
  readonly writes: string[];
  /** As kcp marks a KubernetesCluster deleted that carries the controller's finalizer. */
  markDeleted(): void;
}

function fakeTenant(resources: TenantResources, logicalCluster: string, credentials: string): Tenant {
  const request = { cluster: logicalCluster, namespace: "default", name: "my-cluster" };
  let version = 1;
  const next = (): string => String(++version);
  let kc: Cluster = {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "KubernetesCluster",
    metadata: {
      name: request.name,
      namespace: request.namespace,
      uid: randomUUID(),
      generation: 1,
      resourceVersion: "1",
      creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      annotations: { "kcp.io/cluster": logicalCluster },
    },
    spec: {
      machineCapabilitiesRef: { name: "workers" },
      nodeCount: 1,
      nodeDiskSize: "100Gi",
      providerRef: { type: "OTC", configRef: { name: "otc" } },
      kubernetes: { version: "v1.31" },
      nodeAvailableZone: "random",
    },
  };
  const providerConfig: ProviderConfig & KubeObject = {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "ProviderConfig",
    metadata: { name: "otc", namespace: request.namespace },
    spec: { credentials: { source: "Secret", secretRef: { name: "otc-credentials", key: "credentials" } } },
  };
  const capabilities: MachineCapabilities & KubeObject = {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "MachineCapabilities",
    metadata: { name: "workers", namespace: request.namespace },
    spec: { vCPUCount: 4, memorySize: "8Gi" },
  };
  const secrets = new Map<string, Secret>([
    [
      "otc-credentials",
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "otc-credentials", namespace: request.namespace, uid: randomUUID(), resourceVersion: "1", labels: { [SECRET_LABEL.key]: SECRET_LABEL.value } },
        data: { credentials: Buffer.from(credentials).toString("base64") },
      },
    ],
  ]);
  const writes: string[] = [];
  const clusterPath = `/apis/platform.edgeconnect.eu/v1alpha1/namespaces/${request.namespace}/kubernetesclusters/${request.name}`;
  const secretPath = /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/;
  const fail = (method: string, path: string, status: number): never => {
    throw new HttpStatusError(method, path, status, JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: status === 404 ? "NotFound" : "Conflict", code: status }));
  };

  const serve = async <T>(method: string, path: string, options: RequestOptionsLite = {}): Promise<T> => {
    if (method !== "GET") writes.push(`${method} ${path}`);
    const body = options.body as KubeObject & { status?: KubernetesClusterStatus; preconditions?: { uid?: string } };
    if (path === `${clusterPath}/status` && method === "PATCH") {
      const guard = body.metadata?.resourceVersion;
      if (guard !== undefined && guard !== kc.metadata?.resourceVersion) fail(method, path, 409);
      kc = { ...kc, metadata: { ...kc.metadata, resourceVersion: next() }, ...(body.status === undefined ? {} : { status: body.status }) };
      return structuredClone(kc) as T;
    }
    if (path === clusterPath && method === "GET") return structuredClone(kc) as T;
    const match = secretPath.exec(path);
    if (match === null || match[1] !== request.namespace) throw new Error(`the fake tenant does not serve ${method} ${path}`);
    const name = match[2];
    const existing = name === undefined ? undefined : secrets.get(name);
    const store = (secret: Secret, uid: string): T => {
      const stored = { ...structuredClone(secret), metadata: { ...structuredClone(secret.metadata), namespace: request.namespace, uid, resourceVersion: next() } };
      secrets.set(stored.metadata.name ?? "", stored);
      return structuredClone(stored) as T;
    };
    switch (method) {
      case "GET":
        return existing === undefined ? fail(method, path, 404) : (structuredClone(existing) as T);
      case "POST":
        if (name !== undefined || secrets.has(body.metadata?.name ?? "")) return fail(method, path, 409);
        return store(body, randomUUID());
      case "PATCH": {
        const guard = body.metadata?.resourceVersion;
        if (name === undefined || (guard !== undefined && guard !== existing?.metadata?.resourceVersion)) return fail(method, path, 409);
        return store(body, existing?.metadata?.uid ?? randomUUID());
      }
      case "DELETE":
        if (existing === undefined || name === undefined) return fail(method, path, 404);
        if (body?.preconditions?.uid !== undefined && body.preconditions.uid !== existing.metadata?.uid) return fail(method, path, 409);
        secrets.delete(name);
        return {} as T;
      default:
        throw new Error(`the fake tenant does not serve ${method} ${path}`);
    }
  };
  const client = {
    request: serve,
    get: <T>(path: string, options?: RequestOptionsLite) => serve<T>("GET", path, options),
    create: <T>(path: string, body: unknown, options: RequestOptionsLite = {}) => serve<T>("POST", path, { ...options, body }),
    apply: <T>(path: string, body: unknown, _fieldManager: string, options: RequestOptionsLite = {}) => serve<T>("PATCH", path, { ...options, body }),
    delete: async (path: string, options?: RequestOptionsLite) => {
      await serve("DELETE", path, options);
    },
  };
  // The Secrets claim shows labelled Secrets only.
  const objects = (resource: WatchedResource): KubeObject[] => {
    if (resource === resources.clusters) return [kc];
    if (resource === resources.providerConfigs) return [providerConfig];
    if (resource === resources.capabilities) return [capabilities];
    if (resource === resources.secrets) return [...secrets.values()].filter((secret) => secret.metadata?.labels?.[SECRET_LABEL.key] === SECRET_LABEL.value);
    throw new Error(`the fake tenant does not list ${resource.name}`);
  };
  const lister = <T extends KubeObject>(resource: WatchedResource<T>): Lister<T> =>
    ({
      get: (namespace: string, name: string) => objects(resource as WatchedResource).find((obj) => obj.metadata?.namespace === namespace && obj.metadata?.name === name),
      list: (namespace?: string) => objects(resource as WatchedResource).filter((obj) => namespace === undefined || obj.metadata?.namespace === namespace),
    }) as Lister<T>;
  return {
    request,
    scope: { cluster: logicalCluster, client: client as unknown as RestClient, settlingClient: () => client as unknown as RestClient, lister },
    cluster: () => structuredClone(kc),
    condition: (type) => kc.status?.conditions?.find((c) => c.type === type),
    secrets,
    writes,
    markDeleted: () => {
      kc = { ...kc, metadata: { ...kc.metadata, deletionTimestamp: new Date().toISOString(), resourceVersion: next() } };
    },
  };
}

/** `client` and every client made from it (`withSignal` & co.), recording the path of each server-side apply in `paths`. */
function countingApplies(client: RestClient, paths: string[]): RestClient {
  return new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "apply") {
        return (path: string, ...rest: unknown[]) => {
          paths.push(path);
          return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
        };
      }
      if (typeof property === "string" && property.startsWith("with")) {
        return (...args: unknown[]) => countingApplies((value as (...args: unknown[]) => RestClient).apply(target, args), paths);
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

describeInfra("OTC provisioning on real servers, without kcp", () => {
  const kube = connection as RestClient;
  const kubeconfig = "skipped" in state.infra ? "" : state.infra.kubeconfig;
  const run = randomBytes(3).toString("hex");
  /** The provisioning scenario's logical cluster: the only namespace the Crossplane simulator acts on. */
  const provisioned = `root:provision-${run}`;
  const provisionedNamespace = tenantNamespace(provisioned).name;
  const resources = tenantResources({});
  const events: { reason?: string; type?: string; message?: string; note?: string }[] = [];
  const eventClient: EventClient = {
    create: async <T>(_path: string, body: unknown) => {
      events.push(body as (typeof events)[number]);
      return body as T;
    },
    request: async <T>() => undefined as T,
  };
  const recorder = new EventRecorder({ client: eventClient, component: "provider-controller", audience: "tenant" });
  const foreignNamespaces: string[] = [];
  let reaper: Reaper;
  let sim: OtcSimulator;
  let crossplane: CrossplaneOtcSimulator | undefined;
  let gateway: OtcGateway;
  let infra: InfrastructureCluster;
  /** The paths of the server-side applies sent to the infrastructure cluster. */
  const applied: string[] = [];
  let context: KubernetesClusterReconcilerOptions;
  let sources: { start(): Promise<void>; stop(): Promise<void> }[] = [];

  // A cache event in the provisioning namespace wakes the loop at once; otherwise it looks again after a second.
  let dirty = false;
  let wake: (() => void) | undefined;
  const changed = (obj: DeepReadonly<KubeObject>): void => {
    if (obj.metadata?.namespace !== provisionedNamespace) return;
    dirty = true;
    wake?.();
  };
  const nap = async (): Promise<void> => {
    await sleep(200);
    if (!dirty) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    wake = undefined;
    dirty = false;
  };

  const passFor = (tenant: Tenant): Pass => {
    const signal = AbortSignal.timeout(60_000);
    return { request: tenant.request, scope: tenant.scope, signal, writes: infra.bound(signal), log: SILENT };
  };
  /** One provisioning pass as the reconciler runs it; a thrown error is reported to the tenant and retried. */
  const provisionPass = async (tenant: Tenant): Promise<{ requeueAfterMs: number } | Error> => {
    const kc = tenant.cluster();
    const pass = passFor(tenant);
    const report = new StatusReport(kc, recorder);
    try {
      const result = await provision(context, pass, kc, report);
      await report.flush(pass);
      return result;
    } catch (err) {
      report.interrupted(tenantMessage(err));
      await report.flush(pass).catch(() => undefined);
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  /** One teardown pass as the reconciler runs it: the deleted cluster's status is written by teardown itself. */
  const teardownPass = async (tenant: Tenant): Promise<{ requeueAfterMs: number } | undefined | Error> => {
    const kc = tenant.cluster();
    try {
      return await teardown(context, passFor(tenant), kc, new StatusReport(kc, recorder));
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  const infraGet = <T extends KubeObject>(kind: InfraKind, namespace: string | undefined, name: string): Promise<T | undefined> => getIfPresent<T>(kube, kindPath(kind, namespace, name));
  const infraList = async (kind: InfraKind, namespace: string): Promise<Conditioned[]> => (await kube.list<Conditioned>(kindPath(kind, namespace))).items;
  const conditionOf = (obj: Conditioned | undefined, type: string): string => {
    const found = obj?.status?.conditions?.find((c) => c.type === type);
    return `${found?.status ?? "-"}/${found?.reason ?? "-"}`;
  };
  const conditions = (tenant: Tenant): string =>
    (tenant.cluster().status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`).join("\n  ");

  beforeAll(async () => {
    reaper = Reaper.start();
    const account = (user: Account) => ({ domainName: user.domainName, userName: user.userName, password: user.password });
    sim = await startOtcSimulator({
      credentials: [],
      users: [account(ACCOUNT), account(REFUSED_ACCOUNT)],
      projects: [
        { id: PROJECT_ID, name: ACCOUNT.projectName },
        { id: REFUSED_PROJECT_ID, name: REFUSED_ACCOUNT.projectName },
      ],
      region: "eu-de",
      workloadCluster: { url: WORKLOAD_URL, servingCaPem: createCertificateAuthority("provision-int-serving").certPem, clientCa: createCertificateAuthority("provision-int-client") },
    });
    crossplane = await CrossplaneOtcSimulator.start({
      binary: (await resolveBinary("crossplane-otc-simulator")).path,
      kubeconfig,
      logFile: join(process.env[E2E_LOG_DIR_ENV_VAR] ?? tmpdir(), `crossplane-otc-simulator-provision-int-${run}.log`),
      poll: "500ms",
      asyncPollInterval: "100ms",
      namespace: provisionedNamespace,
      reaper,
    });

    // As provider-manager.ts wires it.
    gateway = new OtcGateway({ concurrency: 2, timeoutMs: 20_000, verdictTtlMs: 600_000 });
    infra = new InfrastructureCluster(countingApplies(kube, applied));
    for (const kind of CACHED_KINDS) infra.watch(kind, { added: changed, updated: (_old, current) => changed(current), deleted: changed });
    context = {
      resources,
      gateway,
      allowedAuthUrls: [`${sim.url}/`],
      infra,
      flavors: () => FLAVORS,
      kubeconfigValidityDays: 365,
      now: () => new Date(),
      recorder,
      supersededProviderConfigs: new SupersededProviderConfigs(),
      maxClustersPerWorkspace: 10,
    };
    sources = Object.values(infra.sources());
    for (const source of sources) void source.start();
    const deadline = Date.now() + 60_000;
    while (!infra.availability().available) {
      if (Date.now() > deadline) throw new Error("the infrastructure caches did not sync within 60 s");
      await sleep(100);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(sources.map(async (source) => source.stop()));
    await crossplane?.stop();
    gateway?.close();
    await sim?.close();
    await recorder.flush();
    for (const name of [provisionedNamespace, ...foreignNamespaces]) await kube.delete(kindPath(NAMESPACES, undefined, name)).catch(() => undefined);
    await reaper?.close();
    kube.close();
  });

  // Purpose: the whole life of a cluster through the real Crossplane and OTC simulators — every step of provision()
  // until Ready, what it leaves on the infrastructure cluster and in OTC, then teardown() until nothing is left.
  it("provisions a cluster to Ready through Crossplane and OTC, then tears everything down again", async () => {
    const tenant = fakeTenant(resources, provisioned, passwordCredentials(sim.url, ACCOUNT));
    const { request } = tenant;
    const owner = { ...request, uid: tenant.cluster().metadata?.uid ?? "" };
    const names = clusterObjectNames(request.namespace, request.name, request.cluster);
    const errors: string[] = [];

    // Every condition message the tenant was shown, for the check that none names infrastructure.
    const shown = new Set<string>();
    const remember = (): void => {
      for (const condition of tenant.cluster().status?.conditions ?? []) shown.add(condition.message);
    };

    // Provisioning: pass after pass until the tenant reads Ready.
    const provisionStarted = Date.now();
    let passes = 0;
    const provisionDeadline = Date.now() + 120_000;
    while (tenant.condition(CONDITION.Ready)?.status !== "True") {
      if (Date.now() > provisionDeadline) throw new Error(`not Ready after ${passes} passes (errors: ${errors.join("; ") || "none"}):\n  ${conditions(tenant)}`);
      const result = await provisionPass(tenant);
      passes++;
      remember();
      if (result instanceof Error) errors.push(result.message);
      if (tenant.condition(CONDITION.Ready)?.status !== "True") await nap();
    }
    const provisionMs = Date.now() - provisionStarted;
    const status = tenant.cluster().status;
    expect(status?.phase).toBe("Ready");
    for (const type of [CONDITION.CredentialsValid, CONDITION.FlavorMatched, CONDITION.NetworkReady, CONDITION.ControlPlaneReady, CONDITION.NodePoolReady, CONDITION.KubeconfigReady]) {
      expect(`${type}=${tenant.condition(type)?.status}`).toBe(`${type}=True`);
    }
    expect(status?.flavor).toMatchObject({ name: "c4.xlarge.2", source: "Matched" });
    await recorder.flush();
    expect(events.map((event) => event.reason)).toContain("ClusterReady");

    // The infrastructure cluster: the tenant's namespace, claimed for it.
    const namespace = await infraGet<Namespace>(NAMESPACES, undefined, provisionedNamespace);
    expect(namespace).toBeDefined();
    expect(namespaceOwner(namespace as Namespace, provisioned)).toBe("ours");
    expect(namespace?.metadata?.labels?.[MANAGED_BY_LABEL]).toBe(MANAGED_BY);
    // Every object made for the cluster: owner labels and annotations, and the account it was made in.
    const account = {
      [ACCOUNT_ANNOTATIONS.projectId]: PROJECT_ID,
      [ACCOUNT_ANNOTATIONS.projectName]: ACCOUNT.projectName,
      [ACCOUNT_ANNOTATIONS.region]: "eu-de",
      [ACCOUNT_ANNOTATIONS.domainName]: ACCOUNT.domainName,
    };
    const marked = (obj: KubeObject | undefined): void => {
      expect(obj?.metadata?.labels).toMatchObject(ownerLabels(owner));
      expect(obj?.metadata?.annotations).toMatchObject({ ...ownerAnnotations(owner), ...account });
    };
    const pcName = names.providerConfig(request.namespace, "otc");
    const providerConfig = await infraGet<KubeObject & { spec?: { credentials?: { secretRef?: { name?: string } } } }>(CROSSPLANE_PROVIDER_CONFIG, provisionedNamespace, pcName);
    marked(providerConfig);
    expect(providerConfig?.spec?.credentials?.secretRef?.name).toBe(names.credentialsSecret(request.namespace, "otc"));
    marked(await infraGet(SECRETS, provisionedNamespace, names.credentialsSecret(request.namespace, "otc")));
    // The node login key, kept beside the managed resources so that a restart reuses it.
    const loginKey = await infraGet<Secret>(SECRETS, provisionedNamespace, names.keypair);
    marked(loginKey);
    expect(Object.keys(loginKey?.data ?? {}).sort()).toEqual(["ssh-privatekey", "ssh-publickey"]);
    const pool = names.nodePool(status?.flavor?.name ?? "", status?.flavor?.zone ?? "");
    const expectedNames = { NodePoolV3: pool, ClusterV3: names.cluster, KeypairV2: names.keypair, EIPV1: names.eip, SubnetV1: names.subnet, VpcV1: names.vpc } as Record<string, string>;
    for (const kind of MANAGED_RESOURCE_KINDS) {
      const items = await infraList(kind, provisionedNamespace);
      expect(`${kind.kind}: ${items.map((obj) => `${obj.metadata?.name} Synced=${conditionOf(obj, "Synced")} Ready=${conditionOf(obj, "Ready")}`).join(", ")}`).toBe(
        `${kind.kind}: ${expectedNames[kind.kind]} Synced=True/ReconcileSuccess Ready=True/Available`,
      );
      for (const obj of items) {
        marked(obj);
        expect((obj as { spec?: { providerConfigRef?: { name?: string } } }).spec?.providerConfigRef?.name).toBe(pcName);
      }
    }

    // OTC: the cluster's objects, in the tenant's project, under the names derived for it.
    const inProject = <T extends { readonly projectId: string }>(items: Iterable<T>): T[] => [...items].filter((item) => item.projectId === PROJECT_ID);
    expect(sim.liveObjects(PROJECT_ID)).toMatchObject({ vpcs: 1, subnets: 1, eips: 1, keypairs: 1, cceClusters: 1, nodePools: 1 });
    expect(inProject(sim.state.vpcs.values()).map((vpc) => vpc.name)).toEqual([names.otc.vpc]);
    expect(inProject(sim.state.subnets).map((subnet) => subnet.name)).toEqual([names.otc.subnet]);
    expect(inProject(sim.state.keypairs.values()).map((keypair) => keypair.name)).toEqual([names.otc.keypair]);
    const cce = inProject(sim.state.cceClusters.values());
    expect(cce.map((cluster) => cluster.name)).toEqual([names.otc.cluster]);
    expect(inProject(sim.state.nodePools.values()).map((nodePool) => `${nodePool.name} in ${nodePool.clusterId}`)).toEqual([
      `${names.otc.nodePool(status?.flavor?.name ?? "", status?.flavor?.zone ?? "")} in ${cce[0]?.id}`,
    ]);
    expect(status?.clusterID).toBe(cce[0]?.id);
    expect(sim.liveObjects(REFUSED_PROJECT_ID)).toEqual(EMPTY_PROJECT);

    // The tenant's kubeconfig Secret: CCE's, owned by the KubernetesCluster, visible to the Secrets claim.
    expect(status?.kubeconfigSecretName).toBe(names.kubeconfigSecret);
    expect(status?.apiEndpoint).toBe(WORKLOAD_URL);
    const kubeconfigSecret = tenant.secrets.get(names.kubeconfigSecret);
    expect(kubeconfigSecret?.metadata?.labels?.[SECRET_LABEL.key]).toBe(SECRET_LABEL.value);
    expect(kubeconfigSecret?.metadata?.ownerReferences?.map((ref) => ref.uid)).toEqual([owner.uid]);
    const kubeconfigText = Buffer.from(kubeconfigSecret?.data?.kubeconfig ?? "", "base64").toString("utf8");
    const parsed = parse(kubeconfigText) as { clusters?: { cluster?: { server?: string } }[]; users?: { user?: Record<string, string> }[] };
    expect(parsed.clusters?.map((entry) => entry.cluster?.server)).toEqual([WORKLOAD_URL]);
    expect(Object.keys(parsed.users?.[0]?.user ?? {}).sort()).toEqual(["client-certificate-data", "client-key-data"]);
    // Nothing the tenant reads carries its password.
    await recorder.flush();
    expect(JSON.stringify(status)).not.toContain(ACCOUNT.password);
    expect(JSON.stringify(events)).not.toContain(ACCOUNT.password);
    // The kcp side was written only the status and the kubeconfig Secret.
    expect(new Set(tenant.writes.map((write) => write.replace(/\/[^/]+-kubeconfig$/, "/<kubeconfig>")))).toEqual(
      new Set([
        `PATCH /apis/platform.edgeconnect.eu/v1alpha1/namespaces/default/kubernetesclusters/my-cluster/status`,
        "POST /api/v1/namespaces/default/secrets",
        "PATCH /api/v1/namespaces/default/secrets/<kubeconfig>",
      ]),
    );

    // A Ready cluster's next pass changes nothing and asks CCE for no new certificate.
    const issued = kubeconfigSecret?.metadata?.resourceVersion;
    expect(await provisionPass(tenant)).toEqual({ requeueAfterMs: 10 * 60_000 });
    expect(tenant.secrets.get(names.kubeconfigSecret)?.metadata?.resourceVersion).toBe(issued);
    // Nor does it send the infrastructure cluster an apply the cache shows was made (applied-record.ts): only the
    // credentials Secret, which has no cache, goes again. The cache may still lag the last pass's writes, so a few tries.
    const resourcesApplied = (): string[] => applied.splice(0).map((path) => path.split("/").at(-2) ?? path);
    let steady: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      resourcesApplied();
      expect(await provisionPass(tenant)).toEqual({ requeueAfterMs: 10 * 60_000 });
      steady = resourcesApplied();
      if (steady.length === 1) break;
      await nap();
    }
    expect(steady).toEqual(["secrets"]);

    // Teardown: pass after pass until it is done, each waiting pass naming the stage it waits on.
    tenant.markDeleted();
    const teardownStarted = Date.now();
    const stages: string[] = [];
    const stageTimes: string[] = [];
    const teardownDeadline = Date.now() + 150_000;
    let teardownPasses = 0;
    for (;;) {
      if (Date.now() > teardownDeadline) {
        throw new Error(`teardown not done after ${teardownPasses} passes (errors: ${errors.join("; ") || "none"}); Ready: ${tenant.condition(CONDITION.Ready)?.message}`);
      }
      const result = await teardownPass(tenant);
      teardownPasses++;
      remember();
      if (result === undefined) break;
      if (result instanceof Error) errors.push(result.message);
      const stage = /^deleting (.+?): /.exec(tenant.condition(CONDITION.Ready)?.message ?? "")?.[1];
      if (stage !== undefined && stages.at(-1) !== stage) {
        stages.push(stage);
        stageTimes.push(`${stage} from ${((Date.now() - teardownStarted) / 1000).toFixed(1)} s`);
      }
      await nap();
    }
    const teardownMs = Date.now() - teardownStarted;
    // Child before parent: the stages waited on come in teardown's order, the node pool first.
    const order = ["the node pool", "the CCE cluster", "the EIP and key pair", "the subnet", "the VPC", "the credentials"];
    const positions = stages.map((stage) => order.indexOf(stage));
    expect(stages[0]).toBe("the node pool");
    expect(positions).not.toContain(-1);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(tenant.cluster().status?.phase).toBe("Deleting");
    // OTC: nothing of the tenant's left.
    expect(sim.liveObjects(PROJECT_ID)).toEqual(EMPTY_PROJECT);
    // The infrastructure cluster: no managed resource, no ProviderConfig, no Secret of ours, the namespace going.
    for (const kind of [...MANAGED_RESOURCE_KINDS, CROSSPLANE_PROVIDER_CONFIG]) expect(`${kind.kind}: ${(await infraList(kind, provisionedNamespace)).length}`).toBe(`${kind.kind}: 0`);
    for (const name of [names.credentialsSecret(request.namespace, "otc"), names.keypair]) expect(await infraGet(SECRETS, provisionedNamespace, name)).toBeUndefined();
    const left = await infraGet<Namespace>(NAMESPACES, undefined, provisionedNamespace);
    expect(left === undefined || left.metadata?.deletionTimestamp !== undefined).toBe(true);
    // The tenant's kubeconfig Secret went with it; its credentials Secret is the tenant's and stays.
    expect([...tenant.secrets.keys()]).toEqual(["otc-credentials"]);
    // What the tenant was told never names the infrastructure: its namespace, the OTC project or endpoint.
    for (const message of shown) {
      for (const hidden of [provisionedNamespace, PROJECT_ID, new URL(sim.url).host]) expect(message).not.toContain(hidden);
    }
    console.info(
      `provisioned in ${passes} passes (${provisionMs} ms), torn down in ${teardownPasses} (${teardownMs} ms, waiting on ${stageTimes.join(", ")}); errors retried: ${errors.length === 0 ? "none" : errors.join("; ")}`,
    );
  }, 300_000);

  // Purpose: a namespace kcp-<fingerprint> made for another logical cluster (a fingerprint collision) is never
  // written into: the cluster is refused with TenantNamespaceConflict, and nothing is created there or in OTC.
  it("refuses a tenant namespace that another logical cluster holds, and creates nothing in it", async () => {
    const logicalCluster = `root:claimed-${run}`;
    const namespace = tenantNamespace(logicalCluster);
    foreignNamespaces.push(namespace.name);
    await kube.create(kindPath(NAMESPACES), {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace.name, labels: namespace.labels, annotations: { [LOGICAL_CLUSTER_ANNOTATION]: `root:other-${run}` } },
    });
    const tenant = fakeTenant(resources, logicalCluster, passwordCredentials(sim.url, REFUSED_ACCOUNT));

    const result = await provisionPass(tenant);
    expect(result).toEqual({ requeueAfterMs: 10 * 60_000 });
    const ready = tenant.condition(CONDITION.Ready);
    expect(ready).toMatchObject({ status: "False", reason: REASON.TenantNamespaceConflict });
    expect(ready?.message).not.toContain(`other-${run}`);
    expect(tenant.cluster().status?.phase).toBe("Failed");
    // Credentials and flavor were checked before the namespace: they say so.
    expect(tenant.condition(CONDITION.CredentialsValid)?.status).toBe("True");

    for (const kind of [...MANAGED_RESOURCE_KINDS, CROSSPLANE_PROVIDER_CONFIG, SECRETS]) expect(`${kind.kind}: ${(await infraList(kind, namespace.name)).length}`).toBe(`${kind.kind}: 0`);
    const after = await infraGet<Namespace>(NAMESPACES, undefined, namespace.name);
    expect(after?.metadata?.annotations?.[LOGICAL_CLUSTER_ANNOTATION]).toBe(`root:other-${run}`);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
    expect(sim.liveObjects(REFUSED_PROJECT_ID)).toEqual(EMPTY_PROJECT);
    expect(tenant.writes.every((write) => write.endsWith("/status"))).toBe(true);

    // Its teardown touches nothing in a namespace that is not the tenant's.
    tenant.markDeleted();
    expect(await teardownPass(tenant)).toBeUndefined();
    expect((await infraGet<Namespace>(NAMESPACES, undefined, namespace.name))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  // Purpose: credentials too large to be a credentials file are refused before anything is decoded, IAM is asked or
  // anything exists on the infrastructure cluster.
  it("refuses 100 KB of credentials as InvalidCredentials, and creates nothing", async () => {
    const logicalCluster = `root:large-${run}`;
    const credentials = `${passwordCredentials(sim.url, REFUSED_ACCOUNT)}#${"x".repeat(100 * 1024)}\n`;
    const tenant = fakeTenant(resources, logicalCluster, credentials);
    const iamCalls = (): number => sim.faults.requests.filter((entry) => entry.path.startsWith("/v3/")).length;
    const asked = iamCalls();

    expect(await provisionPass(tenant)).toEqual({ requeueAfterMs: 30_000 });
    const valid = tenant.condition(CONDITION.CredentialsValid);
    expect(valid).toMatchObject({ status: "False", reason: "InvalidCredentials" });
    expect(valid?.message).toMatch(/larger than 8192 bytes/);
    expect(JSON.stringify(tenant.cluster().status)).not.toContain(REFUSED_ACCOUNT.password);
    expect(iamCalls()).toBe(asked);
    expect(await infraGet(NAMESPACES, undefined, tenantNamespace(logicalCluster).name)).toBeUndefined();
    expect(sim.liveObjects(REFUSED_PROJECT_ID)).toEqual(EMPTY_PROJECT);
  });

  // Purpose: a wrong password is rejected by the real IAM simulator through the real OtcGateway: CredentialsRejected,
  // retried after the gateway's backoff, without the password in status, and nothing on the infrastructure cluster.
  it("reports a password IAM rejects as CredentialsRejected, and creates nothing", async () => {
    const logicalCluster = `root:rejected-${run}`;
    const wrong = `wrong-password-${run}`;
    const tenant = fakeTenant(resources, logicalCluster, passwordCredentials(sim.url, REFUSED_ACCOUNT, wrong));

    const result = await provisionPass(tenant);
    expect(result).not.toBeInstanceOf(Error);
    expect((result as { requeueAfterMs: number }).requeueAfterMs).toBeGreaterThan(0);
    expect((result as { requeueAfterMs: number }).requeueAfterMs).toBeLessThanOrEqual(15_000);
    const valid = tenant.condition(CONDITION.CredentialsValid);
    expect(valid).toMatchObject({ status: "False", reason: "CredentialsRejected" });
    expect(valid?.message).toMatch(/^OTC IAM rejected the credentials: .*; fix them in Secret "default\/otc-credentials"$/);
    expect(JSON.stringify(tenant.cluster().status)).not.toContain(wrong);
    await recorder.flush();
    expect(events.map((event) => event.reason)).toContain("CredentialsRejected");
    expect(JSON.stringify(events)).not.toContain(wrong);
    expect(tenant.condition(CONDITION.FlavorMatched)?.reason).toBe("Waiting");
    expect(await infraGet(NAMESPACES, undefined, tenantNamespace(logicalCluster).name)).toBeUndefined();
    expect(sim.liveObjects(REFUSED_PROJECT_ID)).toEqual(EMPTY_PROJECT);
  });
});
