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
 * The scenarios are split over two files (crossplane-otc-simulator-lifecycle
 * and -provider-configs) that run side by side, each on its own Jest
 * worker's infrastructure cluster with a simulator process of its own; this
 * module is what they share: the process, the OTC simulator, and the
 * helpers. Each file ends with `itLeavesOtcEmpty`.
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
import { OtcClient } from "@edgeconnect/otc";
import { createCertificateAuthority, startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";
import { connectFromEnv, CrossplaneOtcSimulator, E2E_LOG_DIR_ENV_VAR, eventually, holds, Reaper, resolveBinary } from "@edgeconnect/testenv";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { infra, state } = connectFromEnv();

/** `describe` where there is an infrastructure cluster, else `describe.skip` with a warning. */
export function describeCrossplaneOtc(name: string, body: () => void): void {
  if ("skipped" in infra) console.warn(`${name} e2e skipped: ${infra.skipped}`);
  ("skipped" in infra ? describe.skip : describe)(name, body);
}

export const PROJECT = { id: "5a3d1c0e9b8f4a7d9c6e2b1a0f3e4d5c", name: "eu-de" };
export const AKSK = { accessKey: "XPOTCGOSIMACCESSKEY01", secretKey: "xp-otc-go-sim-secret-key-never-in-status" };
export const USER = { domainName: "OTC00000000001000000042", userName: "edge-provisioner", password: "xp-otc-go-sim-password-never-in-status" };
// Written as credential literals so that the run's credential guard looks for them too.
export const WRONG = { secretKey: "xp-otc-go-sim-wrong-secret-key-0001", password: "xp-otc-go-sim-wrong-password-0001" };
export const SECRET_VALUES = [AKSK.accessKey, AKSK.secretKey, USER.password, WRONG.secretKey, WRONG.password];
export const FIELD_MANAGER = "crossplane-otc-simulator-e2e";
// Each scenario waits for several MRs in turn, each wait up to 120 s on a loaded machine (and an MR
// deleted just after its creation also waits out crossplane-runtime's creation grace period, 1 s in testenv).
export const TEST_TIMEOUT_MS = 600_000;

export const MR_VERSION = "v1alpha1";
export const VPC = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "vpcv1s", kind: "VpcV1" };
export const SUBNET = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "subnetv1s", kind: "SubnetV1" };
export const EIP = { group: "vpc.opentelekomcloud.m.crossplane.io", plural: "eipv1s", kind: "EIPV1" };
export const KEYPAIR = { group: "compute.opentelekomcloud.m.crossplane.io", plural: "keypairv2s", kind: "KeypairV2" };
export const CLUSTER = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "clusterv3s", kind: "ClusterV3" };
export const NODE_POOL = { group: "cce.opentelekomcloud.m.crossplane.io", plural: "nodepoolv3s", kind: "NodePoolV3" };
export type Kind = typeof VPC;

export const PROVIDER_API = "opentelekomcloud.m.crossplane.io/v1beta1";
// crossplane-runtime's names.
export const EXTERNAL_NAME = "crossplane.io/external-name";
export const EXTERNAL_CREATE_SUCCEEDED = "crossplane.io/external-create-succeeded";
export const PAUSED = "crossplane.io/paused";
export const MR_FINALIZER = "finalizer.managedresource.crossplane.io";
export const IN_USE_FINALIZER = "in-use.crossplane.io";
export const PROVIDER_CONFIG_LABEL = "crossplane.io/provider-config";

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export type ManagedResource = KubeObject & {
  spec?: { forProvider?: Record<string, unknown>; providerConfigRef?: { kind: string; name: string } };
  status?: { atProvider?: Record<string, unknown>; conditions?: Condition[] };
};
export type ProviderConfigObject = KubeObject & { status?: { users?: number; conditions?: Condition[] } };
export type Usage = KubeObject & { resourceRef?: { kind: string; name: string } };
export type Namespace = KubeObject & { status?: { phase?: string; conditions?: Condition[] } };

export function mrPath(kind: Kind, namespace: string, name?: string): string {
  return `/apis/${kind.group}/${MR_VERSION}/namespaces/${namespace}/${kind.plural}${name === undefined ? "" : `/${name}`}`;
}

export const providerConfigPath = (namespace: string, name: string): string => `/apis/${PROVIDER_API}/namespaces/${namespace}/providerconfigs/${name}`;
export const usagesPath = (namespace: string): string => `/apis/${PROVIDER_API}/namespaces/${namespace}/providerconfigusages`;
export const namespacePath = (name: string): string => `/api/v1/namespaces/${name}`;

/** An OpenSSH ed25519 public key line of a fresh key. */
export function sshPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const field = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from("ssh-ed25519")), field(raw)]).toString("base64")} provider-test`;
}

export function condition(object: { status?: { conditions?: Condition[] } } | undefined, type: string): Partial<Condition> {
  return object?.status?.conditions?.find((c) => c.type === type) ?? {};
}

export function describeConditions(object: { status?: { conditions?: Condition[] } } | undefined): string {
  return JSON.stringify((object?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ""}${c.message ? `: ${c.message}` : ""}`));
}

/**
 * Starts the OTC simulator and the Crossplane OTC provider simulator before
 * the enclosing describe's tests, with a namespace and ProviderConfig of
 * this file's own, and stops them after; call it inside that describe.
 */
export function crossplaneOtcScenarios() {
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

  return {
    kube,
    run,
    namespace,
    config,
    usesConfig,
    logFile,
    get sim(): OtcSimulator {
      return sim;
    },
    get otc(): OtcClient {
      return otc;
    },
    get provider(): CrossplaneOtcSimulator {
      return provider;
    },
    apply,
    find,
    get,
    ready,
    until,
    gone,
    deleteMr,
    createNamespace,
    akskCredentials,
    passwordCredentials,
    secret,
    secretAndConfig,
    providerConfigUntil,
    usages,
    liveKeypair,
  };
}

/** The last test of each file: what the file's scenarios made is gone, and the process never logged a credential. */
export function itLeavesOtcEmpty(scenarios: ReturnType<typeof crossplaneOtcScenarios>): void {
  const { usages, namespace, logFile } = scenarios;
  it("leaves OTC empty and no ProviderConfigUsage behind, and exits 0 on SIGTERM without ever logging a credential", async () => {
    expect(scenarios.sim.liveObjects()).toEqual({ vpcs: 0, subnets: 0, eips: 0, keypairs: 0, cceClusters: 0, nodePools: 0, servers: 0 });
    await eventually(async () => holds((await usages(namespace)).length === 0, "usages not garbage collected yet"), { timeoutMs: 120_000, description: "no usage left" });
    await scenarios.provider.stop();
    expect(await scenarios.provider.process.exited).toEqual({ code: 0, signal: null });
    const log = readFileSync(logFile, "utf8");
    for (const value of SECRET_VALUES) expect(log).not.toContain(value);
  }, TEST_TIMEOUT_MS);
}
