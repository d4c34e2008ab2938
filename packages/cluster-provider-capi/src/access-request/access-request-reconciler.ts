/**
 * The access-request controller: an AccessRequest this provider is
 * responsible for (openMCP's labels and phases) becomes, in the workload
 * cluster, a ServiceAccount with exactly the Roles, ClusterRoles and
 * bindings `spec.token` asks for, and, in the AccessRequest's namespace,
 * the Secret `<name>.kubeconfig` with an expiring token of that
 * ServiceAccount (`kubeconfig`, `host`, `ca.crt`, `token`, timestamps);
 * `status.secretRef` names it and the phase becomes `Granted`.
 *
 * The Cluster API admin kubeconfig is only the means to do this: handing it
 * out would give every requester cluster-admin for as long as the cluster
 * lives, which is what openMCP's per-request Secrets exist to avoid.
 *
 * Tokens live 30 days unless `spec.ttl` asks for less, and are renewed after
 * 80 % of their lifetime, as openMCP's kind and Gardener providers do;
 * objects a changed request no longer needs are deleted; deleting the
 * AccessRequest deletes its ServiceAccount (which voids its tokens), its
 * RBAC objects and its Secret. Nothing that exists and was not made for the
 * request is ever written to or deleted (controller-utils' clusteraccess
 * does the same). A granted request stays granted while its Cluster is
 * busy or away (see access-outcome.ts), and costs no workload-cluster call
 * while its Secret is current.
 *
 * An OIDC request (`spec.oidc`) gets Roles and bindings for the issuer's
 * users and groups, named with the request's prefixes, and a kubeconfig
 * that logs in at the issuer; that the workload API server trusts the
 * issuer is the template's part (see the README).
 */
import type { AccessRequestV1alpha1, AccessRequestV1alpha1Status } from "@edgeconnect/capi-provider-api";
import { ACCESS_REQUEST, CAPI_CLUSTER, objectPath } from "@edgeconnect/capi-provider-api";
import { deleteIfPresent, getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import {
  applyStatus,
  finalize,
  hasFinalizer,
  isConditionTrue,
  joinKey,
  registerSecret,
  type DeepReadonly,
  type EventRecorder,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Store,
} from "@edgeconnect/runtime";
import {
  accessDataDigest,
  accessSecretData,
  accessSecretName,
  accessSecretTimes,
  accessTokenBasis,
  DATA_DIGEST_ANNOTATION,
  TOKEN_BASIS_ANNOTATION,
  tokenKubeconfig,
} from "../access/access-kubeconfig.js";
import { oidcKubeconfig, oidcSecretData } from "../access/oidc-kubeconfig.js";
import { renderOidcAccess, type OidcAccess, type OidcSpec } from "../access/oidc-access.js";
import {
  accessObjects,
  renderTokenAccess,
  staleObjects,
  TokenAccessError,
  type AccessObject,
  type AccessRequestIdentity,
  type GrantedAccess,
  type TokenAccess,
} from "../access/token-access.js";
import { DurationError, needsRenewal, renewAt, tokenExpirationSeconds } from "../access/token-lifetime.js";
import type { OpenMcpCluster } from "../config/provider-config-reconciler.js";
import { OPERATION } from "../openmcp/constants.js";
import { operationOf } from "../openmcp/operation-annotation.js";
import { clearReconcileAnnotation } from "../provider/reconcile-annotation.js";
import { isResponsibleForAccessRequest } from "../openmcp/responsibility.js";
import { carriesLabels, providerKeys, type ProviderIdentity, type ProviderKeys } from "../provider/provider-identity.js";
import { controllerConditions } from "../provider/status-conditions.js";
import type { WorkloadCluster, WorkloadClusters } from "./workload-cluster.js";
import { platformKey } from "../provider/platform-keys.js";
import { ACCESS_CONDITIONS, denied, grantFailure, ResourceNotManagedError, statusDecision, waiting, type Outcome } from "./access-outcome.js";

export type AccessRequest = AccessRequestV1alpha1 & KubeObject;

/**
 * Token lifetime without `spec.ttl`, and the longest one issued: 30 days,
 * as openMCP's kind and Gardener providers issue them. openmcp-operator
 * reads its access once at start-up and refreshes what it hands out only
 * every few days, so a shorter token breaks it.
 */
const TOKEN_SECONDS = 30 * 24 * 3600;

/** Where objects of each kind live, to list this request's leftovers. */
const LISTS: readonly { readonly kind: AccessObject["kind"]; readonly path: (accessNamespace: string) => string }[] = [
  { kind: "ServiceAccount", path: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts` },
  { kind: "Role", path: () => "/apis/rbac.authorization.k8s.io/v1/roles" },
  { kind: "RoleBinding", path: () => "/apis/rbac.authorization.k8s.io/v1/rolebindings" },
  { kind: "ClusterRole", path: () => "/apis/rbac.authorization.k8s.io/v1/clusterroles" },
  { kind: "ClusterRoleBinding", path: () => "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings" },
];

export interface AccessRequestReconcilerOptions {
  readonly identity: ProviderIdentity;
  readonly client: RestClient;
  readonly accessRequests: Store<AccessRequest>;
  readonly clusters: Store<OpenMcpCluster>;
  readonly workloads: WorkloadClusters;
  /** Namespace of the ServiceAccounts in workload clusters (`--access-namespace`). */
  readonly accessNamespace: string;
  readonly recorder: EventRecorder;
  readonly now?: () => Date;
}

/** A ServiceAccount token with these permissions, valid this long. */
interface TokenGrant {
  readonly kind: "token";
  readonly access: TokenAccess;
  readonly expirationSeconds: number;
}

/** Roles and bindings for the users and groups of an OIDC issuer the workload cluster trusts, and a kubeconfig that logs in there. */
interface OidcGrant {
  readonly kind: "oidc";
  readonly access: OidcAccess;
  readonly oidc: OidcSpec;
}

/** What to grant on which Cluster, once the request and the platform allow it. */
interface Grantable {
  readonly outcome?: undefined;
  readonly ref: { readonly namespace: string; readonly name: string };
  readonly cluster: DeepReadonly<OpenMcpCluster>;
  readonly grant: TokenGrant | OidcGrant;
}

/** What the request and the platform decide before any workload cluster is asked: an outcome, or what to grant where. */
type Plan = { readonly outcome: Outcome } | Grantable;

/** The parts of a live access object the grant compares. */
interface LiveAccessObject {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>> };
  readonly roleRef?: { readonly kind?: string; readonly name?: string };
}

interface AccessSecret {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> };
  readonly data?: Readonly<Record<string, string>>;
}

export class AccessRequestReconciler implements Reconciler {
  private readonly keys: ProviderKeys;

  constructor(private readonly options: AccessRequestReconcilerOptions) {
    this.keys = providerKeys(options.identity);
  }

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const ar = this.options.accessRequests.get(joinKey(request));
    if (ar === undefined || operationOf(ar) === OPERATION.Ignore) return undefined;
    // The contract's responsibility, or a deletion behind our finalizer still to release.
    const releasing = ar.metadata.deletionTimestamp !== undefined && hasFinalizer(ar, this.keys.finalizers.accessRequest);
    if (!releasing && !isResponsibleForAccessRequest(ar, this.options.identity.providerName)) return undefined;
    const client = this.options.client.withSignal(signal);
    const path = objectPath(ACCESS_REQUEST, request.namespace, request.name);
    // The finalizer patch changes nothing the plan reads, so one plan serves the object before and after it.
    const plan = ar.metadata.deletionTimestamp === undefined ? await this.plan(client, ar as AccessRequest) : undefined;
    // Until a workload cluster is to be written to, nothing needs revoking, so there is no
    // finalizer: a denied or waiting request is deleted at once, reachable workload or not.
    const early = hasFinalizer(ar, this.keys.finalizers.accessRequest) ? undefined : plan?.outcome;
    const result =
      early !== undefined
        ? await this.report(client, ar as AccessRequest, early)
        : await finalize(client, path, ar as AccessRequest, this.keys.finalizers.accessRequest, {
            apply: async (live) => {
              // apply runs only for a live object, which has its plan.
              const planned = plan ?? (await this.plan(client, live));
              if (planned.outcome?.phase === "Denied") await this.revoke(client, live, signal, { workload: !isClusterDeleting(planned.outcome) });
              return this.report(client, live, planned.outcome ?? (await this.tryGrant(client, live, planned, signal)));
            },
            // A workload whose Cluster API Cluster is being deleted may no longer answer, and takes the objects with it.
            cleanup: async (live) => this.revoke(client, live, signal, { workload: !(await this.clusterGoing(client, live)) }),
          });
    await clearReconcileAnnotation(client, path, ar);
    return result;
  }

  /**
   * The grant's outcome. A failure that may pass by itself (an unreachable or
   * refusing workload cluster) is written into status and thrown, to be retried
   * with backoff; a conflict only a person can resolve is an outcome, looked at
   * again after a while.
   */
  private async tryGrant(client: RestClient, ar: AccessRequest, grantable: Grantable, signal: AbortSignal): Promise<Outcome> {
    try {
      return await this.grant(client, ar, grantable, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const failure = grantFailure(err);
      if (!failure.retry) return failure.outcome;
      await this.writeStatus(client, ar, failure.outcome).catch(() => undefined);
      throw err;
    }
  }

  /** Writes the outcome into status; a granted token comes back for renewal, a wait for the kubeconfig after a while. */
  private async report(client: RestClient, ar: AccessRequest, outcome: Outcome): Promise<Result | undefined> {
    await this.writeStatus(client, ar, outcome);
    if (outcome.phase === "Granted") return outcome.renewAt === undefined ? undefined : { requeueAfterMs: Math.max(1_000, outcome.renewAt.getTime() - this.now().getTime()) };
    return outcome.phase === "Pending" && outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
  }

  private async plan(client: RestClient, ar: AccessRequest): Promise<Plan> {
    const deny = (reason: string, message: string): Plan => ({ outcome: denied(reason, message) });
    const wait = (reason: string, message: string): Plan => ({ outcome: waiting(reason, message) });
    // Token first when both are set, as openMCP's Gardener provider decides.
    const { token, oidc } = ar.spec ?? {};
    const asked = token !== undefined ? { kind: "token" as const, token } : oidc !== undefined ? { kind: "oidc" as const, oidc } : undefined;
    if (asked === undefined) return deny("InvalidRequest", "spec.token or spec.oidc is required");
    const ref = ar.spec?.clusterRef;
    if (ref === undefined) return wait("WaitingForClusterRef", "spec.clusterRef is not set yet (openMCP sets it from spec.requestRef)");
    const cluster = this.options.clusters.get(platformKey(ref.name, ref.namespace));
    if (cluster === undefined) return wait("ClusterNotFound", `Cluster ${ref.namespace}/${ref.name} does not exist`);
    // Foreign finalizers may hold a deleted Cluster for long, and its users need their access meanwhile.
    if (await this.clusterGoing(client, ar)) {
      return deny(CLUSTER_DELETING, `Cluster ${ref.namespace}/${ref.name} is being deleted`);
    }
    if (cluster.status?.phase !== "Ready") return wait("ClusterNotReady", `Cluster ${ref.namespace}/${ref.name} is not Ready`);
    try {
      const grant: TokenGrant | OidcGrant =
        asked.kind === "token"
          ? {
              kind: "token",
              access: renderTokenAccess(asked.token, this.identityOf(ar), { serviceAccountNamespace: this.options.accessNamespace }),
              expirationSeconds: tokenExpirationSeconds(ar.spec?.ttl, { default: TOKEN_SECONDS, max: TOKEN_SECONDS }),
            }
          : { kind: "oidc", access: renderOidcAccess(asked.oidc, this.identityOf(ar)), oidc: asked.oidc };
      return { ref, cluster, grant };
    } catch (err) {
      if (err instanceof TokenAccessError || err instanceof DurationError) return deny("InvalidRequest", err.message);
      throw err;
    }
  }

  private async grant(client: RestClient, ar: AccessRequest, { ref, cluster, grant }: Grantable, signal: AbortSignal): Promise<Outcome> {
    const workload = await this.options.workloads.connect(cluster.metadata.namespace ?? "", cluster.metadata.name ?? "", signal);
    if (workload === undefined) return waiting("KubeconfigNotFound", `Cluster API has not written the kubeconfig of Cluster ${ref.namespace}/${ref.name} yet`, 10_000);
    try {
      const secretName = accessSecretName(ar.metadata.name ?? "");
      const secretPath = accessSecretPath(ar);
      const basis = accessTokenBasis({
        generation: ar.metadata.generation ?? 0,
        ...(grant.kind === "token" ? { serviceAccount: grant.access.serviceAccount.metadata, expirationSeconds: grant.expirationSeconds } : {}),
        server: workload.server,
        caCrt: workload.caCrt,
        cluster: ref,
      });
      // Read from the API server, not a cache: whether to issue a token must not rest on a view older than our last write.
      const existing = await getIfPresent<AccessSecret>(client, secretPath);
      if (existing !== undefined && !this.isOurSecret(existing)) throw new ResourceNotManagedError("Secret", secretName, ar.metadata.namespace, "platform");
      const data = existing?.data === undefined ? undefined : decode(existing.data);
      const annotations = existing?.metadata?.annotations ?? {};
      // Written for what the request asks today, and not edited since.
      const intact = data !== undefined && annotations[TOKEN_BASIS_ANNOTATION] === basis && annotations[DATA_DIGEST_ANNOTATION] === accessDataDigest(data);
      const secret = { path: secretPath, name: secretName, basis };
      if (grant.kind === "oidc") {
        // Nothing in an OIDC Secret expires: it is rewritten only when it no longer fits the request.
        if (!intact || !this.grantedCompletely(ar, secretName)) await this.ensureObjects(workload, grant.access);
        if (!intact) await this.writeOidcSecret(client, ar, workload, grant.oidc, secret);
        return {
          phase: "Granted",
          secretName,
          conditions: [
            { type: "ClusterReady", status: "True", reason: "Ready", message: `Cluster ${ref.namespace}/${ref.name} is Ready` },
            { type: "AccessGranted", status: "True", reason: "OIDCAccessGranted", message: `Secret ${secretName} holds a kubeconfig that logs in at ${grant.oidc.issuer}` },
            { type: "AccessUpToDate", status: "True", reason: "UpToDate", message: "the workload cluster holds exactly the access the request asks for" },
          ],
        };
      }
      const times = intact ? accessSecretTimes(data) : undefined;
      const current = times !== undefined && !needsRenewal(this.now(), times.createdAt, times.expiresAt);
      // A request this provider granted completely for this generation, whose token is current, needs nothing from its workload cluster.
      if (!current || !this.grantedCompletely(ar, secretName)) await this.ensureObjects(workload, grant.access);
      const lifetime = current ? times : await this.issueToken(client, ar, workload, grant, secret);
      return {
        phase: "Granted",
        secretName,
        renewAt: renewAt(lifetime.createdAt, lifetime.expiresAt),
        conditions: [
          { type: "ClusterReady", status: "True", reason: "Ready", message: `Cluster ${ref.namespace}/${ref.name} is Ready` },
          { type: "AccessGranted", status: "True", reason: "TokenIssued", message: `Secret ${secretName} holds a token valid until ${lifetime.expiresAt.toISOString()}` },
          { type: "AccessUpToDate", status: "True", reason: "UpToDate", message: "the workload cluster holds exactly the access the request asks for" },
        ],
      };
    } finally {
      workload.close();
    }
  }

  /** Whether the request's Cluster is being deleted and Cluster API has begun to delete it. */
  private async clusterGoing(client: RestClient, ar: AccessRequest): Promise<boolean> {
    const ref = ar.spec?.clusterRef;
    const cluster = ref === undefined ? undefined : this.options.clusters.get(platformKey(ref.name, ref.namespace));
    return ref !== undefined && cluster?.metadata.deletionTimestamp !== undefined && (await clusterApiDeletionStarted(client, ref));
  }

  /** Whether an earlier pass granted this generation with all its objects, and nobody asked for a full reconcile since. */
  private grantedCompletely(ar: AccessRequest, secretName: string): boolean {
    const status = ar.status;
    return (
      status?.phase === "Granted" &&
      status.secretRef?.name === secretName &&
      isConditionTrue(status.conditions, "AccessUpToDate", ar.metadata.generation) &&
      operationOf(ar) !== OPERATION.Reconcile
    );
  }

  /**
   * Namespaces, the ServiceAccount and RBAC objects this request asks for,
   * and none it no longer does. Every object is checked before any is
   * written: one that exists and was not made for this request stops the
   * grant (`ResourceNotManagedError`) with nothing changed.
   */
  private async ensureObjects(workload: WorkloadCluster, access: GrantedAccess): Promise<void> {
    const objects = accessObjects(access);
    // One call at a time, as every other call to a workload cluster: a request holds at most one of its connections.
    const live: (LiveAccessObject | undefined)[] = [];
    for (const object of objects) live.push(await getIfPresent<LiveAccessObject>(workload.client, accessObjectPath(object.kind, object.metadata)));
    objects.forEach((object, i) => {
      const found = live[i];
      if (found !== undefined && !carriesLabels(found, access.selector)) {
        throw new ResourceNotManagedError(object.kind, object.metadata.name, "namespace" in object.metadata ? object.metadata.namespace : undefined, "workload");
      }
    });
    const namespaces = access.serviceAccount === undefined ? access.namespaces : [this.options.accessNamespace, ...access.namespaces];
    for (const namespace of new Set(namespaces)) await ensureNamespace(workload.client, namespace, this.keys.fieldManager);
    for (const [i, object] of objects.entries()) {
      const path = accessObjectPath(object.kind, object.metadata);
      // roleRef is immutable: a binding that must now point elsewhere is replaced, not patched into a 422.
      const found = live[i];
      if ("roleRef" in object && found?.roleRef !== undefined && (found.roleRef.kind !== object.roleRef.kind || found.roleRef.name !== object.roleRef.name)) {
        await deleteIfPresent(workload.client, path);
      }
      await workload.client.apply(path, object, this.keys.fieldManager);
    }
    const existing = await this.listManaged(workload, access.selector);
    for (const stale of staleObjects(existing, access)) {
      await deleteIfPresent(workload.client, accessObjectPath(stale.kind, stale.metadata));
    }
  }

  private async issueToken(client: RestClient, ar: AccessRequest, workload: WorkloadCluster, { access, expirationSeconds }: TokenGrant, secret: SecretTarget): Promise<{ createdAt: Date; expiresAt: Date }> {
    const sa = access.serviceAccount.metadata;
    const response = await workload.client.request<{ status?: { token?: string; expirationTimestamp?: string } }>(
      "POST",
      `/api/v1/namespaces/${encodeURIComponent(sa.namespace)}/serviceaccounts/${encodeURIComponent(sa.name)}/token`,
      { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds } } },
    );
    const token = response.status?.token;
    const expires = response.status?.expirationTimestamp;
    if (token === undefined || expires === undefined) throw new Error("the workload cluster answered a TokenRequest without a token");
    // Hidden from this process's output for as long as the token can be used (plus redaction's grace period).
    registerSecret(token, { until: Date.now() + expirationSeconds * 1000 });
    const createdAt = this.now();
    const expiresAt = new Date(expires);
    const cluster = ar.spec?.clusterRef ?? { namespace: "", name: "" };
    const kubeconfig = tokenKubeconfig({ server: workload.server, caCrt: workload.caCrt, token, cluster });
    await writeAccessSecret(client, ar, this.keys, secret, accessSecretData({ kubeconfig, host: workload.server, caCrt: workload.caCrt, token, createdAt, expiresAt }));
    this.options.recorder.event(ar, "Normal", "TokenIssued", `issued a token valid until ${expiresAt.toISOString()} into Secret ${secret.name}`);
    return { createdAt, expiresAt };
  }

  /** The kubeconfig that logs in at the request's issuer; it holds no credential. */
  private async writeOidcSecret(client: RestClient, ar: AccessRequest, workload: WorkloadCluster, oidc: OidcSpec, secret: SecretTarget): Promise<void> {
    const cluster = ar.spec?.clusterRef ?? { namespace: "", name: "" };
    const kubeconfig = oidcKubeconfig({ server: workload.server, caCrt: workload.caCrt, issuer: oidc.issuer, clientID: oidc.clientID, extraScopes: oidc.extraScopes, providerName: oidc.name, cluster });
    await writeAccessSecret(client, ar, this.keys, secret, oidcSecretData({ kubeconfig, host: workload.server, caCrt: workload.caCrt, clientID: oidc.clientID }));
    this.options.recorder.event(ar, "Normal", "OIDCAccessGranted", `wrote a kubeconfig that logs in at ${oidc.issuer} into Secret ${secret.name}`);
  }

  /**
   * Takes back what the request was given: its objects on the workload
   * cluster (unless that cluster is being deleted anyway: a dying API server
   * would hold the request for nothing) and its Secret, each only if it was
   * made for the request.
   */
  private async revoke(client: RestClient, ar: AccessRequest, signal: AbortSignal, { workload: onWorkload }: { workload: boolean }): Promise<Result | undefined> {
    const ref = ar.spec?.clusterRef;
    const cluster = ref === undefined ? undefined : this.options.clusters.get(platformKey(ref.name, ref.namespace));
    // A Cluster that is gone took its ServiceAccounts with it.
    if (onWorkload && cluster !== undefined) {
      const workload = await this.options.workloads.connect(cluster.metadata.namespace ?? "", cluster.metadata.name ?? "", signal);
      if (workload !== undefined) {
        try {
          const selector = renderTokenAccess({ permissions: [], roleRefs: [] }, this.identityOf(ar), { serviceAccountNamespace: this.options.accessNamespace }).selector;
          for (const object of await this.listManaged(workload, selector)) await deleteIfPresent(workload.client, accessObjectPath(object.kind, object.metadata));
        } finally {
          workload.close();
        }
      }
    }
    const secret = await getIfPresent<AccessSecret>(client, accessSecretPath(ar));
    if (secret !== undefined && this.isOurSecret(secret)) await deleteIfPresent(client, accessSecretPath(ar));
    return undefined;
  }

  private async listManaged(workload: WorkloadCluster, selector: Readonly<Record<string, string>>): Promise<ManagedObject[]> {
    const labelSelector = Object.entries(selector).map(([key, value]) => `${key}=${value}`).join(",");
    const found: ManagedObject[] = [];
    for (const { kind, path } of LISTS) {
      const list = await workload.client.list<KubeObject>(path(this.options.accessNamespace), { query: { labelSelector } });
      for (const item of list.items) found.push({ kind, metadata: { name: item.metadata?.name ?? "", ...(item.metadata?.namespace === undefined ? {} : { namespace: item.metadata.namespace }), labels: item.metadata?.labels ?? {} } });
    }
    return found;
  }

  private async writeStatus(client: RestClient, ar: AccessRequest, outcome: Outcome): Promise<void> {
    const generation = ar.metadata.generation;
    const decision = statusDecision(ar.status, outcome);
    const conditions = controllerConditions(ar.status?.conditions, decision.conditions, ACCESS_CONDITIONS, generation);
    const status: AccessRequestV1alpha1Status = {
      observedGeneration: generation ?? 0,
      phase: decision.phase,
      conditions,
      ...(decision.secretName === undefined ? {} : { secretRef: { name: decision.secretName } }),
    };
    // Guarded: a status from an overtaken read would put back an old phase and generation, and a
    // Granted request whose observedGeneration lags its generation is no provider's any more.
    await applyStatus(client, objectPath(ACCESS_REQUEST, ar.metadata.namespace, ar.metadata.name ?? ""), ar, status, this.keys.fieldManager, {
      ...(ar.metadata.resourceVersion === undefined ? {} : { resourceVersion: ar.metadata.resourceVersion }),
    });
    if (decision.phase === "Denied" && ar.status?.phase !== "Denied") {
      const reason = decision.conditions[0];
      if (reason !== undefined) this.options.recorder.event(ar, "Warning", reason.reason, reason.message);
    }
  }

  /** Made by this provider: another provider's or someone else's Secret of the same name is never written or deleted. */
  private isOurSecret(secret: AccessSecret): boolean {
    return carriesLabels(secret, this.keys.labels);
  }

  private identityOf(ar: AccessRequest): AccessRequestIdentity {
    const { environment, providerName } = this.options.identity;
    return { environment, providerName, namespace: ar.metadata.namespace ?? "", name: ar.metadata.name ?? "", uid: ar.metadata.uid ?? "" };
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }
}

/** Where a request's Secret goes, and the basis it is written for. */
interface SecretTarget {
  readonly path: string;
  readonly name: string;
  readonly basis: string;
}

/** The request's Secret with `data`, owned by the request, marked with its basis and the digest of its data. */
async function writeAccessSecret(client: RestClient, ar: AccessRequest, keys: ProviderKeys, { path, name, basis }: SecretTarget, data: Readonly<Record<string, string>>): Promise<void> {
  await client.apply(
    path,
    {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name,
        namespace: ar.metadata.namespace,
        labels: { ...keys.labels },
        annotations: { [TOKEN_BASIS_ANNOTATION]: basis, [DATA_DIGEST_ANNOTATION]: accessDataDigest(data) },
        ownerReferences: [{ apiVersion: ACCESS_REQUEST.apiVersion, kind: ACCESS_REQUEST.kind, name: ar.metadata.name, uid: ar.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")])),
    },
    keys.fieldManager,
  );
}

const CLUSTER_DELETING = "ClusterDeleting";

function isClusterDeleting(outcome: Outcome): boolean {
  return outcome.conditions.some((c) => c.reason === CLUSTER_DELETING);
}

/**
 * Whether Cluster API has begun to delete the Cluster's machines: from then
 * on no grant is of use. Read live; it is asked only of Clusters being
 * deleted, and denying revokes.
 */
async function clusterApiDeletionStarted(client: RestClient, ref: { readonly namespace: string; readonly name: string }): Promise<boolean> {
  const capi = await getIfPresent<KubeObject>(client, objectPath(CAPI_CLUSTER, ref.namespace, ref.name));
  return capi === undefined || capi.metadata?.deletionTimestamp !== undefined;
}

/** Creates a namespace the access needs when it is missing; one that exists is left exactly as it is. */
async function ensureNamespace(client: RestClient, namespace: string, fieldManager: string): Promise<void> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}`;
  if ((await getIfPresent(client, path)) !== undefined) return;
  await client.apply(path, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, fieldManager);
}

interface ManagedObject {
  readonly kind: AccessObject["kind"];
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels: Readonly<Record<string, string>> };
}

function accessObjectPath(kind: AccessObject["kind"], metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined }): string {
  const name = encodeURIComponent(metadata.name ?? "");
  const namespace = encodeURIComponent(metadata.namespace ?? "");
  switch (kind) {
    case "ServiceAccount":
      return `/api/v1/namespaces/${namespace}/serviceaccounts/${name}`;
    case "Role":
      return `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles/${name}`;
    case "RoleBinding":
      return `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings/${name}`;
    case "ClusterRole":
      return `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
    case "ClusterRoleBinding":
      return `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`;
  }
}

/** The Secret a request's access goes into, in the request's namespace. */
function accessSecretPath(ar: AccessRequest): string {
  return `/api/v1/namespaces/${encodeURIComponent(ar.metadata.namespace ?? "")}/secrets/${encodeURIComponent(accessSecretName(ar.metadata.name ?? ""))}`;
}

function decode(data: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]));
}
