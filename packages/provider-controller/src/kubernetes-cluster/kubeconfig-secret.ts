/**
 * The tenant's kubeconfig, written as Secret `<name>-kubeconfig` (key
 * `kubeconfig`) next to the KubernetesCluster and owned by it. For OTC it
 * is issued by CCE (`clustercert`, with the tenant's own credentials and a
 * lifetime we choose) and renewed once a third of its lifetime is left or
 * when the cluster behind it changed; for ClusterAPI it is the admin kubeconfig
 * Cluster API keeps in the tenant namespace (`clusterApiKubeconfigSecret`),
 * copied whenever it changes (Cluster API renews its
 * certificate): the tenant owns the whole cluster. The key material is
 * held as a credential, by the cluster (secret-holders.ts), before it is
 * written.
 *
 * A Secret of that name without our KubernetesCluster's uid among its
 * ownerReferences is the tenant's: it is never written over or deleted.
 * Whether a Secret is ours, and whether a kubeconfig is due, is decided on
 * the API server's answer whenever the cache would have us write: the cache
 * can lag our own last write, and a certificate CCE issued cannot be taken
 * back. Ours carry SECRET_LABEL, without which the Secrets claim (and the
 * cache) would not show them to us; a tenant's Secret without it is found
 * only by creating ours under its name.
 */
import { SECRET_LABEL, type KubernetesCluster } from "@edgeconnect/api";
import { getIfPresent, HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { OtcApiError } from "@edgeconnect/otc";
import { kubeconfigForTenant, kubeconfigFromClusterCert, ownerLabels, type OtcCredentials } from "@edgeconnect/provisioning";
import { holdSecrets, type DeepReadonly } from "@edgeconnect/runtime";
import { FIELD_MANAGER, kindPath, SECRETS } from "../infrastructure/infrastructure-cluster.js";
import { clusterSecrets } from "../tenant/secret-holders.js";
import { kubernetesClusterPath, type Secret } from "../tenant/tenant-resources.js";
import type { Pass, ProvisionContext, StepCondition } from "./provision.js";

export const CLUSTER_ID_ANNOTATION = "platform.edgeconnect.eu/cluster-id";
export const ISSUED_ANNOTATION = "platform.edgeconnect.eu/issued";
export const EXPIRES_ANNOTATION = "platform.edgeconnect.eu/expires";
export const SERVER_ANNOTATION = "platform.edgeconnect.eu/server";
/**
 * Until when an issuance of ours may be under way: set to the end of the
 * claim's window before CCE is asked, and to the time the call ended once it
 * has (with the answer, or giving the claim up). A time past means none is.
 * It is overwritten, never left out: a claim that created the Secret wrote it
 * with a create, and a server-side apply that leaves out a field another
 * operation set does not remove it (the claim would hold for its whole window).
 */
export const ISSUING_ANNOTATION = "platform.edgeconnect.eu/issuing-until";
export const KUBECONFIG_KEY = "kubeconfig";
const DAY_MS = 24 * 3_600_000;

/**
 * Whether the kubeconfig a Secret's annotations describe is to be renewed:
 * once less than a third of its lifetime is left. A share of the lifetime,
 * not a fixed margin: a margin as long as the validity would renew on every
 * reconcile, and every write triggers the next one.
 */
export function kubeconfigRenewalDue(annotations: Readonly<Record<string, string>>, validityDays: number, now: Date): boolean {
  const expires = Date.parse(annotations[EXPIRES_ANNOTATION] ?? "");
  if (Number.isNaN(expires)) return true;
  const issued = Date.parse(annotations[ISSUED_ANNOTATION] ?? "");
  // Secrets written before the issue time was recorded: their lifetime was the validity of then, most likely today's.
  const lifetime = issued < expires ? expires - issued : validityDays * DAY_MS;
  return expires - now.getTime() < lifetime / 3;
}

interface HandedBack {
  readonly condition: StepCondition;
  readonly server?: string;
}

/**
 * How long one issuance may take, from its claim to the Secret holding the
 * answer: the credentials check, CCE's call and the write. A claim older
 * than this was left by an issuer that died or gave up; the certificate it
 * may have caused never reached anyone (its key travels only in CCE's
 * answer), and another is asked for.
 */
export const ISSUANCE_WINDOW_MS = 120_000;
/** The share of the window kept for writing the answer into the Secret: a loaded kcp may take this long to answer. */
const SECRET_WRITE_MS = 30_000;

/**
 * OTC: the kubeconfig CCE issues for the cluster `clusterId`, renewed
 * before it expires.
 *
 * CCE issues a certificate on every `clustercert` call and offers no way to
 * ask whether a call was served, so the call is made at most once per claim:
 * the claim (ISSUING_ANNOTATION on the Secret, written with the API server's
 * resourceVersion precondition) lets only one of two passes ask (a retry,
 * another replica taking the tenant over), and a pass that finds a claim
 * waits for the Secret, for the claim to be given up (the call ended without
 * an answer) or for it to lapse (its holder died). Once the call is sent it
 * is neither cut short by the pass's signal nor retried when its answer is
 * lost (`once`): a slow answer is still received and written.
 */
export async function ensureKubeconfig(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  clusterId: string,
  credentials: OtcCredentials,
): Promise<HandedBack> {
  const uid = kc.metadata?.uid ?? "";
  /** The server of the kubeconfig in `secret` while it is ours, for this CCE cluster and not due. */
  const currentServer = (secret: DeepReadonly<Secret> | undefined): string | undefined => {
    const annotations = secret?.metadata?.annotations ?? {};
    const due = annotations[CLUSTER_ID_ANNOTATION] !== clusterId || kubeconfigRenewalDue(annotations, context.kubeconfigValidityDays, context.now());
    return secret !== undefined && ours(secret, uid) && !due ? annotations[SERVER_ANNOTATION] : undefined;
  };
  const cachedServer = currentServer(tenantSecret(context, pass, secretName));
  if (cachedServer !== undefined) return { condition: held(secretName), server: cachedServer };
  const live = await liveSecret(pass, secretName);
  if (live !== undefined && !ours(live, uid)) return conflict(pass, secretName);
  const liveServer = currentServer(live);
  if (liveServer !== undefined) return { condition: held(secretName), server: liveServer };
  const now = context.now().getTime();
  const claimedUntil = issuingUntil(live);
  if (claimedUntil !== undefined && claimedUntil > now) return issuing(claimedUntil);

  // The claim also claims the name: a tenant's Secret we cannot see would otherwise cost a certificate on every pass.
  // A renewal keeps the kubeconfig in use meanwhile.
  const kept = { data: live?.data?.[KUBECONFIG_KEY], annotations: live?.metadata?.annotations ?? {} };
  const until = now + ISSUANCE_WINDOW_MS;
  let claimed: Secret | undefined;
  try {
    claimed = await writeKubeconfigSecret(pass, kc, secretName, live, { ...kept, annotations: { ...kept.annotations, [ISSUING_ANNOTATION]: new Date(until).toISOString() } });
  } catch (err) {
    // Changed since we read it: most likely another pass's claim, which the next pass finds.
    if (err instanceof HttpStatusError && err.status === 409) return issuing(until);
    throw err;
  }
  if (claimed === undefined) {
    // Created meanwhile: by another pass of ours (a claim), or it is the tenant's Secret we cannot see.
    const raced = await liveSecret(pass, secretName);
    return raced !== undefined && ours(raced, uid) ? issuing(issuingUntil(raced) ?? until) : conflict(pass, secretName);
  }

  // From here the pass's signal is not heeded: the issuance ends on its own deadline, within the claim's window,
  // and its answer is written under the claim's precondition whoever owns the tenant by then.
  const deadline = AbortSignal.timeout(ISSUANCE_WINDOW_MS - SECRET_WRITE_MS);
  const settling = (): RestClient => pass.scope.settlingClient(AbortSignal.timeout(SECRET_WRITE_MS));
  let certificate: unknown;
  // Each call may cost a certificate: the platform reads in the log when one was asked for and how it ended.
  pass.log.info({ clusterId, claimedUntil: new Date(until).toISOString() }, "asking CCE for a kubeconfig certificate");
  try {
    certificate = await context.gateway.clusterCertificate(credentials, clusterId, context.kubeconfigValidityDays, clusterSecrets(pass.request, "clustercert"), deadline);
  } catch (err) {
    // The call has ended, so nothing of ours can still land: the claim is given up and the next pass asks again.
    // An answer lost on the way (a timeout, a 5xx) may have cost a certificate that no one received.
    const message = `CCE did not issue a kubeconfig: ${err instanceof Error ? err.message : String(err)}`;
    pass.log.warn({ err, clusterId, refused: refusedBeforeIssuing(err) }, "CCE's kubeconfig call ended without a certificate");
    await writeKubeconfigSecret(pass, kc, secretName, claimed, { ...kept, annotations: { ...kept.annotations, ...callEnded(context) } }, settling());
    return unavailable(refusedBeforeIssuing(err) ? message : `${message}; its answer may have been lost, and another is asked for`);
  }
  const built = kubeconfigFromClusterCert(certificate, pass.request.name);
  if (!built.ok) return unavailable(built.message);
  const issued = context.now();
  await writeKubeconfigSecret(
    pass,
    kc,
    secretName,
    claimed,
    {
      data: Buffer.from(built.kubeconfig).toString("base64"),
      annotations: {
        [CLUSTER_ID_ANNOTATION]: clusterId,
        [ISSUED_ANNOTATION]: issued.toISOString(),
        [EXPIRES_ANNOTATION]: new Date(issued.getTime() + context.kubeconfigValidityDays * DAY_MS).toISOString(),
        [SERVER_ANNOTATION]: built.server,
        ...callEnded(context),
      },
    },
    settling(),
  );
  pass.log.info({ clusterId }, "kubeconfig certificate written");
  return { condition: held(secretName), server: built.server };
}

/** Ends a claim: the issuance is no longer under way. */
function callEnded(context: ProvisionContext): Record<string, string> {
  return { [ISSUING_ANNOTATION]: context.now().toISOString() };
}

/** Until when an issuance claimed in `secret` may still be under way; undefined without a readable claim. */
function issuingUntil(secret: DeepReadonly<Secret> | undefined): number | undefined {
  const until = Date.parse(secret?.metadata?.annotations?.[ISSUING_ANNOTATION] ?? "");
  return Number.isNaN(until) ? undefined : until;
}

/**
 * Whether the issuance failed before CCE could issue anything: CCE (or IAM)
 * answered with a refusal, or the credentials were rejected before the call.
 * A timeout, a lost answer or a 5xx may hide a certificate issued.
 */
function refusedBeforeIssuing(err: unknown): boolean {
  if (err instanceof OtcApiError) return err.status >= 400 && err.status < 500;
  return !(err instanceof DOMException);
}

/**
 * Copies Cluster API's admin kubeconfig of the cluster from Secret
 * `source` (key `source.key`, see `clusterApiKubeconfigSecret`) in the
 * tenant namespace to the tenant, renamed after the tenant's cluster
 * (`kubeconfigForTenant`); Unknown until Cluster API has written it.
 */
export async function handBackClusterApiKubeconfig(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  source: { readonly namespace: string; readonly name: string; readonly key: string },
): Promise<HandedBack> {
  const stored = await pass.writes.get<Secret>(SECRETS, source.namespace, source.name);
  const value = stored?.data?.[source.key];
  if (value === undefined || value === "") {
    return { condition: { status: "Unknown", reason: "WaitingForControlPlane", message: "the kubeconfig is handed over once the control plane is up" } };
  }
  const text = Buffer.from(value, "base64").toString("utf8");
  holdSecrets(clusterSecrets(pass.request, "capi-kubeconfig"), [value, text]);
  const built = kubeconfigForTenant(text, pass.request.name);
  if (!built.ok) return unavailable(`Cluster API's kubeconfig cannot be used: ${built.message}`);
  const uid = kc.metadata?.uid ?? "";
  const data = Buffer.from(built.kubeconfig).toString("base64");
  const current = (secret: DeepReadonly<Secret> | undefined): boolean =>
    secret !== undefined && ours(secret, uid) && secret.data?.[KUBECONFIG_KEY] === data && secret.metadata?.annotations?.[SERVER_ANNOTATION] === built.server;
  if (!current(tenantSecret(context, pass, secretName))) {
    const live = await liveSecret(pass, secretName);
    if (live !== undefined && !ours(live, uid)) return conflict(pass, secretName);
    const content = { data: Buffer.from(built.kubeconfig).toString("base64"), annotations: { [SERVER_ANNOTATION]: built.server } };
    if (!current(live) && (await writeKubeconfigSecret(pass, kc, secretName, live, content)) === undefined) {
      return conflict(pass, secretName);
    }
  }
  return { condition: held(secretName), server: built.server };
}

/**
 * Writes the tenant's Secret `secretName`, owned by the KubernetesCluster,
 * holding `content` (its base64 kubeconfig, if any, and its annotations; none:
 * the name is only claimed). `existing` is the API server's answer the write
 * was decided on, and a precondition of it: a Secret made or replaced since
 * makes the write fail instead of being written over. Undefined when a
 * Secret of the name exists that we cannot see (one without SECRET_LABEL):
 * the tenant's.
 */
async function writeKubeconfigSecret(
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  existing: DeepReadonly<Secret> | undefined,
  content: { readonly data?: string | undefined; readonly annotations: Readonly<Record<string, string>> } | undefined,
  client: RestClient = pass.scope.client,
): Promise<Secret | undefined> {
  const { namespace, name } = pass.request;
  const data = content?.data;
  if (data !== undefined) holdSecrets(clusterSecrets(pass.request, "kubeconfig"), [Buffer.from(data, "base64").toString("utf8"), data]);
  const owner = kc as unknown as KubeObject;
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: secretName,
      namespace,
      labels: { ...ownerLabels({ cluster: pass.request.cluster, namespace, name, uid: kc.metadata?.uid ?? "" }), [SECRET_LABEL.key]: SECRET_LABEL.value },
      ...(content === undefined || Object.keys(content.annotations).length === 0 ? {} : { annotations: content.annotations }),
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name, uid: kc.metadata?.uid, controller: true, blockOwnerDeletion: false }],
      ...(existing === undefined ? {} : { resourceVersion: existing.metadata?.resourceVersion }),
    },
    type: "Opaque",
    ...(data === undefined ? {} : { data: { [KUBECONFIG_KEY]: data } }),
  };
  if (existing !== undefined) return client.apply<Secret>(kindPath(SECRETS, namespace, secretName), secret, FIELD_MANAGER);
  try {
    return await client.create<Secret>(kindPath(SECRETS, namespace), secret);
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 409) return undefined;
    throw err;
  }
}

/** Whether `secret` is one we wrote for the KubernetesCluster of uid `uid`. */
function ours(secret: DeepReadonly<Secret>, uid: string): boolean {
  return uid !== "" && (secret.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid);
}

function tenantSecret(context: ProvisionContext, pass: Pass, secretName: string): DeepReadonly<Secret> | undefined {
  return pass.scope.lister(context.resources.secrets).get(pass.request.namespace, secretName);
}

function liveSecret(pass: Pass, secretName: string): Promise<Secret | undefined> {
  return getIfPresent<Secret>(pass.scope.client, kindPath(SECRETS, pass.request.namespace, secretName), { signal: pass.signal });
}

function held(secretName: string): StepCondition {
  return { status: "True", reason: "Issued", message: `Secret "${secretName}" holds the kubeconfig` };
}

function issuing(until: number): HandedBack {
  return { condition: { status: "Unknown", reason: "Issuing", message: `CCE is issuing the kubeconfig; it is asked again if none has arrived by ${new Date(until).toISOString()}` } };
}

function unavailable(message: string): HandedBack {
  return { condition: { status: "False", reason: "KubeconfigUnavailable", message } };
}

function conflict(pass: Pass, secretName: string): HandedBack {
  return {
    condition: {
      status: "False",
      reason: "KubeconfigSecretConflict",
      message: `Secret "${secretName}" in namespace "${pass.request.namespace}" was not made for this KubernetesCluster and is left as it is; rename or delete it to receive the kubeconfig there`,
    },
  };
}

/** What became of the tenant's kubeconfig Secret; teardown goes on whichever it is. */
export type KubeconfigDeletion = "deleted" | "absent" | "notOurs" | "forbidden";

/**
 * Deletes the tenant's kubeconfig Secret if it is ours. The
 * KubernetesCluster's uid that tells is read from the API server like the
 * Secret: the callers hold the cached object only.
 */
export async function deleteKubeconfig(pass: Pass, secretName: string): Promise<KubeconfigDeletion> {
  const { namespace, name } = pass.request;
  const path = kindPath(SECRETS, namespace, secretName);
  try {
    const secret = await liveSecret(pass, secretName);
    if (secret === undefined) return "absent";
    const owner = await getIfPresent<KubeObject>(pass.scope.client, kubernetesClusterPath(namespace, name), { signal: pass.signal });
    if (!ours(secret, owner?.metadata?.uid ?? "")) return "notOurs";
    await pass.scope.client.delete(path, { signal: pass.signal, body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: secret.metadata?.uid } } });
    return "deleted";
  } catch (err) {
    if (!(err instanceof HttpStatusError)) throw err;
    switch (err.status) {
      case 404:
        return "absent";
      // 403: the workspace rejected (or took back) the Secrets permission claim. Swallowed like 404: what
      // Secret there is stays, and the cloud resources must go whether or not we may see it.
      case 403:
        return "forbidden";
      // The uid precondition failed: the Secret was replaced after we read it, the new one is not ours.
      case 409:
        return "notOurs";
      default:
        throw err;
    }
  }
}
