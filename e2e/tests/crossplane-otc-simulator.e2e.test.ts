/**
 * The Crossplane OTC provider simulator (scripts/binaries/crossplane-otc-simulator,
 * Go on the real crossplane-runtime v2.0.0) as a process on the e2e
 * environment's infrastructure cluster, against an OTC simulator in this
 * test: its CRDs refuse what the provider's refuse; a VPC, subnet, EIP,
 * keypair, CCE cluster and node pool with literal IDs reach Synced and Ready
 * with their atProvider filled; a node pool scales in place and refuses a
 * ForceNew change; SoldOut leaves a pool Ready with its create failed; bad
 * credentials show OTC's 401 without any credential; a ClusterProviderConfig
 * reads its Secret where it says; a VPC with a subnet left fails to delete
 * until the subnet is gone; crossplane-runtime v2.0.0's defects, usages
 * counted by name across namespaces and MRs stuck in a Terminating
 * namespace, hold as they do for the real provider; OTC ends empty.
 *
 * The process watches every namespace: the cross-namespace usage count is
 * what one process sees of two namespaces, which `--namespace` would hide.
 * Namespaces, ProviderConfig names and the ClusterProviderConfig carry this
 * run's id instead, so that nothing else on the cluster is counted or
 * touched. The infrastructure cluster runs kube-controller-manager, so
 * namespaces really go and owned objects (usages, connection Secrets) are
 * garbage collected.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { deleteKeypair, OtcClient } from "@edgeconnect/otc";
import { createCertificateAuthority, startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";
import { connectFromEnv, CrossplaneOtcSimulator, E2E_LOG_DIR_ENV_VAR, eventually, holds, Reaper, resolveBinary } from "@edgeconnect/testenv";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { infra, state } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`crossplane-otc-simulator e2e skipped: ${infra.skipped}`);

const PROJECT = { id: "5a3d1c0e9b8f4a7d9c6e2b1a0f3e4d5c", name: "eu-de" };
const AKSK = { accessKey: "XPOTCGOSIMACCESSKEY01", secretKey: "xp-otc-go-sim-secret-key-never-in-status" };
const USER = { domainName: "OTC00000000001000000042", userName: "edge-provisioner", password: "xp-otc-go-sim-password-never-in-status" };
// Written as credential literals so that the run's credential guard looks for them too.
const WRONG = { secretKey: "xp-otc-go-sim-wrong-secret-key-0001", password: "xp-otc-go-sim-wrong-password-0001" };
const SECRET_VALUES = [AKSK.accessKey, AKSK.secretKey, USER.password, WRONG.secretKey, WRONG.password];
const FIELD_MANAGER = "crossplane-otc-simulator-e2e";
// Each scenario waits for several MRs in turn, each wait up to 120 s on a loaded machine; an MR
// deleted within 30 s of its creation also waits out crossplane-runtime's creation grace period.
const TEST_TIMEOUT_MS = 600_000;

const MR_VERSION = "v1alpha1";
const VPC = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "vpcv1s", kind: "VpcV1" };
const SUBNET = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "subnetv1s", kind: "SubnetV1" };
const EIP = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "eipv1s", kind: "EIPV1" };
const KEYPAIR = { group: "compute.opentelekomcloud.m.crossplane.io", plural: "keypairv2s", kind: "KeypairV2" };
const CLUSTER = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "clusterv3s", kind: "ClusterV3" };
const NODE_POOL = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "nodepoolv3s", kind: "NodePoolV3" };
type Kind = typeof VPC;

const PROVIDER_API = "opentelekomcloud.m.crossplane.io/v1beta1";
// crossplane-runtime's names.
const EXTERNAL_NAME = "crossplane.io/external-name";
const EXTERNAL_CREATE_SUCCEEDED = "crossplane.io/external-create-succeeded";
const PAUSED = "crossplane.io/paused";
const MR_FINALIZER = "finalizer.managedresource.crossplane.io";
const IN_USE_FINALIZER = "in-use.crossplane.io";
const PROVIDER_CONFIG_LABEL = "crossplane.io/provider-config";

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

type ManagedResource = KubeObject & {
  spec?: { forProvider?: Record<string, unknown>; providerConfigRef?: { kind: string; name: string } };
  status?: { atProvider?: Record<string, unknown>; conditions?: Condition[] };
};
type ProviderConfigObject = KubeObject & { status?: { users?: number; conditions?: Condition[] } };
type Usage = KubeObject & { resourceRef?: { kind: string; name: string } };
type Namespace = KubeObject & { status?: { phase?: string; conditions?: Condition[] } };

function mrPath(kind: Kind, namespace: string, name?: string): string {
  return `/apis/${kind.group}/${MR_VERSION}/namespaces/${namespace}/${kind.plural}${name === undefined ? "" : `/${name}`}`;
}

const providerConfigPath = (namespace: string, name: string): string => `/apis/${PROVIDER_API}/namespaces/${namespace}/providerconfigs/${name}`;
const usagesPath = (namespace: string): string => `/apis/${PROVIDER_API}/namespaces/${namespace}/providerconfigusages`;
const namespacePath = (name: string): string => `/api/v1/namespaces/${name}`;

/** An OpenSSH ed25519 public key line of a fresh key. */
function sshPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const field = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from("ssh-ed25519")), field(raw)]).toString("base64")} provider-test`;
}

function condition(object: { status?: { conditions?: Condition[] } } | undefined, type: string): Partial<Condition> {
  return object?.status?.conditions?.find((c) => c.type === type) ?? {};
}

function describeConditions(object: { status?: { conditions?: Condition[] } } | undefined): string {
  return JSON.stringify((object?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ""}${c.message ? `: ${c.message}` : ""}`));
}

describeInfra("crossplane-otc-simulator", () => {
  const kube = "skipped" in infra ? (undefined as never) : infra;
  const kubeconfig = "skipped" in state.infra ? "" : state.infra.kubeconfig;
  const run = randomBytes(3).toString("hex");
  const namespace = `xp-otc-${run}`;
  // Run-unique: crossplane-runtime v2.0.0 counts usages by ProviderConfig name across all namespaces.
  const config = `otc-${run}`;
  const usesConfig = { kind: "ProviderConfig", name: config };
  const logFile = join(process.env[E2E_LOG_DIR_ENV_VAR] ?? tmpdir(), `crossplane-otc-simulator-${run}.log`);
  const namespaces: string[] = [];
  let reaper: Reaper;
  let sim: OtcSimulator;
  let otc: OtcClient;
  let provider: CrossplaneOtcSimulator;

  /** Server-side apply, Strict: a field the CRD lacks is refused, not dropped. */
  async function apply(kind: Kind, name: string, spec: Record<string, unknown>, ns = namespace): Promise<ManagedResource> {
    return kube.apply<ManagedResource>(
      mrPath(kind, ns, name),
      { apiVersion: `${kind.group}/${MR_VERSION}`, kind: kind.kind, metadata: { name, namespace: ns }, spec },
      FIELD_MANAGER,
      { fieldValidation: "Strict" },
    );
  }

  /** The object, or undefined once it is gone. */
  async function find<T = KubeObject>(path: string): Promise<T | undefined> {
    return kube.get<T>(path).catch((err: unknown) => {
      if (err instanceof HttpStatusError && err.status === 404) return undefined;
      throw err;
    });
  }

  const get = (kind: Kind, name: string, ns = namespace): Promise<ManagedResource | undefined> => find<ManagedResource>(mrPath(kind, ns, name));

  /** The MR once Synced for its current generation, Ready, its last operation reported and none running. */
  async function ready(kind: Kind, name: string, ns = namespace): Promise<ManagedResource> {
    return eventually(
      async () => {
        const mr = await get(kind, name, ns);
        const ok =
          condition(mr, "Synced").status === "True" &&
          condition(mr, "Synced").observedGeneration === mr?.metadata?.generation &&
          condition(mr, "Ready").status === "True" &&
          condition(mr, "AsyncOperation").status === "True" &&
          condition(mr, "LastAsyncOperation").status !== undefined;
        return holds(ok, `${kind.kind} ${ns}/${name}: ${describeConditions(mr)}`, mr as ManagedResource);
      },
      { timeoutMs: 120_000, description: `${kind.kind} ${ns}/${name} Synced and Ready` },
    );
  }

  /** The MR once `check` holds for it. */
  async function until(kind: Kind, name: string, check: (mr: ManagedResource | undefined) => boolean, ns = namespace): Promise<ManagedResource> {
    return eventually(
      async () => {
        const mr = await get(kind, name, ns);
        return holds(check(mr), `${kind.kind} ${ns}/${name}: ${describeConditions(mr)}, atProvider ${JSON.stringify(mr?.status?.atProvider)}`, mr as ManagedResource);
      },
      { timeoutMs: 120_000, description: `${kind.kind} ${ns}/${name}` },
    );
  }

  async function gone(path: string): Promise<void> {
    await eventually(
      async () => {
        const object = await find<ManagedResource>(path);
        return holds(object === undefined, `still there: finalizers ${JSON.stringify(object?.metadata?.finalizers)}, ${describeConditions(object)}`);
      },
      { timeoutMs: 120_000, description: `${path} gone` },
    );
  }

  async function deleteMr(kind: Kind, name: string, ns = namespace): Promise<void> {
    await kube.delete(mrPath(kind, ns, name));
    await gone(mrPath(kind, ns, name));
  }

  async function createNamespace(name: string): Promise<string> {
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    namespaces.push(name);
    return name;
  }

  function akskCredentials(secretKey = AKSK.secretKey): Record<string, string> {
    return { access_key: AKSK.accessKey, secret_key: secretKey, auth_url: `${sim.url}/v3`, region: "eu-de", tenant_name: PROJECT.name };
  }

  function passwordCredentials(password = USER.password): Record<string, string> {
    return { user_name: USER.userName, password, domain_name: USER.domainName, tenant_name: PROJECT.name, auth_url: `${sim.url}/v3` };
  }

  async function secret(ns: string, name: string, credentials: Record<string, string>): Promise<void> {
    await kube.apply(
      `/api/v1/namespaces/${ns}/secrets/${name}`,
      { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: ns }, stringData: { credentials: JSON.stringify(credentials) } },
      FIELD_MANAGER,
    );
  }

  async function secretAndConfig(ns: string, name: string, credentials: Record<string, string>): Promise<void> {
    await secret(ns, name, credentials);
    await kube.apply(
      providerConfigPath(ns, name),
      {
        apiVersion: PROVIDER_API,
        kind: "ProviderConfig",
        metadata: { name, namespace: ns },
        // A namespaced ProviderConfig's Secret is read in the MR's namespace, whatever this says.
        spec: { credentials: { source: "Secret", secretRef: { namespace: "crossplane-system", name, key: "credentials" } } },
      },
      FIELD_MANAGER,
      { fieldValidation: "Strict" },
    );
  }

  /** The ProviderConfig once `check` holds for it. */
  async function providerConfigUntil(ns: string, name: string, check: (pc: ProviderConfigObject | undefined) => boolean, what: string): Promise<ProviderConfigObject> {
    return eventually(
      async () => {
        const pc = await find<ProviderConfigObject>(providerConfigPath(ns, name));
        const reason = `users ${String(pc?.status?.users)}, finalizers ${JSON.stringify(pc?.metadata?.finalizers)}, ${describeConditions(pc)}`;
        return holds(check(pc), reason, pc as ProviderConfigObject);
      },
      { timeoutMs: 120_000, description: `ProviderConfig ${ns}/${name} ${what}` },
    );
  }

  async function usages(ns: string): Promise<Usage[]> {
    return (await kube.list<Usage>(usagesPath(ns))).items;
  }

  const liveKeypair = (name: string): boolean => [...sim.state.keypairs.values()].some((keypair) => keypair.name === name);

  beforeAll(async () => {
    reaper = Reaper.start();
    const workloadCa = createCertificateAuthority("workload-ca");
    const servingCa = createCertificateAuthority("workload-serving-ca");
    sim = await startOtcSimulator({
      credentials: [AKSK],
      users: [USER],
      projects: [PROJECT],
      region: "eu-de",
      transitionDelayMs: 100,
      cceClusterCreateMs: 500,
      cceClusterDeleteMs: 300,
      nodePoolSyncMs: 300,
      capacity: { "s3.large.2": { "eu-de-01": 0 } },
      // clustercert's kubeconfig names this server; nothing connects to it.
      workloadCluster: { url: "https://127.0.0.1:6443", servingCaPem: servingCa.certPem, clientCa: workloadCa },
    });
    otc = new OtcClient({ credentials: AKSK, region: "eu-de", projectId: PROJECT.id, endpoints: sim.endpoints, retry: { attempts: 1 } });
    provider = await CrossplaneOtcSimulator.start({
      binary: (await resolveBinary("crossplane-otc-simulator")).path,
      kubeconfig,
      logFile,
      poll: "1s",
      asyncPollInterval: "100ms",
      reaper,
    });
    await createNamespace(namespace);
    await secretAndConfig(namespace, config, akskCredentials());
  }, 300_000);

  afterAll(async () => {
    await provider?.stop();
    otc?.close();
    await sim?.close();
    for (const name of namespaces) await kube.delete(namespacePath(name)).catch(() => undefined);
    await reaper?.close();
  });

  it("has CRDs that refuse a misspelled forProvider field and a missing required parameter", async () => {
    await expect(apply(VPC, "misspelled", { providerConfigRef: usesConfig, forProvider: { name: "x", cidr: "10.0.0.0/16", cdir: "10.0.0.0/16" } })).rejects.toThrow(
      ".spec.forProvider.cdir: field not declared in schema",
    );
    await expect(apply(VPC, "missing", { providerConfigRef: usesConfig, forProvider: { name: "x" } })).rejects.toThrow("spec.forProvider.cidr is a required parameter");
    // Observe-only needs no parameters: the CRD's rules apply to Create and Update only.
    const observeOnly = await kube.request<ManagedResource>("PATCH", mrPath(VPC, namespace, "observe-only"), {
      body: { apiVersion: `${VPC.group}/${MR_VERSION}`, kind: VPC.kind, metadata: { name: "observe-only" }, spec: { managementPolicies: ["Observe"], forProvider: {} } },
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: FIELD_MANAGER, fieldValidation: "Strict", dryRun: "All" },
    });
    expect(observeOnly.spec?.providerConfigRef).toEqual({ kind: "ClusterProviderConfig", name: "default" });
  }, TEST_TIMEOUT_MS);

  it("brings a VPC, subnet, EIP, keypair, cluster and node pool with literal IDs to Synced and Ready", async () => {
    await apply(VPC, "vpc", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/16" } });
    await apply(EIP, "api", {
      providerConfigRef: usesConfig,
      writeConnectionSecretToRef: { name: "api-connection" },
      forProvider: { publicip: [{ type: "5_bgp" }], bandwidth: [{ name: `kcp-${run}`, shareType: "PER", size: 10, chargeMode: "traffic" }] },
    });
    await apply(KEYPAIR, "workers", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, publicKey: sshPublicKey() } });

    const vpc = await ready(VPC, "vpc");
    const vpcId = vpc.status?.atProvider?.id as string;
    expect(sim.state.vpcs.has(vpcId)).toBe(true);
    expect(vpc.status?.atProvider).toMatchObject({ status: "OK", cidr: "192.168.0.0/16", name: `kcp-${run}` });
    expect(vpc.metadata?.annotations?.[EXTERNAL_NAME]).toBe(vpcId);
    expect(vpc.metadata?.annotations?.[EXTERNAL_CREATE_SUCCEEDED]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(vpc.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(condition(vpc, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });
    expect(condition(vpc, "AsyncOperation")).toMatchObject({ status: "True", reason: "Finished" });
    expect(condition(vpc, "Ready")).toMatchObject({ status: "True", reason: "Available" });

    await apply(SUBNET, "subnet", { providerConfigRef: usesConfig, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/24", gatewayIp: "192.168.0.1", vpcId } });
    const subnet = await ready(SUBNET, "subnet");
    const networkId = subnet.status?.atProvider?.networkId as string;
    expect(subnet.status?.atProvider).toMatchObject({ id: networkId, subnetId: expect.any(String), status: "ACTIVE", vpcId });
    expect(subnet.status?.atProvider?.subnetId).not.toBe(networkId);
    expect(subnet.metadata?.annotations?.[EXTERNAL_NAME]).toBe(networkId);

    const eip = await ready(EIP, "api");
    const publicip = (eip.status?.atProvider?.publicip ?? []) as { type?: string; ipAddress?: string }[];
    const address = publicip[0]?.ipAddress ?? "";
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(publicip).toEqual([expect.objectContaining({ type: "5_bgp", ipAddress: address })]);
    // The address is only there: the provider has no top-level one.
    expect(eip.status?.atProvider?.address).toBeUndefined();
    expect(sim.state.eips.get(eip.metadata?.annotations?.[EXTERNAL_NAME] ?? "")?.publicIpAddress).toBe(address);
    // An EIP has no sensitive attribute to publish: a Secret without data, owned by the MR.
    const connection = await kube.get<KubeObject & { type?: string; data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/api-connection`);
    expect(connection).toMatchObject({ type: "connection.crossplane.io/v1alpha1", metadata: { ownerReferences: [expect.objectContaining({ kind: "EIPV1", uid: eip.metadata?.uid })] } });
    expect(connection.data ?? {}).toEqual({});

    const keypair = await ready(KEYPAIR, "workers");
    expect(keypair.metadata?.annotations?.[EXTERNAL_NAME]).toBe(`kcp-${run}`);
    expect(keypair.status?.atProvider).toMatchObject({ id: `kcp-${run}`, name: `kcp-${run}`, publicKey: expect.stringMatching(/^ssh-ed25519 /) });

    await apply(CLUSTER, "cluster", {
      providerConfigRef: usesConfig,
      forProvider: {
        name: `kcp-${run}`,
        clusterType: "VirtualMachine",
        flavorId: "cce.s1.small",
        clusterVersion: "v1.31",
        containerNetworkType: "vpc-router",
        authenticationMode: "rbac",
        vpcId,
        subnetId: networkId,
        eip: address,
        deleteEvs: "try",
        deleteNet: "try",
      },
    });
    const cluster = await ready(CLUSTER, "cluster");
    const clusterId = cluster.status?.atProvider?.id as string;
    // Terraform records the cluster only once it is Available and the EIP is bound.
    expect(cluster.metadata?.annotations?.[EXTERNAL_NAME]).toBe(clusterId);
    expect(sim.state.cceClusters.has(clusterId)).toBe(true);
    expect(cluster.status?.atProvider).toMatchObject({
      status: "Available",
      internal: expect.stringMatching(/^https:\/\/192\.168\.0\.\d+:5443$/),
      external: `https://${address}:5443`,
      certificateUsers: [expect.objectContaining({ name: "user", clientCertificateData: expect.any(String), clientKeyData: expect.any(String) })],
    });
    const servers = ((cluster.status?.atProvider?.certificateClusters ?? []) as { name: string }[]).map((entry) => entry.name);
    expect(servers).toEqual(expect.arrayContaining(["internalCluster", "externalCluster"]));

    await apply(NODE_POOL, "workers", {
      providerConfigRef: usesConfig,
      forProvider: {
        name: "workers",
        clusterId,
        flavor: "s3.xlarge.4",
        initialNodeCount: 2,
        availabilityZone: "random",
        keyPair: `kcp-${run}`,
        os: "HCE OS 2.0",
        runtime: "containerd",
        rootVolume: [{ size: 40, volumetype: "SSD" }],
        dataVolumes: [{ size: 100, volumetype: "SSD" }],
      },
    });
    const pool = await ready(NODE_POOL, "workers");
    const poolId = pool.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    expect(sim.state.nodePools.has(poolId)).toBe(true);
    // CCE's normal node pool phase is the empty string, which Terraform's state keeps.
    expect(pool.status?.atProvider).toMatchObject({ id: poolId, status: "", clusterId, flavor: "s3.xlarge.4", initialNodeCount: 2 });
    expect(pool.status?.atProvider).not.toHaveProperty("region");
    expect(condition(pool, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });

    // crossplane-runtime's usage tracking: one ProviderConfigUsage per MR, named after its uid...
    const tracked = await usages(namespace);
    expect(tracked.find((usage) => usage.metadata?.name === pool.metadata?.uid)?.metadata?.labels?.[PROVIDER_CONFIG_LABEL]).toBe(config);
    expect(tracked.map((usage) => usage.resourceRef?.kind).sort()).toEqual(["ClusterV3", "EIPV1", "KeypairV2", "NodePoolV3", "SubnetV1", "VpcV1"]);
    // ...which its ProviderConfig reconciler counts, holding the config in use.
    const pc = await providerConfigUntil(namespace, config, (current) => current?.status?.users === 6, "counting 6 users");
    expect(pc.metadata?.finalizers).toContain(IN_USE_FINALIZER);
  }, TEST_TIMEOUT_MS);

  it("scales a node pool in place and refuses a ForceNew change without touching OTC", async () => {
    const pool = await get(NODE_POOL, "workers");
    const poolId = pool?.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    const scaled = await until(NODE_POOL, "workers", (mr) => mr?.status?.atProvider?.initialNodeCount === 3 && condition(mr, "AsyncOperation").status === "True");
    expect(sim.state.nodePools.get(poolId)?.initialNodeCount).toBe(3);
    expect(condition(scaled, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });

    const before = sim.state.nodePools.get(poolId)?.generation;
    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3, flavor: "s3.2xlarge.2" } });
    const refused = await until(NODE_POOL, "workers", (mr) => condition(mr, "Synced").status === "False");
    expect(condition(refused, "Synced")).toMatchObject({
      reason: "ReconcileError",
      message:
        'update failed: refuse to update the external resource because the following update requires replacing it: cannot change the value of the argument "flavor" from "s3.xlarge.4" to "s3.2xlarge.2"',
    });
    // Refused before any operation: the last one, the scale-out, stands, and so does the pool.
    expect(condition(refused, "LastAsyncOperation")).toMatchObject({ status: "True", reason: "Success" });
    expect(condition(refused, "Ready").status).toBe("True");
    expect(sim.state.nodePools.get(poolId)).toMatchObject({ flavor: "s3.xlarge.4", generation: before });

    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    await ready(NODE_POOL, "workers");
  }, TEST_TIMEOUT_MS);

  it("leaves a SoldOut node pool Ready with its create failed", async () => {
    const pool = await get(NODE_POOL, "workers");
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "sold-out", { ...spec, forProvider: { ...spec.forProvider, name: "sold-out", flavor: "s3.large.2", initialNodeCount: 1 } });
    const soldOut = await until(
      NODE_POOL,
      "sold-out",
      (mr) => condition(mr, "LastAsyncOperation").status === "False" && condition(mr, "Ready").status === "True" && mr?.status?.atProvider?.status === "SoldOut",
    );
    expect(condition(soldOut, "LastAsyncOperation")).toMatchObject({
      reason: "ApplyFailure",
      message: "apply failed: error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state 'SoldOut', wanted target ''",
    });
    expect(condition(soldOut, "Ready")).toMatchObject({ reason: "Available" });
    // The pool's ID is recorded before the wait fails: the MR knows what to delete.
    expect(sim.state.nodePools.get(soldOut.metadata?.annotations?.[EXTERNAL_NAME] ?? "")?.phase).toBe("SoldOut");
    await deleteMr(NODE_POOL, "sold-out");
  }, TEST_TIMEOUT_MS);

  it("reports OTC's 401 for bad credentials, AK/SK or password, with no credential in the status", async () => {
    await secretAndConfig(namespace, "bad-aksk", akskCredentials(WRONG.secretKey));
    await secretAndConfig(namespace, "bad-password", passwordCredentials(WRONG.password));
    for (const name of ["bad-aksk", "bad-password"]) {
      await apply(KEYPAIR, name, { providerConfigRef: { kind: "ProviderConfig", name }, forProvider: { name: `${name}-${run}`, publicKey: sshPublicKey() } });
    }
    for (const [name, words] of [
      ["bad-aksk", "the request signature does not match"],
      ["bad-password", "The request you have made requires authentication."],
    ] as const) {
      const mr = await until(KEYPAIR, name, (current) => condition(current, "Synced").status === "False");
      expect(condition(mr, "Synced")).toMatchObject({ reason: "ReconcileError", message: expect.stringMatching(/^connect failed: cannot get terraform setup: .*HTTP 401/) });
      expect(condition(mr, "Synced").message).toContain(words);
      const text = JSON.stringify(mr);
      for (const value of SECRET_VALUES) expect(text).not.toContain(value);
    }

    // Corrected Secrets take effect at the next reconcile.
    await secret(namespace, "bad-password", passwordCredentials());
    await ready(KEYPAIR, "bad-password");
    await secret(namespace, "bad-aksk", akskCredentials());
    await ready(KEYPAIR, "bad-aksk");
    for (const name of ["bad-aksk", "bad-password"]) await deleteMr(KEYPAIR, name);
  }, TEST_TIMEOUT_MS);

  it("reads a ClusterProviderConfig's Secret from the namespace it names, and keeps failing while a Secret is missing", async () => {
    const elsewhere = await createNamespace(`xp-otc-${run}-credentials`);
    await secret(elsewhere, "cluster-credentials", akskCredentials());
    const clusterConfig = `xp-otc-${run}`;
    const clusterConfigPath = `/apis/${PROVIDER_API}/clusterproviderconfigs/${clusterConfig}`;
    await kube.apply(
      clusterConfigPath,
      {
        apiVersion: PROVIDER_API,
        kind: "ClusterProviderConfig",
        metadata: { name: clusterConfig },
        spec: { credentials: { source: "Secret", secretRef: { namespace: elsewhere, name: "cluster-credentials", key: "credentials" } } },
      },
      FIELD_MANAGER,
      { fieldValidation: "Strict" },
    );
    // The MR's namespace has no such Secret: it is read where the config says.
    await apply(KEYPAIR, "cluster-config", { providerConfigRef: { kind: "ClusterProviderConfig", name: clusterConfig }, forProvider: { name: `cpc-${run}`, publicKey: sshPublicKey() } });
    await ready(KEYPAIR, "cluster-config");
    await deleteMr(KEYPAIR, "cluster-config");
    await kube.delete(clusterConfigPath);
    await gone(clusterConfigPath);

    // The Secret goes while an MR still uses it: Connect fails on every reconcile, deletion included.
    await secretAndConfig(namespace, "no-secret", akskCredentials());
    await apply(KEYPAIR, "no-secret", { providerConfigRef: { kind: "ProviderConfig", name: "no-secret" }, forProvider: { name: `no-secret-${run}`, publicKey: sshPublicKey() } });
    await ready(KEYPAIR, "no-secret");
    await kube.delete(`/api/v1/namespaces/${namespace}/secrets/no-secret`);
    await kube.delete(mrPath(KEYPAIR, namespace, "no-secret"));
    const stuck = await until(KEYPAIR, "no-secret", (mr) => condition(mr, "Synced").status === "False");
    expect(condition(stuck, "Synced").message).toBe('connect failed: cannot get terraform setup: cannot extract credentials: cannot get credentials secret: Secret "no-secret" not found');
    expect(stuck.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(liveKeypair(`no-secret-${run}`)).toBe(true);
    await secret(namespace, "no-secret", akskCredentials());
    await gone(mrPath(KEYPAIR, namespace, "no-secret"));
    expect(liveKeypair(`no-secret-${run}`)).toBe(false);
  }, TEST_TIMEOUT_MS);

  it("fails to delete a VPC while its subnet is left (DestroyFailure) and deletes it once the subnet is gone", async () => {
    await deleteMr(NODE_POOL, "workers");
    await kube.delete(mrPath(VPC, namespace, "vpc"));
    const refused = await until(VPC, "vpc", (mr) => condition(mr, "LastAsyncOperation").reason === "DestroyFailure" && condition(mr, "Synced").status === "False");
    expect(condition(refused, "LastAsyncOperation")).toMatchObject({ status: "False", message: expect.stringMatching(/^destroy failed: .*HTTP 409/) });
    expect(condition(refused, "Synced")).toMatchObject({ reason: "ReconcileError", message: expect.stringMatching(/^delete failed: destroy failed: .*HTTP 409/) });
    expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "Deleting" });
    expect(refused.metadata?.finalizers).toContain(MR_FINALIZER);
    expect(sim.state.vpcs.has(refused.metadata?.annotations?.[EXTERNAL_NAME] ?? "")).toBe(true);

    await deleteMr(CLUSTER, "cluster");
    await deleteMr(SUBNET, "subnet");
    await gone(mrPath(VPC, namespace, "vpc"));
    await deleteMr(EIP, "api");
    await deleteMr(KEYPAIR, "workers");
    // The connection Secret goes with its owner, by garbage collection.
    await gone(`/api/v1/namespaces/${namespace}/secrets/api-connection`);
  }, TEST_TIMEOUT_MS);

  it("counts a namespaced ProviderConfig's usages by name across namespaces, as crossplane-runtime v2.0.0 does (crossplane issues 6856, 7154)", async () => {
    const a = await createNamespace(`xp-otc-${run}-a`);
    const b = await createNamespace(`xp-otc-${run}-b`);
    const shared = `shared-${run}`;
    for (const ns of [a, b]) {
      await secretAndConfig(ns, shared, akskCredentials());
      await apply(KEYPAIR, "user", { providerConfigRef: { kind: "ProviderConfig", name: shared }, forProvider: { name: ns, publicKey: sshPublicKey() } }, ns);
      await ready(KEYPAIR, "user", ns);
    }
    // One MR uses each config, yet B's, counted after A's usage exists, counts both.
    await providerConfigUntil(b, shared, (pc) => pc?.status?.users === 2, "counting both namespaces' usages");

    await deleteMr(KEYPAIR, "user", a);
    await eventually(async () => holds((await usages(a)).length === 0, "A's usage not garbage collected yet"), { timeoutMs: 120_000, description: `no usage left in ${a}` });
    await providerConfigUntil(a, shared, (pc) => pc?.status?.users === 1, "counting B's usage");

    await kube.delete(providerConfigPath(a, shared));
    const held = await providerConfigUntil(a, shared, (pc) => condition(pc, "Terminating").status === "True", "held in use");
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    expect(held.metadata?.finalizers).toEqual([IN_USE_FINALIZER]);
    expect(held.status?.users).toBeGreaterThanOrEqual(1);
    expect(condition(held, "Terminating")).toMatchObject({ reason: "InUse", message: "Blocking deletion while usages still exist" });

    // kube-controller-manager empties the namespace but for the held config, and waits.
    await kube.delete(namespacePath(a));
    const terminating = await eventually(
      async () => {
        const ns = await find<Namespace>(namespacePath(a));
        const finalizers = condition(ns, "NamespaceFinalizersRemaining");
        return holds(ns?.status?.phase === "Terminating" && finalizers.status === "True", `namespace ${a}: ${ns?.status?.phase}, ${describeConditions(ns)}`, ns);
      },
      { timeoutMs: 120_000, description: `namespace ${a} Terminating on a finalizer` },
    );
    expect(condition(terminating, "NamespaceFinalizersRemaining").message).toContain(IN_USE_FINALIZER);
    expect(await find(providerConfigPath(a, shared))).toBeDefined();

    await deleteMr(KEYPAIR, "user", b);
    // B's config sees its usage go; A's is not told: crossplane-runtime v2.0.0 enqueues the
    // config of the usage's own namespace, so A's is reconciled again only at the cache's
    // resync (the real provider's --sync, an hour by default).
    await providerConfigUntil(b, shared, (pc) => (pc?.status?.users ?? 0) === 0, "counting no users");
    expect((await find<ProviderConfigObject>(providerConfigPath(a, shared)))?.status?.users).toBe(1);
    // A change to A's config stands in for that resync.
    await kube.request("PATCH", providerConfigPath(a, shared), {
      body: { metadata: { annotations: { "e2e.edgeconnect.eu/resync": "now" } } },
      contentType: "application/merge-patch+json",
    });
    await providerConfigUntil(a, shared, (pc) => pc === undefined, "gone");
    await gone(namespacePath(a));
    expect(liveKeypair(a) || liveKeypair(b)).toBe(false);
  }, TEST_TIMEOUT_MS);

  it("cannot delete an MR in a Terminating namespace, whose ProviderConfigUsage it cannot create again (reference §2.5.1)", async () => {
    const doomed = await createNamespace(`xp-otc-${run}-doomed`);
    const doomedConfig = `doomed-${run}`;
    await secretAndConfig(doomed, doomedConfig, akskCredentials());
    await apply(KEYPAIR, "doomed", { providerConfigRef: { kind: "ProviderConfig", name: doomedConfig }, forProvider: { name: doomed, publicKey: sshPublicKey() } }, doomed);
    const mr = await ready(KEYPAIR, "doomed", doomed);
    const path = mrPath(KEYPAIR, doomed, "doomed");

    // A keypair's destroy takes one reconcile and could end before kube-controller-manager
    // deletes the usage; paused, the MR waits until the usage is gone, as a cluster whose
    // destroy takes minutes would.
    await kube.request("PATCH", path, { body: { metadata: { annotations: { [PAUSED]: "true" } } }, contentType: "application/merge-patch+json" });
    await until(KEYPAIR, "doomed", (current) => condition(current, "Synced").reason === "ReconcilePaused", doomed);
    await kube.delete(namespacePath(doomed));
    await eventually(
      async () => {
        const current = await get(KEYPAIR, "doomed", doomed);
        const left = await usages(doomed);
        return holds(current?.metadata?.deletionTimestamp !== undefined && left.length === 0, `deletionTimestamp ${current?.metadata?.deletionTimestamp}, ${left.length} usages`);
      },
      { timeoutMs: 120_000, description: `namespace ${doomed} emptied but for the MR` },
    );
    await kube.request("PATCH", path, { body: { metadata: { annotations: { [PAUSED]: null } } }, contentType: "application/merge-patch+json" });

    const stuck = await until(KEYPAIR, "doomed", (current) => condition(current, "Synced").reason === "ReconcileError", doomed);
    expect(condition(stuck, "Synced").message).toBe(
      `connect failed: cannot get terraform setup: cannot track ProviderConfig usage: cannot apply ProviderConfigUsage: cannot create object: providerconfigusages.opentelekomcloud.m.crossplane.io "${mr.metadata?.uid}" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`,
    );
    expect(stuck.metadata?.finalizers).toEqual([MR_FINALIZER]);
    expect(liveKeypair(doomed)).toBe(true);
    const ns = await find<Namespace>(namespacePath(doomed));
    expect(ns?.status?.phase).toBe("Terminating");

    // By hand, as an operator would: delete the keypair in OTC and release the MR.
    await deleteKeypair(otc, doomed);
    await kube.request("PATCH", path, { body: { metadata: { finalizers: null } }, contentType: "application/merge-patch+json" });
    await gone(namespacePath(doomed));
  }, TEST_TIMEOUT_MS);

  it("leaves OTC empty and no ProviderConfigUsage behind, and exits 0 on SIGTERM without ever logging a credential", async () => {
    expect(sim.liveObjects()).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    await eventually(async () => holds((await usages(namespace)).length === 0, "usages not garbage collected yet"), { timeoutMs: 120_000, description: "no usage left" });
    await provider.stop();
    expect(await provider.process.exited).toEqual({ code: 0, signal: null });
    const log = readFileSync(logFile, "utf8");
    for (const value of SECRET_VALUES) expect(log).not.toContain(value);
  }, TEST_TIMEOUT_MS);
});
