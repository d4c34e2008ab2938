/**
 * The built `crossplane-otc-simulator` as a process on the e2e
 * environment's infrastructure kube-apiserver, against an OTC simulator in
 * this test: our CRDs refuse what the provider's refuse; a VPC, subnet, EIP,
 * keypair, CCE cluster and node pool with literal IDs reach Synced and Ready
 * with their atProvider filled; a node pool scales in place and refuses a
 * ForceNew change; SoldOut leaves a pool Ready with its create failed; bad
 * credentials show OTC's 401 without any credential; a VPC with a subnet
 * left fails to delete until the subnet is gone; a Terminating namespace
 * blocks deletion as it does for the real provider; OTC ends empty.
 *
 * The process watches only this suite's namespaces (`--namespace`), so that
 * suites sharing the cluster keep their MRs to themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { deleteKeypair, OtcClient } from "@edgeconnect/otc";
import { createCertificateAuthority, startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";
import { applyCrds, connectFromEnv, eventually, holds, keepE2eLog } from "@edgeconnect/testenv";
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CRD_FIELD_MANAGER, crdObjects } from "./crds.js";
import { ASYNC_OPERATION, LAST_ASYNC_OPERATION, READY, SYNCED } from "./managed/conditions.js";
import { EXTERNAL_CREATE_SUCCEEDED, EXTERNAL_NAME, FINALIZER, PROVIDER_CONFIG_LABEL, type ManagedResource } from "./managed/resource.js";

const { infra, state } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`crossplane-otc-simulator process tests skipped: ${infra.skipped}`);

const MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");
const PROJECT = { id: "5a3d1c0e9b8f4a7d9c6e2b1a0f3e4d5c", name: "eu-de" };
const AKSK = { accessKey: "XPOTCSIMACCESSKEY001", secretKey: "xp-otc-sim-secret-key-never-in-status" };
const USER = { domainName: "OTC00000000001000000042", userName: "edge-provisioner", password: "xp-otc-sim-password-never-in-status" };
const FIELD_MANAGER = "crossplane-otc-simulator-test";

const VPC = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "vpcv1s", kind: "VpcV1" };
const SUBNET = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "subnetv1s", kind: "SubnetV1" };
const EIP = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "eipv1s", kind: "EIPV1" };
const KEYPAIR = { group: "compute.opentelekomcloud.m.crossplane.io", plural: "keypairv2s", kind: "KeypairV2" };
const CLUSTER = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "clusterv3s", kind: "ClusterV3" };
const NODE_POOL = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "nodepoolv3s", kind: "NodePoolV3" };
type Kind = typeof VPC;

function mrPath(kind: Kind, namespace: string, name?: string): string {
  return `/apis/${kind.group}/v1alpha1/namespaces/${namespace}/${kind.plural}${name === undefined ? "" : `/${name}`}`;
}

/** An OpenSSH ed25519 public key line of a fresh key. */
function sshPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const field = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from("ssh-ed25519")), field(raw)]).toString("base64")} provider-test`;
}

function condition(mr: ManagedResource | undefined, type: string): { status?: string; reason?: string; message?: string; observedGeneration?: number } {
  return mr?.status?.conditions?.find((c) => c.type === type) ?? {};
}

function describeConditions(mr: ManagedResource | undefined): string {
  return JSON.stringify((mr?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}${c.message ? `: ${c.message}` : ""}`));
}

describeInfra("crossplane-otc-simulator process", () => {
  const kube = "skipped" in infra ? (undefined as never) : infra;
  const kubeconfig = "skipped" in state.infra ? "" : state.infra.kubeconfig;
  const run = randomBytes(3).toString("hex");
  const namespace = `xp-otc-${run}`;
  let sim: OtcSimulator;
  let otc: OtcClient;
  let provider: { child: ChildProcess; exited: Promise<number | null>; output: () => string };

  async function apply(kind: Kind, name: string, spec: Record<string, unknown>, ns = namespace): Promise<ManagedResource> {
    return kube.apply<ManagedResource>(mrPath(kind, ns, name), { apiVersion: `${kind.group}/v1alpha1`, kind: kind.kind, metadata: { name, namespace: ns }, spec }, FIELD_MANAGER);
  }

  async function get(kind: Kind, name: string, ns = namespace): Promise<ManagedResource | undefined> {
    return kube.get<ManagedResource>(mrPath(kind, ns, name)).catch((err: unknown) => {
      if (err instanceof HttpStatusError && err.status === 404) return undefined;
      throw err;
    });
  }

  /** The MR once Synced and Ready for its current generation. */
  async function ready(kind: Kind, name: string, timeoutMs = 60_000): Promise<ManagedResource> {
    return eventually(
      async () => {
        const mr = await get(kind, name);
        const generation = mr?.metadata?.generation;
        const ok =
          condition(mr, SYNCED).status === "True" &&
          condition(mr, READY).status === "True" &&
          condition(mr, READY).observedGeneration === generation &&
          mr?.status?.observedGeneration === generation;
        return holds(ok, `${kind.kind} ${name}: ${describeConditions(mr)}`, mr as ManagedResource);
      },
      { timeoutMs, description: `${kind.kind} ${name} Synced and Ready` },
    );
  }

  async function gone(kind: Kind, name: string, ns = namespace): Promise<void> {
    await eventually(
      async () => {
        const mr = await get(kind, name, ns);
        return holds(mr === undefined, `${kind.kind} ${name} still there: finalizers ${JSON.stringify(mr?.metadata?.finalizers)}, ${describeConditions(mr)}`);
      },
      { timeoutMs: 60_000, description: `${kind.kind} ${name} gone` },
    );
  }

  async function secretAndConfig(ns: string, name: string, credentials: Record<string, string>): Promise<void> {
    await kube.apply(
      `/api/v1/namespaces/${ns}/secrets/${name}`,
      { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: ns }, stringData: { credentials: JSON.stringify(credentials) } },
      FIELD_MANAGER,
    );
    await kube.apply(
      `/apis/opentelekomcloud.m.crossplane.io/v1beta1/namespaces/${ns}/providerconfigs/${name}`,
      {
        apiVersion: "opentelekomcloud.m.crossplane.io/v1beta1",
        kind: "ProviderConfig",
        metadata: { name, namespace: ns },
        // A namespaced ProviderConfig's Secret is read from the MR's namespace, whatever this says.
        spec: { credentials: { source: "Secret", secretRef: { namespace: "crossplane-system", name, key: "credentials" } } },
      },
      FIELD_MANAGER,
    );
  }

  const usesOtc = { kind: "ProviderConfig", name: "otc" };

  beforeAll(async () => {
    const workloadCa = createCertificateAuthority("workload-ca");
    const servingCa = createCertificateAuthority("workload-serving-ca");
    sim = await startOtcSimulator({
      credentials: [AKSK],
      users: [USER],
      projects: [PROJECT],
      region: "eu-de",
      cceClusterCreateMs: 500,
      cceClusterDeleteMs: 300,
      nodePoolSyncMs: 300,
      capacity: { "s3.large.2": { "eu-de-01": 0 } },
      workloadCluster: { url: "https://127.0.0.1:6443", servingCaPem: servingCa.certPem, clientCa: workloadCa },
    });
    otc = new OtcClient({ credentials: AKSK, region: "eu-de", projectId: PROJECT.id, endpoints: sim.endpoints, retry: { attempts: 1 } });
    await applyCrds(kube, crdObjects(), { fieldManager: CRD_FIELD_MANAGER, timeoutMs: 60_000 });
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await secretAndConfig(namespace, "otc", { access_key: AKSK.accessKey, secret_key: AKSK.secretKey, auth_url: `${sim.url}/v3`, region: "eu-de", tenant_name: "eu-de" });
    const child = spawn(process.execPath, [MAIN, `--kubeconfig=${kubeconfig}`, "--poll-interval=500ms", `--namespace=${namespace}`, "--health-probe-bind-address=127.0.0.1:0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    provider = {
      child,
      output: () => output,
      exited: new Promise((resolve) =>
        child.once("exit", (code) => {
          keepE2eLog(`crossplane-otc-simulator-${run}`, output);
          resolve(code);
        }),
      ),
    };
    await eventually(() => holds(output.includes('"serving metrics and probes"'), `not started; output so far:\n${output}`));
  });

  afterAll(async () => {
    if (provider?.child.exitCode === null) provider.child.kill("SIGKILL");
    otc?.close();
    await sim?.close();
  });

  it("exits 2 with the reason on stderr for unusable flags or an unreadable kubeconfig", async () => {
    const runOnce = async (args: readonly string[]): Promise<{ code: number | null; stderr: string }> => {
      const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { code, stderr };
    };
    expect(await runOnce(["--poll-interval=often"])).toEqual({ code: 2, stderr: expect.stringContaining('crossplane-otc-simulator: --poll-interval: "often" is not a duration') });
    expect(await runOnce(["--kubeconfig=/nonexistent/kubeconfig"])).toEqual({ code: 2, stderr: expect.stringContaining("crossplane-otc-simulator: cannot load the kubeconfig") });
  });

  it("installs CRDs that refuse a misspelled forProvider field and a missing required parameter", async () => {
    const misspelled = apply(VPC, "misspelled", { providerConfigRef: usesOtc, forProvider: { name: "x", cidr: "10.0.0.0/16", cdir: "10.0.0.0/16" } });
    await expect(misspelled).rejects.toThrow(/cdir/);
    const missing = apply(VPC, "missing", { providerConfigRef: usesOtc, forProvider: { name: "x" } });
    await expect(missing).rejects.toThrow("spec.forProvider.cidr is a required parameter");
    // Observe-only needs no parameters: upjet's rules apply to Create and Update only.
    const observeOnly = await kube.request<ManagedResource>("PATCH", mrPath(VPC, namespace, "observe-only"), {
      body: { apiVersion: `${VPC.group}/v1alpha1`, kind: VPC.kind, metadata: { name: "observe-only" }, spec: { managementPolicies: ["Observe"], forProvider: {} } },
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: FIELD_MANAGER, dryRun: "All" },
    });
    expect(observeOnly.spec?.providerConfigRef).toEqual({ kind: "ClusterProviderConfig", name: "default" });
  });

  it("brings a VPC, subnet, EIP, keypair, cluster and node pool with literal IDs to Synced and Ready", async () => {
    await apply(VPC, "vpc", { providerConfigRef: usesOtc, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/16" } });
    await apply(EIP, "api", {
      providerConfigRef: usesOtc,
      writeConnectionSecretToRef: { name: "api-connection" },
      forProvider: { publicip: [{ type: "5_bgp" }], bandwidth: [{ name: `kcp-${run}`, shareType: "PER", size: 10, chargeMode: "traffic" }] },
    });
    await apply(KEYPAIR, "workers", { providerConfigRef: usesOtc, forProvider: { name: `kcp-${run}`, publicKey: sshPublicKey() } });

    const vpc = await ready(VPC, "vpc");
    const vpcId = vpc.status?.atProvider?.id as string;
    expect(vpc.status?.atProvider).toMatchObject({ id: expect.any(String), status: "OK", cidr: "192.168.0.0/16", name: `kcp-${run}` });
    expect(vpc.metadata?.annotations?.[EXTERNAL_NAME]).toBe(vpcId);
    expect(vpc.metadata?.annotations?.[EXTERNAL_CREATE_SUCCEEDED]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(vpc.metadata?.finalizers).toContain(FINALIZER);
    expect(condition(vpc, LAST_ASYNC_OPERATION)).toMatchObject({ status: "True", reason: "Success" });
    expect(condition(vpc, ASYNC_OPERATION)).toMatchObject({ status: "True", reason: "Finished" });

    await apply(SUBNET, "subnet", { providerConfigRef: usesOtc, forProvider: { name: `kcp-${run}`, cidr: "192.168.0.0/24", gatewayIp: "192.168.0.1", vpcId } });
    const subnet = await ready(SUBNET, "subnet");
    const networkId = subnet.status?.atProvider?.networkId as string;
    expect(subnet.status?.atProvider).toMatchObject({ id: networkId, subnetId: expect.any(String), status: "ACTIVE", vpcId });
    expect(subnet.status?.atProvider?.subnetId).not.toBe(networkId);

    const eip = await ready(EIP, "api");
    const address = eip.status?.atProvider?.address as string;
    expect(eip.status?.atProvider).toMatchObject({ status: "DOWN", publicip: [{ type: "5_bgp", ipAddress: address }] });
    // upjet publishes sensitive attributes only, and an EIP has none: a Secret without data, owned by the MR.
    const connection = await kube.get<KubeObject & { type?: string; data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/api-connection`);
    expect(connection).toMatchObject({ type: "connection.crossplane.io/v1alpha1", metadata: { ownerReferences: [{ kind: "EIPV1", uid: eip.metadata?.uid }] } });
    expect(connection.data ?? {}).toEqual({});
    const keypair = await ready(KEYPAIR, "workers");
    expect(keypair.metadata?.annotations?.[EXTERNAL_NAME]).toBe(`kcp-${run}`);
    expect(keypair.status?.atProvider).toMatchObject({ id: `kcp-${run}`, name: `kcp-${run}`, publicKey: expect.stringMatching(/^ssh-ed25519 /) });

    await apply(CLUSTER, "cluster", {
      providerConfigRef: usesOtc,
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
    // Ready only once Available and the EIP is bound, as Terraform records the cluster only then.
    const creating = await eventually(async () => {
      const mr = await get(CLUSTER, "cluster");
      return holds(mr?.metadata?.annotations?.[EXTERNAL_NAME] !== undefined, `no external name yet: ${describeConditions(mr)}`, mr);
    });
    if (condition(creating, READY).status === "False") expect(condition(creating, READY).reason).toBe("Creating");
    const cluster = await ready(CLUSTER, "cluster");
    const clusterId = cluster.status?.atProvider?.id as string;
    expect(cluster.metadata?.annotations?.[EXTERNAL_NAME]).toBe(clusterId);
    expect(cluster.status?.atProvider).toMatchObject({
      status: "Available",
      internal: expect.stringMatching(/^https:\/\/192\.168\.0\.\d+:5443$/),
      external: `https://${address}:5443`,
      certificateUsers: [{ name: "user", clientCertificateData: expect.any(String), clientKeyData: expect.any(String) }],
    });
    const servers = ((cluster.status?.atProvider?.certificateClusters ?? []) as { name: string; server: string }[]).map((entry) => entry.name);
    expect(servers).toEqual(expect.arrayContaining(["internalCluster", "externalCluster"]));
    // The EIP's observation catches up with the binding on its next poll, not with the cluster's.
    await eventually(
      async () => {
        const eip = await ready(EIP, "api");
        return holds(eip.status?.atProvider?.status === "ACTIVE", `EIP status ${String(eip.status?.atProvider?.status)}`, eip);
      },
      { timeoutMs: 30_000, description: "EIP bound (ACTIVE)" },
    );

    await apply(NODE_POOL, "workers", {
      providerConfigRef: usesOtc,
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
    expect(pool.status?.atProvider).toMatchObject({ id: pool.metadata?.annotations?.[EXTERNAL_NAME], status: "", clusterId, flavor: "s3.xlarge.4", initialNodeCount: 2 });
    expect(condition(pool, LAST_ASYNC_OPERATION)).toMatchObject({ status: "True", reason: "Success" });

    // crossplane-runtime's usage tracker: one ProviderConfigUsage per MR, named after its uid.
    const usages = await kube.list<KubeObject & { resourceRef?: { kind: string; name: string; uid: string } }>(
      `/apis/opentelekomcloud.m.crossplane.io/v1beta1/namespaces/${namespace}/providerconfigusages`,
    );
    const pcu = usages.items.find((usage) => usage.resourceRef?.uid === pool.metadata?.uid);
    expect(pcu?.metadata?.name).toBe(pool.metadata?.uid);
    expect(pcu?.metadata?.labels?.[PROVIDER_CONFIG_LABEL]).toBe("otc");
    expect(usages.items.map((usage) => usage.resourceRef?.kind).sort()).toEqual(["ClusterV3", "EIPV1", "KeypairV2", "NodePoolV3", "SubnetV1", "VpcV1"]);
  });

  it("scales a node pool in place and refuses a ForceNew change without touching OTC", async () => {
    const pool = await get(NODE_POOL, "workers");
    const poolId = pool?.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    const scaled = await eventually(async () => {
      const mr = await ready(NODE_POOL, "workers");
      return holds(mr.status?.atProvider?.initialNodeCount === 3, `atProvider ${JSON.stringify(mr.status?.atProvider)}`, mr);
    });
    expect(sim.state.nodePools.get(poolId)?.initialNodeCount).toBe(3);
    expect(condition(scaled, LAST_ASYNC_OPERATION)).toMatchObject({ status: "True", reason: "Success" });

    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3, flavor: "s3.2xlarge.2" } });
    const refused = await eventually(async () => {
      const mr = await get(NODE_POOL, "workers");
      return holds(condition(mr, SYNCED).status === "False", `Synced ${JSON.stringify(condition(mr, SYNCED))}`, mr);
    });
    expect(condition(refused, SYNCED)).toMatchObject({
      reason: "ReconcileError",
      message:
        'update failed: async update failed: refuse to update the external resource because the following update requires replacing it: cannot change the value of the argument "flavor" from "s3.xlarge.4" to "s3.2xlarge.2"',
    });
    expect(condition(refused, LAST_ASYNC_OPERATION)).toMatchObject({ status: "False", reason: "AsyncUpdateFailure" });
    expect(condition(refused, READY).status).toBe("True");
    expect(sim.state.nodePools.get(poolId)?.flavor).toBe("s3.xlarge.4");

    await apply(NODE_POOL, "workers", { ...spec, forProvider: { ...spec.forProvider, initialNodeCount: 3 } });
    await ready(NODE_POOL, "workers");
  });

  it("drops certificateUsers from the status once ignoreCertificateUsersData is set", async () => {
    const cluster = await get(CLUSTER, "cluster");
    const spec = cluster?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(CLUSTER, "cluster", { ...spec, forProvider: { ...spec.forProvider, ignoreCertificateUsersData: true } });
    const ignoring = await eventually(async () => {
      const mr = await ready(CLUSTER, "cluster");
      return holds(mr.status?.atProvider?.certificateUsers === undefined, "certificateUsers still in the status", mr);
    });
    expect(ignoring.status?.atProvider?.certificateClusters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "internalCluster" })]));
    expect(ignoring.status?.atProvider?.ignoreCertificateUsersData).toBe(true);
  });

  it("leaves a SoldOut node pool Ready with its create failed", async () => {
    const pool = await get(NODE_POOL, "workers");
    const spec = pool?.spec as { forProvider: Record<string, unknown>; providerConfigRef: unknown };
    await apply(NODE_POOL, "sold-out", { ...spec, forProvider: { ...spec.forProvider, name: "sold-out", flavor: "s3.large.2", initialNodeCount: 1 } });
    const soldOut = await eventually(async () => {
      const mr = await get(NODE_POOL, "sold-out");
      return holds(condition(mr, LAST_ASYNC_OPERATION).status === "False", `${describeConditions(mr)} ${JSON.stringify(mr?.status?.atProvider?.status)}`, mr);
    });
    expect(condition(soldOut, LAST_ASYNC_OPERATION)).toMatchObject({ reason: "AsyncCreateFailure", message: expect.stringContaining("SoldOut") });
    expect(condition(soldOut, READY)).toMatchObject({ status: "True", reason: "Available" });
    expect(soldOut?.status?.atProvider?.status).toBe("SoldOut");
    await kube.delete(mrPath(NODE_POOL, namespace, "sold-out"));
    await gone(NODE_POOL, "sold-out");
  });

  it("reports OTC's 401 for bad credentials, AK/SK or password, with no credential in the status", async () => {
    const wrongKey = "xp-otc-sim-wrong-secret-key-0001";
    const wrongPassword = "xp-otc-sim-wrong-password-0001";
    await secretAndConfig(namespace, "bad-aksk", { access_key: AKSK.accessKey, secret_key: wrongKey, auth_url: `${sim.url}/v3`, region: "eu-de" });
    await secretAndConfig(namespace, "bad-password", {
      user_name: USER.userName,
      password: wrongPassword,
      domain_name: USER.domainName,
      tenant_name: "eu-de",
      auth_url: `${sim.url}/v3`,
    });
    for (const config of ["bad-aksk", "bad-password"]) {
      await apply(KEYPAIR, config, { providerConfigRef: { kind: "ProviderConfig", name: config }, forProvider: { name: `${config}-${run}`, publicKey: sshPublicKey() } });
    }
    for (const [name, secret] of [
      ["bad-aksk", wrongKey],
      ["bad-password", wrongPassword],
    ] as const) {
      const mr = await eventually(async () => {
        const current = await get(KEYPAIR, name);
        return holds(condition(current, SYNCED).status === "False", `${describeConditions(current)}`, current);
      });
      expect(condition(mr, SYNCED).reason).toBe("ReconcileError");
      expect(condition(mr, SYNCED).message).toMatch(/^connect failed: .*HTTP 401/);
      const text = JSON.stringify(mr);
      for (const value of [secret, AKSK.secretKey, USER.password]) expect(text).not.toContain(value);
    }
    expect(condition(await get(KEYPAIR, "bad-password"), SYNCED).message).toContain("The request you have made requires authentication.");

    // Fixed credentials take effect at the next reconcile.
    await secretAndConfig(namespace, "bad-password", { user_name: USER.userName, password: USER.password, domain_name: USER.domainName, tenant_name: "eu-de", auth_url: `${sim.url}/v3` });
    await ready(KEYPAIR, "bad-password");
    await secretAndConfig(namespace, "bad-aksk", { access_key: AKSK.accessKey, secret_key: AKSK.secretKey, auth_url: `${sim.url}/v3`, region: "eu-de" });
    await ready(KEYPAIR, "bad-aksk");
    for (const name of ["bad-aksk", "bad-password"]) await kube.delete(mrPath(KEYPAIR, namespace, name));
    for (const name of ["bad-aksk", "bad-password"]) await gone(KEYPAIR, name);
    expect(provider.output()).not.toContain(AKSK.secretKey);
    expect(provider.output()).not.toContain(USER.password);
  });

  it("reads a ClusterProviderConfig's Secret from the namespace it names, and keeps failing while a Secret is missing (reference §2.5.2)", async () => {
    const clusterConfig = `xp-otc-${run}`;
    const configPath = `/apis/opentelekomcloud.m.crossplane.io/v1beta1/clusterproviderconfigs/${clusterConfig}`;
    await kube.apply(
      configPath,
      {
        apiVersion: "opentelekomcloud.m.crossplane.io/v1beta1",
        kind: "ClusterProviderConfig",
        metadata: { name: clusterConfig },
        spec: { credentials: { source: "Secret", secretRef: { namespace, name: "otc", key: "credentials" } } },
      },
      FIELD_MANAGER,
    );
    try {
      await apply(KEYPAIR, "cluster-config", { providerConfigRef: { kind: "ClusterProviderConfig", name: clusterConfig }, forProvider: { name: `cpc-${run}`, publicKey: sshPublicKey() } });
      await ready(KEYPAIR, "cluster-config");
      await kube.delete(mrPath(KEYPAIR, namespace, "cluster-config"));
      await gone(KEYPAIR, "cluster-config");
    } finally {
      await kube.delete(configPath);
    }

    // The Secret goes while an MR still uses it: Connect fails on every reconcile, deletion included.
    const credentials = { access_key: AKSK.accessKey, secret_key: AKSK.secretKey, auth_url: `${sim.url}/v3`, region: "eu-de" };
    await secretAndConfig(namespace, "no-secret", credentials);
    await apply(KEYPAIR, "no-secret", { providerConfigRef: { kind: "ProviderConfig", name: "no-secret" }, forProvider: { name: `no-secret-${run}`, publicKey: sshPublicKey() } });
    await ready(KEYPAIR, "no-secret");
    await kube.delete(`/api/v1/namespaces/${namespace}/secrets/no-secret`);
    await kube.delete(mrPath(KEYPAIR, namespace, "no-secret"));
    const stuck = await eventually(async () => {
      const mr = await get(KEYPAIR, "no-secret");
      return holds(condition(mr, SYNCED).status === "False", describeConditions(mr), mr);
    });
    expect(condition(stuck, SYNCED).message).toBe(
      'connect failed: cannot get terraform setup: cannot extract credentials: cannot get credentials secret: secrets "no-secret" not found',
    );
    expect(stuck?.metadata?.finalizers).toContain(FINALIZER);
    expect(sim.liveObjects().keypairs).toBe(2);
    await secretAndConfig(namespace, "no-secret", credentials);
    await gone(KEYPAIR, "no-secret");
  });

  it("fails to delete a VPC while its subnet is left (DestroyFailure, retried) and deletes it once the subnet is gone", async () => {
    await kube.delete(mrPath(NODE_POOL, namespace, "workers"));
    await gone(NODE_POOL, "workers");
    await kube.delete(mrPath(VPC, namespace, "vpc"));
    const refused = await eventually(async () => {
      const mr = await get(VPC, "vpc");
      return holds(condition(mr, LAST_ASYNC_OPERATION).reason === "DestroyFailure", describeConditions(mr), mr);
    });
    expect(condition(refused, SYNCED)).toMatchObject({ status: "False", reason: "ReconcileError", message: expect.stringContaining("HTTP 409") });
    expect(condition(refused, READY)).toMatchObject({ status: "False", reason: "Deleting" });
    expect(refused?.metadata?.finalizers).toContain(FINALIZER);

    await kube.delete(mrPath(CLUSTER, namespace, "cluster"));
    await gone(CLUSTER, "cluster");
    await kube.delete(mrPath(SUBNET, namespace, "subnet"));
    await gone(SUBNET, "subnet");
    await gone(VPC, "vpc");
    for (const [kind, name] of [
      [EIP, "api"],
      [KEYPAIR, "workers"],
    ] as const) {
      await kube.delete(mrPath(kind, namespace, name));
      await gone(kind, name);
    }
    await expect(kube.get(`/api/v1/namespaces/${namespace}/secrets/api-connection`)).rejects.toMatchObject({ status: 404 });
  });

  it("cannot delete an MR in a Terminating namespace, whose ProviderConfigUsage it cannot create again (reference §2.5.1)", async () => {
    const doomed = `xp-otc-${run}-doomed`;
    await kube.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: doomed } });
    // No auth_url: the process is told where OTC is instead.
    await secretAndConfig(doomed, "otc", { access_key: AKSK.accessKey, secret_key: AKSK.secretKey, region: "eu-de" });
    // Another process watches that namespace: this one watches only the suite's first.
    const other = spawn(process.execPath, [MAIN, `--kubeconfig=${kubeconfig}`, "--poll-interval=500ms", `--namespace=${doomed}`, `--otc-endpoint-override=${sim.url}`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    other.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    other.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => other.once("exit", resolve));
    try {
      await apply(KEYPAIR, "doomed", { providerConfigRef: usesOtc, forProvider: { name: `doomed-${run}`, publicKey: sshPublicKey() } }, doomed);
      const mr = await eventually(async () => {
        const current = await get(KEYPAIR, "doomed", doomed);
        return holds(condition(current, READY).status === "True", describeConditions(current), current);
      });
      // What the namespace controller does first; the test cluster has none, so the test does it.
      await kube.delete(`/apis/opentelekomcloud.m.crossplane.io/v1beta1/namespaces/${doomed}/providerconfigusages/${mr?.metadata?.uid ?? ""}`);
      await kube.delete(`/api/v1/namespaces/${doomed}`);
      await kube.delete(mrPath(KEYPAIR, doomed, "doomed"));
      const stuck = await eventually(async () => {
        const current = await get(KEYPAIR, "doomed", doomed);
        return holds(condition(current, SYNCED).status === "False", describeConditions(current), current);
      });
      expect(condition(stuck, SYNCED).message).toMatch(/^connect failed: cannot get terraform setup: cannot track ProviderConfig usage: .*because it is being terminated/);
      expect(stuck?.metadata?.finalizers).toContain(FINALIZER);
      expect(sim.liveObjects().keypairs).toBe(1);
    } finally {
      other.kill("SIGTERM");
      expect(await exited).toBe(0);
      keepE2eLog(`crossplane-otc-simulator-${run}-doomed`, output);
    }
    // By hand, as an operator would: delete the keypair in OTC and release the MR.
    await deleteKeypair(otc, `doomed-${run}`);
    await kube.request("PATCH", mrPath(KEYPAIR, doomed, "doomed"), { body: { metadata: { finalizers: null } }, contentType: "application/merge-patch+json" });
    await gone(KEYPAIR, "doomed", doomed);
  });

  it("leaves OTC empty and no ProviderConfigUsage behind, and exits 0 on SIGTERM without ever logging a credential", async () => {
    expect(sim.liveObjects()).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    const usages = await kube.list(`/apis/opentelekomcloud.m.crossplane.io/v1beta1/namespaces/${namespace}/providerconfigusages`);
    expect(usages.items).toEqual([]);
    provider.child.kill("SIGTERM");
    expect(await provider.exited).toBe(0);
    const output = provider.output();
    for (const value of [AKSK.secretKey, USER.password]) expect(output).not.toContain(value);
    const lines = output.split("\n").filter((line) => line.trim() !== "");
    expect(lines.every((line) => line.startsWith("{"))).toBe(true);
  });
});
