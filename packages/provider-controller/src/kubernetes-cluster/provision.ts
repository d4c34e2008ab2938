/**
 * One provisioning pass of an OTC KubernetesCluster, level-triggered: read the
 * tenant's inputs and the infrastructure as it is, decide, apply what is
 * missing in dependency order (each step only once the one before it has
 * reported the ids it needs), and say where things stand.
 *
 * Inputs are checked before anything is created: bad credentials, an
 * unsatisfiable MachineCapabilities or a change the cloud cannot make in
 * place stop the pass with a condition, and nothing exists on the
 * infrastructure cluster that did not before.
 */
import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";
import type { KubernetesCluster, ProviderMachineFlavor } from "@edgeconnect/api";
import {
  accountAnnotations,
  accountChange,
  accountOf,
  capabilityMisses,
  CLUSTER_V3,
  clusterObjectNames,
  CONDITION,
  CROSSPLANE_PROVIDER_CONFIG,
  eipAddress,
  EIP_V1,
  isSoldOut,
  KEYPAIR_V2,
  managedResourceState,
  matchFlavor,
  NODE_POOL_V3,
  observedId,
  openSshPublicKey,
  ownerAnnotations,
  ownerLabels,
  recordedAccount,
  recordedSoldOut,
  refusedChanges,
  renderCluster,
  renderCredentialsSecret,
  renderCrossplaneProviderConfig,
  renderEip,
  renderKeypair,
  renderNodePool,
  renderSubnet,
  renderVpc,
  soldOutAnnotation,
  SUBNET_V1,
  subnetNetworkId,
  tenantNamespace,
  toGiB,
  VPC_V1,
  type CloudAccount,
  type ClusterObjectNames,
  RANDOM_ZONE,
  type FlavorChoice,
  type FlavorZone,
  type RsaPublicJwk,
} from "@edgeconnect/provisioning";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { holdSecrets, type ClusterScope, type ControllerLogger, type DeepReadonly, type Request, type SecretHolder } from "@edgeconnect/runtime";
import { SECRETS, type InfrastructureCluster, type InfrastructureWrites } from "../infrastructure/infrastructure-cluster.js";
import { clusterSecrets } from "../tenant/secret-holders.js";
import { CLUSTER_QUOTA_EXCEEDED, withinClusterQuota } from "../tenant/cluster-quota.js";
import { resolveCredentials, type CredentialsContext } from "../tenant/tenant-credentials.js";
import type { ClusterApiContext } from "./cluster-api-provision.js";
import { ensureKubeconfig } from "./kubeconfig-secret.js";
import { observeInfrastructure, type Observed, type ObservedInfrastructure } from "./observed-infrastructure.js";
import type { StatusReport } from "./status-report.js";
import type { TeardownObserver } from "../metrics/provider-metrics.js";
import type { SupersededProviderConfigs } from "./superseded-provider-configs.js";
import { claimNamespaceOrRefuse } from "./tenant-namespace.js";

export interface ProvisionContext extends CredentialsContext {
  readonly infra: InfrastructureCluster;
  readonly flavors: () => readonly DeepReadonly<ProviderMachineFlavor>[];
  readonly kubeconfigValidityDays: number;
  readonly now: () => Date;
  /** Undefined when the platform does not offer Cluster API (`--cluster-api` off). */
  readonly clusterApi?: ClusterApiContext;
  readonly supersededProviderConfigs: SupersededProviderConfigs;
  /** See cluster-quota.ts. */
  readonly maxClustersPerWorkspace: number;
  /** Told what each waiting teardown waits on. */
  readonly teardowns?: TeardownObserver;
}

export interface Pass {
  readonly request: Request;
  readonly scope: ClusterScope;
  readonly signal: AbortSignal;
  readonly writes: InfrastructureWrites;
  /** The reconcile's logger: the platform's view, where infrastructure names may appear. */
  readonly log: ControllerLogger;
}

/** How often a cluster that is not Ready is looked at again without any watch event: a safety net, not the driver. */
export const RESYNC_PROVISIONING_MS = 30_000;
export const RESYNC_READY_MS = 10 * 60_000;

export async function provision(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number }> {
  const spec = kc.spec;
  const { request } = pass;
  if (spec === undefined) {
    report.fail(CONDITION.CredentialsValid, "InvalidSpec", "spec is missing");
    return { requeueAfterMs: RESYNC_READY_MS };
  }
  const namespace = tenantNamespace(request.cluster);
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  const observed = observeInfrastructure(context.infra, namespace.name, request, names);

  // Only a cluster that has nothing yet can be held back; counting costs a look at the workspace's clusters, so only then.
  const started = observed.vpc ?? observed.subnet ?? observed.eip ?? observed.keypair ?? observed.cluster ?? observed.nodePools[0];
  if (started === undefined && !withinClusterQuota(pass.scope.lister(context.resources.clusters).list(), kc, context.maxClustersPerWorkspace)) {
    report.refuse(
      CLUSTER_QUOTA_EXCEEDED,
      `this workspace has ${context.maxClustersPerWorkspace} older KubernetesClusters, the most the platform makes for one workspace; nothing was created for this one. Delete another, or ask the platform team to raise the bound`,
    );
    // The deletion of another cluster of the workspace wakes it (event-mappers.ts clustersOverQuotaBeside), not a poll.
    return { requeueAfterMs: RESYNC_READY_MS };
  }

  // The CRD requires configRef for OTC.
  const configName = spec.providerRef.configRef?.name ?? "";
  const credentials = await resolveCredentials(context, pass.scope, request.namespace, configName, pass.signal);
  if (!credentials.ok) {
    report.fail(CONDITION.CredentialsValid, credentials.reason, credentials.message, credentials.transient === true ? "Unknown" : "False");
    if (credentials.transient === true) throw new Error(credentials.message);
    return { requeueAfterMs: credentials.retryAfterMs ?? RESYNC_PROVISIONING_MS };
  }
  const account = accountOf(credentials.credentials, credentials.projectId);
  const moved = accountMoved(observed, account);
  if (moved !== undefined) {
    report.fail(CONDITION.CredentialsValid, "UnsupportedChange", moved);
    report.refuse("UnsupportedChange", moved);
    return { requeueAfterMs: RESYNC_READY_MS };
  }
  report.pass(CONDITION.CredentialsValid, "Accepted", `OTC IAM accepted the credentials of ProviderConfig "${configName}"`);

  const matcher = flavorMatcher(context, pass, spec, credentials.credentials.region);
  if (matcher === undefined) {
    report.fail(
      CONDITION.FlavorMatched,
      "MachineCapabilitiesNotFound",
      `MachineCapabilities "${spec.machineCapabilitiesRef.name}" does not exist in namespace "${request.namespace}"; create it or change spec.machineCapabilitiesRef.name`,
    );
    report.flavor();
    return { requeueAfterMs: RESYNC_PROVISIONING_MS };
  }
  // What was found sold out is remembered where the tenant cannot write it (sold-out-record.ts); status only shows it.
  const soldOut = recordedSoldOut(observed.cluster?.metadata?.annotations);
  report.knownSoldOut(soldOut);
  const choice = chooseFlavor(matcher, kc, observed, names, soldOut);
  if (!choice.ok) {
    report.fail(CONDITION.FlavorMatched, choice.reason ?? "NoMatchingFlavor", choice.message);
    report.flavor();
    return { requeueAfterMs: RESYNC_PROVISIONING_MS };
  }
  report.pass(CONDITION.FlavorMatched, choice.source === "Pinned" ? "Pinned" : "Matched", choice.reason);

  const refused = refusedChanges(desiredShape(kc), observedShape(observed));
  if (refused.length > 0) {
    report.refuse("UnsupportedChange", `${refused.join("; ")}; or create a new KubernetesCluster`);
    return { requeueAfterMs: RESYNC_READY_MS };
  }

  if (!(await claimNamespaceOrRefuse(pass.writes, namespace, request.cluster, report))) return { requeueAfterMs: RESYNC_READY_MS };

  const meta = ownedMeta(request, kc, namespace.name, account);
  const pcName = names.providerConfig(request.namespace, configName);
  const secretName = names.credentialsSecret(request.namespace, configName);
  await pass.writes.apply(SECRETS, renderCredentialsSecret(meta(secretName), credentials.credentials));
  await pass.writes.apply(CROSSPLANE_PROVIDER_CONFIG, renderCrossplaneProviderConfig(meta(pcName), secretName));
  const common = { providerConfigName: pcName, region: credentials.credentials.region };

  const publicKey = await sshPublicKey(pass.writes, meta(names.keypair), clusterSecrets(request, "login-key"));
  await pass.writes.apply(KEYPAIR_V2, renderKeypair({ ...common, metadata: meta(names.keypair), name: names.otc.keypair, publicKey }));
  await pass.writes.apply(EIP_V1, renderEip({ ...common, metadata: meta(names.eip), name: names.otc.eip }));

  const network = await ensureNetwork(pass, kc, observed, names, meta, common);
  report.step(CONDITION.NetworkReady, network.condition);

  const address = managedResourceState(observed.eip).state === "Ready" ? eipAddress(observed.eip) : undefined;
  const renderClusterV3 = (pairs: readonly FlavorZone[]) =>
    network.vpcId === undefined || network.networkId === undefined || address === undefined
      ? undefined
      : renderCluster({
          ...common,
          metadata: withAnnotations(meta(names.cluster), soldOutAnnotation(pairs)),
          name: names.otc.cluster,
          kubernetesVersion: spec.kubernetes.version,
          vpcId: network.vpcId,
          subnetNetworkId: network.networkId,
          eipAddress: address,
          ...(spec.availableZone === undefined ? {} : { availableZone: spec.availableZone }),
        });
  const clusterV3 = renderClusterV3(soldOut);
  if (clusterV3 !== undefined) await pass.writes.apply(CLUSTER_V3, clusterV3);
  const recordSoldOut = async (pairs: readonly FlavorZone[]): Promise<void> => {
    const updated = renderClusterV3(pairs);
    if (updated === undefined) throw new Error("a sold-out flavor cannot be recorded while the cluster's network or address is not known; retrying");
    await pass.writes.apply(CLUSTER_V3, updated);
  };
  const controlPlane = stateCondition(observed.cluster, "the CCE cluster");
  report.step(CONDITION.ControlPlaneReady, controlPlane);
  const clusterId = controlPlane.status === "True" ? observedId(observed.cluster) : undefined;
  if (clusterId !== undefined) report.clusterId(clusterId);

  const keypairReady = managedResourceState(observed.keypair).state === "Ready";
  let poolChoice: Choice = choice;
  if (clusterId !== undefined && keypairReady) {
    poolChoice = await ensureNodePool(pass, kc, observed, names, meta, { ...common, clusterId, keypairName: names.otc.keypair }, choice, matcher, report, recordSoldOut);
  } else {
    report.step(CONDITION.NodePoolReady, { status: "Unknown", reason: "WaitingForControlPlane", message: "the node pool is created once the control plane is ready" });
  }
  report.flavor(poolChoice.ok ? poolChoice : undefined);

  if (clusterId !== undefined) {
    const kubeconfig = await ensureKubeconfig(context, pass, kc, names.kubeconfigSecret, clusterId, credentials.credentials);
    report.step(CONDITION.KubeconfigReady, kubeconfig.condition);
    if (kubeconfig.server !== undefined) report.endpoint(kubeconfig.server, names.kubeconfigSecret);
  } else {
    report.step(CONDITION.KubeconfigReady, { status: "Unknown", reason: "WaitingForControlPlane", message: "the kubeconfig is issued once the control plane is ready" });
  }
  const referenced = [observed.vpc, observed.subnet, observed.eip, observed.keypair, observed.cluster, ...observed.nodePools].map(
    (mr) => (mr?.spec as { providerConfigRef?: { name?: string } } | undefined)?.providerConfigRef?.name ?? pcName,
  );
  await context.supersededProviderConfigs.release(pass.writes, namespace.name, request, kc.metadata?.uid ?? "", pcName, { referenced, providerConfigs: observed.providerConfigs });
  return { requeueAfterMs: report.ready ? RESYNC_READY_MS : RESYNC_PROVISIONING_MS };
}

type Meta = (name: string) => { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };

/** `metadata` with `extra` annotations beside the owner and account ones. */
function withAnnotations(metadata: ReturnType<Meta>, extra: Record<string, string>): ReturnType<Meta> {
  return { ...metadata, annotations: { ...metadata.annotations, ...extra } };
}

/** The metadata of what the cluster owns in its tenant namespace: owner labels, and owner and account annotations. */
export function ownedMeta(request: Request, kc: DeepReadonly<KubernetesCluster>, namespace: string, account: CloudAccount): Meta {
  const owner = { ...request, uid: kc.metadata?.uid ?? "" };
  const labels = ownerLabels(owner);
  const annotations = { ...ownerAnnotations(owner), ...accountAnnotations(account) };
  return (name: string) => ({ name, namespace, labels, annotations });
}
interface Common {
  readonly providerConfigName: string;
  readonly region: string;
}
export interface StepCondition {
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
}

/** Why `account` is not the one the cluster's resources were made in; undefined when it is, or none was recorded. */
function accountMoved(observed: ObservedInfrastructure, account: CloudAccount): string | undefined {
  const resources = [observed.vpc, observed.subnet, observed.eip, observed.keypair, observed.cluster, ...observed.nodePools];
  for (const mr of resources) {
    const recorded = recordedAccount(mr?.metadata?.annotations);
    const change = recorded === undefined ? undefined : accountChange(recorded, account);
    if (change !== undefined) return change;
  }
  return undefined;
}

function forProvider(mr: Observed | undefined): Readonly<Record<string, unknown>> | undefined {
  return (mr?.spec as { forProvider?: Record<string, unknown> } | undefined)?.forProvider;
}

/** A managed resource's state as a condition; `StatusReport.step` makes its message one a tenant may read. */
function stateCondition(mr: Observed | undefined, what: string): StepCondition {
  const state = managedResourceState(mr);
  switch (state.state) {
    case "Ready":
      return { status: "True", reason: "Available", message: `${what} is available` };
    case "Failed":
      return { status: "False", reason: state.reason, message: `${what} failed: ${state.message}` };
    case "Absent":
      return { status: "Unknown", reason: "Creating", message: `${what} is being requested` };
    default:
      return { status: "Unknown", reason: state.reason, message: `${what}: ${state.message}` };
  }
}

function desiredShape(kc: DeepReadonly<KubernetesCluster>): Parameters<typeof refusedChanges>[0] {
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  return {
    kubernetesVersion: spec.kubernetes.version,
    ...(spec.availableZone === undefined ? {} : { availableZone: spec.availableZone }),
    nodeAvailableZone: spec.nodeAvailableZone ?? RANDOM_ZONE,
    nodeDiskGiB: toGiB(spec.nodeDiskSize),
    ...(spec.vpcID === undefined ? {} : { vpcID: spec.vpcID }),
    ...(spec.subnetID === undefined ? {} : { subnetID: spec.subnetID }),
  };
}

/** What the cloud already has, from the specs we applied (only fields the cloud cannot change in place). */
function observedShape(observed: ObservedInfrastructure): Parameters<typeof refusedChanges>[1] {
  const cluster = forProvider(observed.cluster);
  const pool = observed.nodePools.map(forProvider).find((fp) => fp !== undefined);
  const masters = cluster?.masters as readonly { availabilityZone?: string }[] | undefined;
  const disks = pool?.dataVolumes as readonly { size?: number }[] | undefined;
  const shape: Record<string, unknown> = {
    clusterVersion: cluster?.clusterVersion,
    masterZone: masters?.[0]?.availabilityZone,
    nodePoolZone: pool?.availabilityZone,
    nodeDiskGiB: disks?.[0]?.size,
    vpcId: cluster?.vpcId,
  };
  return Object.fromEntries(Object.entries(shape).filter(([, value]) => value !== undefined));
}

type Choice = ReturnType<typeof matchFlavor> & { reason?: string };

/**
 * The catalogue's answer for this cluster's MachineCapabilities, skipping
 * sold-out candidates, optionally pinned; and what a flavor lacks of them.
 */
type Matcher = ((exclude: readonly FlavorZone[], pinned?: string) => Choice) & { readonly misses: (flavor: string) => string[] | undefined };

/** Undefined when the MachineCapabilities the spec names does not exist. */
function flavorMatcher(context: ProvisionContext, pass: Pass, spec: NonNullable<KubernetesCluster["spec"]>, region: string): Matcher | undefined {
  const capabilities = pass.scope.lister(context.resources.capabilities).get(pass.request.namespace, spec.machineCapabilitiesRef.name)?.spec;
  if (capabilities === undefined) return undefined;
  const request = { providerType: spec.providerRef.type, capabilities, flavors: context.flavors() as ProviderMachineFlavor[] };
  const matcher = (exclude: readonly FlavorZone[], pinned?: string): Choice =>
    matchFlavor({
      ...request,
      zone: spec.nodeAvailableZone ?? RANDOM_ZONE,
      region,
      ...(pinned === undefined ? {} : { pinned }),
      exclude: exclude.map((entry) => ({ flavor: entry.flavor, zone: entry.zone })),
    });
  return Object.assign(matcher, { misses: (flavor: string) => capabilityMisses(request, flavor) });
}

/**
 * The flavor and zone of the node pool: the one a healthy pool already has
 * (a catalogue change must not replace running nodes), else the user's pin,
 * else the smallest match, skipping what was found sold out.
 */
function chooseFlavor(matcher: Matcher, kc: DeepReadonly<KubernetesCluster>, observed: ObservedInfrastructure, names: ClusterObjectNames, soldOut: readonly FlavorZone[]): Choice {
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  const match = matcher(soldOut, spec.nodeFlavor);
  // A sold-out pool that served nodes stays the pool: only its scale-up is sold out.
  const current = observed.nodePools.find((pool) => pool.metadata?.deletionTimestamp === undefined && (!isSoldOut(pool) || servedNodes(pool) > 0));
  const currentFlavor = forProvider(current)?.flavor as string | undefined;
  const currentZone = forProvider(current)?.availabilityZone as string | undefined;
  if (current !== undefined && currentFlavor !== undefined && currentZone !== undefined && current.metadata?.name === names.nodePool(currentFlavor, currentZone)) {
    if (spec.nodeFlavor !== undefined && spec.nodeFlavor !== currentFlavor) {
      return {
        ok: false,
        reason: "UnsupportedChange",
        message: `nodeFlavor cannot change from ${currentFlavor} to ${spec.nodeFlavor} in place; set it back to ${currentFlavor}`,
        rejected: [],
      };
    }
    // A matched pool whose flavor no longer gives what MachineCapabilities ask would report a match that is not applied.
    const misses = spec.nodeFlavor === undefined ? matcher.misses(currentFlavor) : undefined;
    if (misses !== undefined && misses.length > 0) {
      return {
        ok: false,
        reason: "UnsupportedChange",
        message: `the node pool runs ${currentFlavor}, which lacks what MachineCapabilities "${spec.machineCapabilitiesRef.name}" now asks (${misses.join(", ")}); a running pool's flavor cannot change in place: restore the capabilities, or create a new KubernetesCluster`,
        rejected: [],
      };
    }
    // The decision that made this pool stays what status says; only a pool made before status recorded it gets a new reason.
    const recorded = kc.status?.flavor?.name === currentFlavor ? kc.status.flavor : undefined;
    const source = recorded?.source ?? (spec.nodeFlavor === undefined ? "Matched" : "Pinned");
    return { ok: true, flavor: currentFlavor, zone: currentZone, source, reason: recorded?.reason ?? `the node pool runs ${currentFlavor}`, rejected: match.rejected };
  }
  return match;
}

/** The node-pool login key: made once, kept in a Secret beside the managed resources so a restart reuses it. */
async function sshPublicKey(writes: InfrastructureWrites, metadata: ReturnType<Meta>, holder: SecretHolder): Promise<string> {
  type KeySecret = KubeObject & { data?: Record<string, string> };
  // Generating an RSA key costs tens of milliseconds: only when there is none yet.
  const secret =
    (await writes.get<KeySecret>(SECRETS, metadata.namespace, metadata.name)) ??
    (await writes.createIfAbsent<KeySecret>(SECRETS, { apiVersion: "v1", kind: "Secret", metadata, type: "kubernetes.io/ssh-auth", data: await newLoginKey(holder) }));
  const stored = secret.data?.["ssh-publickey"];
  if (stored === undefined) throw new Error(`the node login key Secret ${metadata.name} has no ssh-publickey`);
  return Buffer.from(stored, "base64").toString("utf8");
}

/** Off the event loop (libuv's thread pool): with many tenants ordering at once, synchronous generation stalled every other tenant's work. */
const generateRsaKeyPair = promisify(generateKeyPair);

async function newLoginKey(holder: SecretHolder): Promise<Record<string, string>> {
  const { publicKey, privateKey } = await generateRsaKeyPair("rsa", { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: "pkcs1", format: "pem" });
  holdSecrets(holder, [privatePem]);
  return {
    "ssh-privatekey": Buffer.from(privatePem).toString("base64"),
    "ssh-publickey": Buffer.from(openSshPublicKey(publicKey.export({ format: "jwk" }) as RsaPublicJwk)).toString("base64"),
  };
}

interface Network {
  readonly vpcId?: string;
  readonly networkId?: string;
  readonly condition: StepCondition;
}

/** The VPC and subnet: the user's, or ours (created only when the spec names none). */
async function ensureNetwork(pass: Pass, kc: DeepReadonly<KubernetesCluster>, observed: ObservedInfrastructure, names: ClusterObjectNames, meta: Meta, common: Common): Promise<Network> {
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  if (spec.vpcID !== undefined && spec.subnetID !== undefined) {
    return { vpcId: spec.vpcID, networkId: spec.subnetID, condition: { status: "True", reason: "Provided", message: "using the VPC and subnet named in the spec" } };
  }
  await pass.writes.apply(VPC_V1, renderVpc({ ...common, metadata: meta(names.vpc), name: names.otc.vpc }));
  const vpc = stateCondition(observed.vpc, "the VPC");
  const vpcId = vpc.status === "True" ? observedId(observed.vpc) : undefined;
  if (vpcId === undefined) return { condition: vpc };
  await pass.writes.apply(SUBNET_V1, renderSubnet({ ...common, metadata: meta(names.subnet), name: names.otc.subnet, vpcId }));
  const subnet = stateCondition(observed.subnet, "the subnet");
  const networkId = subnet.status === "True" ? subnetNetworkId(observed.subnet) : undefined;
  if (networkId === undefined) return { vpcId, condition: subnet };
  return { vpcId, networkId, condition: { status: "True", reason: "Available", message: "the VPC and subnet are available" } };
}

/**
 * The node count a pool was last seen serving (Ready: Synced for its
 * generation, CCE phase ""), kept on its NodePoolV3, where the tenant cannot
 * write. CCE counts a pool's nodes (`currentNode`) but the Crossplane
 * provider does not expose it, so a pool that once served is taken to run
 * nodes for as long as it exists.
 */
export const SERVED_NODES_ANNOTATION = "platform.edgeconnect.eu/served-nodes";

export function servedNodes(pool: Observed | undefined): number {
  const served = Number(pool?.metadata?.annotations?.[SERVED_NODES_ANNOTATION] ?? "0");
  return Number.isSafeInteger(served) && served > 0 ? served : 0;
}

/**
 * What the pool's NodePoolV3 records of the nodes it served: the count the
 * provider observed in CCE while the pool is Ready, else what it recorded
 * before. Observed, not asked for: the pass that raises `initialNodeCount`
 * still finds the pool Ready (the provider's update was made after its last
 * observation), and a count asked for but never served is no node to keep.
 */
export function servedAnnotation(pool: Observed | undefined): Record<string, string> {
  const count = pool?.status?.atProvider?.["initialNodeCount"];
  const served = managedResourceState(pool).state === "Ready" && typeof count === "number" && Number.isSafeInteger(count) ? count : servedNodes(pool);
  return served > 0 ? { [SERVED_NODES_ANNOTATION]: String(served) } : {};
}

/**
 * The worker node pool at the chosen flavor and zone. A pool that never
 * served and is found SoldOut is recorded first (`recordSoldOut`, so a
 * restart remembers it), then, for a matched flavor, the next candidate gets
 * a new pool and the sold-out one goes; a pinned flavor stays and the tenant
 * is told what to change. A pool that served nodes is never replaced: when
 * CCE cannot serve its scale-up, it keeps its nodes and CCE keeps trying,
 * and the tenant is told how to stop waiting.
 */
async function ensureNodePool(
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  observed: ObservedInfrastructure,
  names: ClusterObjectNames,
  meta: Meta,
  common: Common & { clusterId: string; keypairName: string },
  initial: Choice,
  matcher: Matcher,
  report: StatusReport,
  recordSoldOut: (pairs: readonly FlavorZone[]) => Promise<void>,
): Promise<Choice> {
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  let choice = initial as FlavorChoice & Choice;
  for (;;) {
    const name = names.nodePool(choice.flavor, choice.zone);
    const pool = observed.nodePools.find((candidate) => candidate.metadata?.name === name);
    if (pool === undefined || !isSoldOut(pool) || pool.metadata?.deletionTimestamp !== undefined || servedNodes(pool) > 0) break;
    if (choice.source === "Pinned") {
      report.step(CONDITION.NodePoolReady, {
        status: "False",
        reason: "SoldOut",
        message: `OTC has no capacity for flavor ${choice.flavor} in ${choice.zone === RANDOM_ZONE ? "any zone" : `zone ${choice.zone}`}; set spec.nodeFlavor to another offered flavor, set nodeAvailableZone to random, or lower nodeCount`,
      });
      return choice;
    }
    const soldOut = report.addSoldOut(choice.flavor, choice.zone);
    await recordSoldOut(soldOut);
    const next = matcher(soldOut);
    if (!next.ok) {
      report.step(CONDITION.NodePoolReady, { status: "False", reason: "SoldOut", message: `every matching flavor is sold out (${soldOut.map((entry) => entry.flavor).join(", ")}); ${next.message}` });
      return next;
    }
    report.event("Warning", "FlavorSoldOut", `flavor ${choice.flavor} is sold out in ${choice.zone === RANDOM_ZONE ? "every zone" : `zone ${choice.zone}`}; moving the node pool to ${next.flavor}`);
    choice = next;
  }
  const name = names.nodePool(choice.flavor, choice.zone);
  const pool = observed.nodePools.find((candidate) => candidate.metadata?.name === name);
  const metadata = meta(name);
  await pass.writes.apply(
    NODE_POOL_V3,
    renderNodePool({
      ...common,
      metadata: withAnnotations(metadata, servedAnnotation(pool)),
      name: names.otc.nodePool(choice.flavor, choice.zone),
      flavor: choice.flavor,
      availabilityZone: choice.zone,
      nodeCount: spec.nodeCount,
      nodeDiskGiB: toGiB(spec.nodeDiskSize),
    }),
  );
  for (const stale of observed.nodePools) {
    // Never a pool that served: its nodes are the tenant's running workload, whatever else changed.
    if (stale.metadata?.name !== name && stale.metadata?.deletionTimestamp === undefined && servedNodes(stale) === 0) {
      await pass.writes.delete(NODE_POOL_V3, stale.metadata?.namespace, stale.metadata?.name ?? "");
    }
  }
  const served = servedNodes(pool);
  if (isSoldOut(pool) && served > 0) {
    const where = choice.zone === RANDOM_ZONE ? "any zone" : `zone ${choice.zone}`;
    const message = `OTC has no capacity for ${spec.nodeCount} × ${choice.flavor} in ${where}: the ${served} running nodes are kept and OTC keeps trying to add the rest; set nodeCount to ${served} to stop waiting`;
    // The condition's change is the tenant's Warning Event too.
    report.step(CONDITION.NodePoolReady, { status: "False", reason: "ScaleUpSoldOut", message });
    return choice;
  }
  const scaled = (forProvider(pool)?.initialNodeCount as number | undefined) === spec.nodeCount;
  const condition = stateCondition(pool, `the node pool (${spec.nodeCount} × ${choice.flavor})`);
  report.step(CONDITION.NodePoolReady, condition.status === "True" && !scaled ? { status: "Unknown", reason: "Scaling", message: `the node pool is scaling to ${spec.nodeCount} nodes` } : condition);
  return choice;
}
