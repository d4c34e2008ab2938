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
 * Tokens are renewed after 80 % of their lifetime; objects a changed request
 * no longer needs are deleted; deleting the AccessRequest deletes its
 * ServiceAccount (which voids its tokens), its RBAC objects and its Secret.
 * OIDC requests are `Denied`: this provider issues tokens only.
 */
import type { AccessRequestV1alpha1, AccessRequestV1alpha1Status } from "@edgeconnect/capi-provider-api";
import { ACCESS_REQUEST, objectPath } from "@edgeconnect/capi-provider-api";
import { deleteIfPresent, getIfPresent, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import {
  applyStatus,
  finalize,
  hasFinalizer,
  joinKey,
  registerSecret,
  scrubText,
  type Condition,
  type ConditionUpdate,
  type DeepReadonly,
  type EventRecorder,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Store,
} from "@edgeconnect/runtime";
import { accessSecretData, accessSecretName, accessSecretTimes, accessTokenBasis, TOKEN_BASIS_ANNOTATION, tokenKubeconfig } from "../access/access-kubeconfig.js";
import { accessObjects, renderTokenAccess, staleObjects, TokenAccessError, type AccessObject, type AccessRequestIdentity, type TokenAccess } from "../access/token-access.js";
import { DurationError, needsRenewal, renewAt, tokenExpirationSeconds } from "../access/token-lifetime.js";
import type { OpenMcpCluster } from "../config/provider-config-reconciler.js";
import { OPERATION } from "../openmcp/constants.js";
import { operationOf } from "../openmcp/operation-annotation.js";
import { clearReconcileAnnotation } from "../provider/reconcile-annotation.js";
import { isResponsibleForAccessRequest } from "../openmcp/responsibility.js";
import { FIELD_MANAGER, FINALIZERS, MANAGED_BY, type ProviderIdentity } from "../provider/provider-identity.js";
import { controllerConditions } from "../provider/status-conditions.js";
import type { WorkloadCluster, WorkloadClusters } from "./workload-cluster.js";
import { platformKey } from "../provider/platform-keys.js";

export type AccessRequest = AccessRequestV1alpha1 & KubeObject;

const AR_CONDITIONS = ["ClusterReady", "AccessGranted"];

/** Token lifetime without `spec.ttl`, and the longest one asked for (longer requests get renewed tokens). */
const DEFAULT_TOKEN_SECONDS = 24 * 3600;
const MAX_TOKEN_SECONDS = 30 * 24 * 3600;

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

type Outcome =
  | { readonly phase: "Pending"; readonly conditions: readonly ConditionUpdate[]; readonly requeueAfterMs?: number }
  | { readonly phase: "Denied"; readonly conditions: readonly ConditionUpdate[] }
  | { readonly phase: "Granted"; readonly conditions: readonly ConditionUpdate[]; readonly secretName: string; readonly renewAt: Date };

/** What to grant on which Cluster, once the request and the platform allow it. */
interface Grantable {
  readonly outcome?: undefined;
  readonly ref: { readonly namespace: string; readonly name: string };
  readonly cluster: DeepReadonly<OpenMcpCluster>;
  readonly access: TokenAccess;
  readonly expirationSeconds: number;
}

/** What the request and the platform decide before any workload cluster is asked: an outcome, or what to grant where. */
type Plan = { readonly outcome: Outcome } | Grantable;

export class AccessRequestReconciler implements Reconciler {
  constructor(private readonly options: AccessRequestReconcilerOptions) {}

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const ar = this.options.accessRequests.get(joinKey(request));
    if (ar === undefined || operationOf(ar) === OPERATION.Ignore) return undefined;
    // The contract's responsibility, or a deletion behind our finalizer still to release.
    const releasing = ar.metadata.deletionTimestamp !== undefined && hasFinalizer(ar, FINALIZERS.accessRequest);
    if (!releasing && !isResponsibleForAccessRequest(ar, this.options.identity.providerName)) return undefined;
    const client = this.options.client.withSignal(signal);
    const path = objectPath(ACCESS_REQUEST, request.namespace, request.name);
    // The finalizer patch changes nothing the plan reads, so one plan serves the object before and after it.
    const plan = ar.metadata.deletionTimestamp === undefined ? this.plan(ar as AccessRequest) : undefined;
    // Until a workload cluster is to be written to, nothing needs revoking, so there is no
    // finalizer: a denied or waiting request is deleted at once, reachable workload or not.
    const early = hasFinalizer(ar, FINALIZERS.accessRequest) ? undefined : plan?.outcome;
    const result =
      early !== undefined
        ? await this.report(client, ar as AccessRequest, early)
        : await finalize(client, path, ar as AccessRequest, FINALIZERS.accessRequest, {
            apply: async (live) => {
              let outcome: Outcome;
              try {
                // apply runs only for a live object, which has its plan.
                const planned = plan ?? this.plan(live);
                outcome = planned.outcome ?? (await this.grant(client, live, planned, signal));
              } catch (err) {
                // Retried with backoff; meanwhile the request says why it waits, in words without credentials.
                if (!signal.aborted) {
                  const message = `could not reach the workload cluster or write the access: ${scrubText(err instanceof Error ? err.message : String(err))}`;
                  await this.writeStatus(client, live, { phase: "Pending", conditions: [{ type: "AccessGranted", status: "False", reason: "WorkloadClusterUnreachable", message }] }).catch(() => undefined);
                }
                throw err;
              }
              return this.report(client, live, outcome);
            },
            cleanup: (live) => this.revoke(client, live, signal),
          });
    await clearReconcileAnnotation(client, path, ar);
    return result;
  }

  /** Writes the outcome into status; a granted token comes back for renewal, a wait for the kubeconfig after a while. */
  private async report(client: RestClient, ar: AccessRequest, outcome: Outcome): Promise<Result | undefined> {
    await this.writeStatus(client, ar, outcome);
    if (outcome.phase === "Granted") return { requeueAfterMs: Math.max(1_000, outcome.renewAt.getTime() - this.now().getTime()) };
    return outcome.phase === "Pending" && outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
  }

  private plan(ar: AccessRequest): Plan {
    const deny = (reason: string, message: string): Plan => ({ outcome: { phase: "Denied", conditions: [{ type: "AccessGranted", status: "False", reason, message }] } });
    const wait = (reason: string, message: string): Plan => ({ outcome: pending(reason, message) });
    if (ar.spec?.oidc !== undefined) return deny("OIDCNotSupported", "this provider grants token access only: use spec.token instead of spec.oidc");
    if (ar.spec?.token === undefined) return deny("InvalidRequest", "spec.token is required");
    const ref = ar.spec.clusterRef;
    if (ref === undefined) return wait("WaitingForClusterRef", "spec.clusterRef is not set yet (openMCP sets it from spec.requestRef)");
    const cluster = this.options.clusters.get(platformKey(ref.name, ref.namespace));
    if (cluster === undefined) return wait("ClusterNotFound", `Cluster ${ref.namespace}/${ref.name} does not exist`);
    if (cluster.metadata.deletionTimestamp !== undefined) return deny("ClusterDeleting", `Cluster ${ref.namespace}/${ref.name} is being deleted`);
    if (cluster.status?.phase !== "Ready") return wait("ClusterNotReady", `Cluster ${ref.namespace}/${ref.name} is not Ready yet`);
    try {
      return {
        ref,
        cluster,
        access: renderTokenAccess(ar.spec.token, this.identityOf(ar), { serviceAccountNamespace: this.options.accessNamespace }),
        expirationSeconds: tokenExpirationSeconds(ar.spec.ttl, { default: DEFAULT_TOKEN_SECONDS, max: MAX_TOKEN_SECONDS }),
      };
    } catch (err) {
      if (err instanceof TokenAccessError || err instanceof DurationError) return deny("InvalidRequest", err.message);
      throw err;
    }
  }

  private async grant(client: RestClient, ar: AccessRequest, { ref, cluster, access, expirationSeconds }: Grantable, signal: AbortSignal): Promise<Outcome> {
    const workload = await this.options.workloads.connect(cluster.metadata.namespace ?? "", cluster.metadata.name ?? "", signal);
    if (workload === undefined) return pending("KubeconfigNotFound", `Cluster API has not written the kubeconfig of Cluster ${ref.namespace}/${ref.name} yet`, 10_000);
    try {
      await this.ensureObjects(workload, access);
      const secretName = accessSecretName(ar.metadata.name ?? "");
      const secretPath = accessSecretPath(ar);
      const basis = accessTokenBasis({
        generation: ar.metadata.generation ?? 0,
        serviceAccount: access.serviceAccount.metadata,
        expirationSeconds,
        server: workload.server,
        caCrt: workload.caCrt,
        cluster: ref,
      });
      const existing = await getIfPresent<{ metadata?: { annotations?: Record<string, string> }; data?: Record<string, string> }>(client, secretPath);
      const times = existing?.data === undefined ? undefined : accessSecretTimes(decode(existing.data));
      const current = times !== undefined && existing?.metadata?.annotations?.[TOKEN_BASIS_ANNOTATION] === basis && !needsRenewal(this.now(), times.createdAt, times.expiresAt);
      const lifetime = current ? times : await this.issueToken(client, ar, workload, { access, secretPath, secretName, expirationSeconds, basis });
      return {
        phase: "Granted",
        secretName,
        renewAt: renewAt(lifetime.createdAt, lifetime.expiresAt),
        conditions: [
          { type: "ClusterReady", status: "True", reason: "Ready", message: `Cluster ${ref.namespace}/${ref.name} is Ready` },
          { type: "AccessGranted", status: "True", reason: "TokenIssued", message: `Secret ${secretName} holds a token valid until ${lifetime.expiresAt.toISOString()}` },
        ],
      };
    } finally {
      workload.close();
    }
  }

  /** Namespaces, the ServiceAccount and RBAC objects this request asks for, and none it no longer does. */
  private async ensureObjects(workload: WorkloadCluster, access: TokenAccess): Promise<void> {
    for (const namespace of [this.options.accessNamespace, ...access.namespaces]) {
      await workload.client.apply(`/api/v1/namespaces/${encodeURIComponent(namespace)}`, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, FIELD_MANAGER);
    }
    for (const object of accessObjects(access)) await workload.client.apply(accessObjectPath(object.kind, object.metadata), object, FIELD_MANAGER);
    const existing = await this.listManaged(workload, access.selector);
    for (const stale of staleObjects(existing, access)) {
      await deleteIfPresent(workload.client, accessObjectPath(stale.kind, stale.metadata));
    }
  }

  private async issueToken(
    client: RestClient,
    ar: AccessRequest,
    workload: WorkloadCluster,
    { access, secretPath, secretName, expirationSeconds, basis }: { access: TokenAccess; secretPath: string; secretName: string; expirationSeconds: number; basis: string },
  ): Promise<{ createdAt: Date; expiresAt: Date }> {
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
    const data = accessSecretData({ kubeconfig, host: workload.server, caCrt: workload.caCrt, token, createdAt, expiresAt });
    await client.apply(
      secretPath,
      {
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: {
          name: secretName,
          namespace: ar.metadata.namespace,
          labels: { ...MANAGED_BY },
          annotations: { [TOKEN_BASIS_ANNOTATION]: basis },
          ownerReferences: [{ apiVersion: ACCESS_REQUEST.apiVersion, kind: ACCESS_REQUEST.kind, name: ar.metadata.name, uid: ar.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")])),
      },
      FIELD_MANAGER,
    );
    this.options.recorder.event(ar, "Normal", "TokenIssued", `issued a token valid until ${expiresAt.toISOString()} into Secret ${secretName}`);
    return { createdAt, expiresAt };
  }

  private async revoke(client: RestClient, ar: AccessRequest, signal: AbortSignal): Promise<Result | undefined> {
    const ref = ar.spec?.clusterRef;
    const cluster = ref === undefined ? undefined : this.options.clusters.get(platformKey(ref.name, ref.namespace));
    // A Cluster that is gone took its ServiceAccounts with it.
    if (cluster !== undefined) {
      const workload = await this.options.workloads.connect(cluster.metadata.namespace ?? "", cluster.metadata.name ?? "", signal);
      if (workload !== undefined) {
        try {
          const selector = renderTokenAccess(
            { permissions: [], roleRefs: [] },
            this.identityOf(ar),
            { serviceAccountNamespace: this.options.accessNamespace },
          ).selector;
          for (const object of await this.listManaged(workload, selector)) await deleteIfPresent(workload.client, accessObjectPath(object.kind, object.metadata));
        } finally {
          workload.close();
        }
      }
    }
    await deleteIfPresent(client, accessSecretPath(ar));
    return undefined;
  }

  private async listManaged(workload: WorkloadCluster, selector: Readonly<Record<string, string>>): Promise<ManagedObject[]> {
    const labelSelector = Object.entries(selector).map(([key, value]) => `${key}=${value}`).join(",");
    const found: ManagedObject[] = [];
    for (const { kind, path } of LISTS) {
      const list = await workload.client.list<KubeObject>(path(this.options.accessNamespace), { query: { labelSelector } });
      for (const item of (list).items) found.push({ kind, metadata: { name: item.metadata?.name ?? "", ...(item.metadata?.namespace === undefined ? {} : { namespace: item.metadata.namespace }), labels: item.metadata?.labels ?? {} } });
    }
    return found;
  }

  private async writeStatus(client: RestClient, ar: AccessRequest, outcome: Outcome): Promise<void> {
    const generation = ar.metadata.generation;
    const previous = (ar.status?.conditions ?? []) as Condition[];
    const conditions = controllerConditions(previous, outcome.conditions, AR_CONDITIONS, generation);
    const status: AccessRequestV1alpha1Status = {
      observedGeneration: generation ?? 0,
      phase: outcome.phase,
      conditions,
      ...(outcome.phase === "Granted" ? { secretRef: { name: outcome.secretName } } : {}),
    };
    // Guarded: a status from an overtaken read would put back an old phase and generation, and a
    // Granted request whose observedGeneration lags its generation is no provider's any more.
    await applyStatus(client, objectPath(ACCESS_REQUEST, ar.metadata.namespace, ar.metadata.name ?? ""), ar, status, FIELD_MANAGER, {
      ...(ar.metadata.resourceVersion === undefined ? {} : { resourceVersion: ar.metadata.resourceVersion }),
    });
    if (outcome.phase === "Denied" && ar.status?.phase !== "Denied") {
      const reason = outcome.conditions[0];
      if (reason !== undefined) this.options.recorder.event(ar, "Warning", reason.reason, reason.message);
    }
  }

  private identityOf(ar: AccessRequest): AccessRequestIdentity {
    const { environment, providerName } = this.options.identity;
    return { environment, providerName, namespace: ar.metadata.namespace ?? "", name: ar.metadata.name ?? "", uid: ar.metadata.uid ?? "" };
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }
}

/** Waiting for the Cluster: both conditions say so. */
function pending(reason: string, message: string, requeueAfterMs?: number): Outcome {
  return {
    phase: "Pending",
    conditions: [{ type: "ClusterReady", status: "False", reason, message }, { type: "AccessGranted", status: "False", reason, message: "waiting for the cluster" }],
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
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
