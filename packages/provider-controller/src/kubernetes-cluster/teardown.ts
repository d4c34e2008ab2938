/**
 * Teardown of an OTC cluster behind the finalizer, child before parent and each stage
 * confirmed gone by the API server before the next is asked: node pools,
 * the CCE cluster, its EIP and key pair, the subnet, the VPC. What is left
 * of each is listed from the API server, not the caches: a resource made
 * just before the deletion, not cached yet, would otherwise stay in the
 * cloud. Only then the credentials Crossplane needed for those deletions
 * (deleting them first would leave the provider unable to delete anything;
 * until then every pass keeps them the tenant's current ones),
 * and last the tenant namespace, once nothing of the tenant is left in it
 * (a namespace deleted around managed resources hangs in Terminating).
 *
 * A stage still waiting says in the tenant's status what it waits on (the
 * step, Crossplane's reason and since when) and is looked at again the
 * later the longer it has waited.
 *
 * A namespace that is not the tenant's is never touched: nothing of ours
 * can be in it.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import {
  accountChange,
  accountOf,
  clusterObjectNames,
  CROSSPLANE_PROVIDER_CONFIG,
  recordedAccount,
  renderCredentialsSecret,
  tenantNamespace,
} from "@edgeconnect/provisioning";
import type { DeepReadonly } from "@edgeconnect/runtime";
import { deleteKubeconfig } from "./kubeconfig-secret.js";
import { ownedResources, TEARDOWN_STAGES } from "./observed-infrastructure.js";
import { SECRETS, type InfraKind } from "../infrastructure/infrastructure-cluster.js";
import { ownedMeta, type Pass, type ProvisionContext } from "./provision.js";
import { resolveCredentials } from "../tenant/tenant-credentials.js";
import type { StatusReport } from "./status-report.js";
import { ownsNamespace, releaseNamespace } from "./tenant-namespace.js";

/** How soon a stage that has just begun waiting is looked at again; watch events usually come first. */
export const STAGE_POLL_MS = 2_000;
/** How long a stage that has waited long goes without a look when no watch event comes: a cloud deletion stuck for hours costs a request a minute. */
export const MAX_STAGE_POLL_MS = 60_000;

const STAGE_NAMES = ["the node pool", "the CCE cluster", "the EIP and key pair", "the subnet", "the VPC"];

/** Crossplane's messages can be long; what follows them (since when) must survive the status message's bound. */
const MAX_DETAIL_CHARS = 300;

/**
 * A teardown step still waiting for something to go, for every provider
 * type: the status saying what (`message`) is written here, since the
 * reconciler writes none for a cluster being deleted (it may be gone once
 * the finalizer is), and the step is looked at again soon.
 */
export async function stillDeleting(pass: Pass, report: StatusReport, message: string): Promise<{ requeueAfterMs: number }> {
  report.deleting(message);
  await report.flush(pass);
  return { requeueAfterMs: STAGE_POLL_MS };
}

/**
 * How soon to look again at a stage that has waited `waitingMs`:
 * STAGE_POLL_MS at first, then the largest doubling of it that the wait has
 * reached, at most MAX_STAGE_POLL_MS. Derived from the wait alone, nothing
 * counted across passes: a restarted controller polls as its predecessor
 * would have.
 */
export function stagePollMs(waitingMs: number): number {
  if (!(waitingMs >= 2 * STAGE_POLL_MS)) return STAGE_POLL_MS;
  return Math.min(MAX_STAGE_POLL_MS, STAGE_POLL_MS * 2 ** Math.floor(Math.log2(waitingMs / STAGE_POLL_MS)));
}

/**
 * What a waiting teardown waits on: written into the tenant's status, and
 * small enough to count stuck teardowns by (kind, reason, age).
 */
export interface TeardownBlocker {
  readonly kind: string;
  readonly name: string;
  /** The reason of its Synced or Ready condition, when Crossplane gave one. */
  readonly reason?: string;
  /** Since when it waits as it does, in ms since the epoch: the later of its deletion and its condition's last transition. */
  readonly sinceMs: number;
  /** What it waits on, for the tenant: its condition (`Synced=False ReconcileError: …`), else the finalizers that hold it. */
  readonly detail?: string;
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

type Conditioned = KubeObject & { status?: { conditions?: Condition[] } };

/**
 * `obj` (of `kind`) as the blocker of a teardown at `now`. An object listed
 * before this pass asked for its deletion has no deletionTimestamp in hand:
 * it waits since `now`.
 */
export function teardownBlocker(kind: string, obj: DeepReadonly<Conditioned>, now: Date): TeardownBlocker {
  const conditions = obj.status?.conditions ?? [];
  const synced = conditions.find((c) => c.type === "Synced");
  const ready = conditions.find((c) => c.type === "Ready");
  // Failing to sync says most, else why it is not Ready; a Synced and Ready resource (the provider has not acted on the deletion yet) says nothing.
  const condition = synced !== undefined && synced.status !== "True" ? synced : ready !== undefined && ready.status !== "True" ? ready : undefined;
  const deletedMs = timeMs(obj.metadata?.deletionTimestamp) ?? now.getTime();
  const finalizers = obj.metadata?.finalizers ?? [];
  const detail = condition !== undefined ? describeCondition(condition) : finalizers.length > 0 ? `finalizers: ${finalizers.join(", ")}` : undefined;
  return {
    kind,
    name: obj.metadata?.name ?? "",
    ...(condition?.reason === undefined ? {} : { reason: condition.reason }),
    sinceMs: Math.max(deletedMs, timeMs(condition?.lastTransitionTime) ?? -Infinity),
    ...(detail === undefined ? {} : { detail }),
  };
}

/**
 * `deleting the node pool: waiting (Synced=False ReconcileError: …) since 2026-01-02T10:05:00Z`,
 * for the tenant: in the tenant's terms (the step), never the managed
 * resource's kind and name, which are the infrastructure's (the platform
 * reads them in the console's tree and the metrics); where Crossplane's
 * words repeat the name, the step stands in. StatusReport strips what else
 * the words hold (addresses, namespaces).
 */
export function blockerMessage(step: string, blocker: TeardownBlocker): string {
  const detail = blocker.detail === undefined ? "" : ` (${blocker.name === "" ? blocker.detail : blocker.detail.split(blocker.name).join(step)})`;
  const since = new Date(blocker.sinceMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  return `deleting ${step}: waiting${detail} since ${since}`;
}

function describeCondition(condition: Condition): string {
  const message = condition.message === undefined || condition.message === "" ? "" : `: ${bounded(condition.message)}`;
  return `${condition.type}=${condition.status}${condition.reason === undefined ? "" : ` ${condition.reason}`}${message}`;
}

function bounded(text: string): string {
  return text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS - 1)}…`;
}

function timeMs(timestamp: string | undefined): number | undefined {
  const ms = timestamp === undefined ? NaN : Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms;
}

export async function teardown(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number } | undefined> {
  const result = await teardownStages(context, pass, kc, report);
  context.teardowns?.teardownBlocked(kc.metadata?.uid ?? "", result.blocker);
  return result.next;
}

async function teardownStages(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  report: StatusReport,
): Promise<{ next?: { requeueAfterMs: number }; blocker?: TeardownBlocker }> {
  const { request, writes } = pass;
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  await deleteKubeconfig(pass, names.kubeconfigSecret);
  const namespace = tenantNamespace(request.cluster).name;
  if (!(await ownsNamespace(writes, namespace, request.cluster))) return {};
  await refreshCredentialsCopy(context, pass, kc, namespace, names.credentialsSecret(request.namespace, kc.spec?.providerRef.configRef?.name ?? ""));
  const now = context.now();

  for (const [index, stage] of TEARDOWN_STAGES.entries()) {
    const waiting: TeardownBlocker[] = [];
    for (const { kind, obj } of await ownedResources(writes, namespace, request, stage)) {
      if (!(await deleted(pass, kind, namespace, obj))) waiting.push(teardownBlocker(kind.kind, obj, now));
    }
    // The one waiting longest: what holds the stage up.
    const blocker = waiting.reduce<TeardownBlocker | undefined>((oldest, next) => (oldest === undefined || next.sinceMs < oldest.sinceMs ? next : oldest), undefined);
    if (blocker !== undefined) return waitingOn(context, pass, report, STAGE_NAMES[index] ?? "cloud resources", blocker);
  }

  // Every Crossplane ProviderConfig made for the cluster, also one it no longer names (superseded-provider-configs.ts).
  // crossplane-runtime holds each (finalizer in-use.crossplane.io) while usages of it exist; those go with their managed
  // resources, by garbage collection. Its credentials go first: nothing needs them once the managed resources are gone,
  // and a ProviderConfig left behind by a crash is found again, a Secret would not be.
  for (const { obj: config } of await ownedResources(writes, namespace, request, [CROSSPLANE_PROVIDER_CONFIG])) {
    const secret = (config.spec as { credentials?: { secretRef?: { name?: string } } } | undefined)?.credentials?.secretRef?.name;
    if (secret !== undefined) await writes.delete(SECRETS, namespace, secret);
    if (!(await deleted(pass, CROSSPLANE_PROVIDER_CONFIG, namespace, config))) {
      return waitingOn(context, pass, report, "the credentials", teardownBlocker(CROSSPLANE_PROVIDER_CONFIG.kind, config, now));
    }
  }
  await writes.delete(SECRETS, namespace, names.keypair);
  await releaseNamespace(context, pass, namespace);
  return {};
}

/**
 * Crossplane deletes with the copy of the tenant's credentials in the tenant
 * namespace (`secretName`), which a full provisioning pass writes. A pass
 * that stopped early (a refused change) or a teardown that has begun no
 * longer writes it, so credentials rotated since would leave every deletion
 * failing whatever the tenant fixes: each teardown pass writes the tenant's
 * current credentials into it when IAM accepts them for the account it was
 * made for. Only a copy that is there is written (a teardown must not make
 * a Secret its last stage would not find), and only when it differs.
 */
async function refreshCredentialsCopy(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, namespace: string, secretName: string): Promise<void> {
  const configName = kc.spec?.providerRef.configRef?.name;
  if (configName === undefined) return;
  const copy = await pass.writes.get<KubeObject & { data?: Record<string, string> }>(SECRETS, namespace, secretName);
  if (copy === undefined || copy.metadata?.deletionTimestamp !== undefined) return;
  const credentials = await resolveCredentials(context, pass.scope, pass.request.namespace, configName, pass.signal);
  // Nothing better to give Crossplane: it keeps what it has, and the tenant's conditions said why when the credentials changed.
  if (!credentials.ok) return;
  const account = accountOf(credentials.credentials, credentials.projectId);
  const recorded = recordedAccount(copy.metadata?.annotations);
  if (recorded !== undefined && accountChange(recorded, account) !== undefined) return;
  const current = renderCredentialsSecret(ownedMeta(pass.request, kc, namespace, account)(secretName), credentials.credentials);
  if (JSON.stringify(current.data) === JSON.stringify(copy.data)) return;
  await pass.writes.apply(SECRETS, current);
}

/** Asks for `obj` to go unless it is going already (asking again changes nothing); true once it is gone. */
async function deleted(pass: Pass, kind: InfraKind, namespace: string, obj: DeepReadonly<KubeObject>): Promise<boolean> {
  if (obj.metadata?.deletionTimestamp !== undefined) return false;
  return pass.writes.delete(kind, namespace, obj.metadata?.name ?? "");
}

/** stillDeleting for a step held up by `blocker`: the status names it, and the step is looked at again the later the longer it has waited. */
async function waitingOn(context: ProvisionContext, pass: Pass, report: StatusReport, step: string, blocker: TeardownBlocker): Promise<{ next: { requeueAfterMs: number }; blocker: TeardownBlocker }> {
  report.deletingBlocked(blockerMessage(step, blocker));
  await report.flush(pass);
  return { next: { requeueAfterMs: stagePollMs(context.now().getTime() - blocker.sinceMs) }, blocker };
}
