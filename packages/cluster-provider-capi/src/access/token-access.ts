/**
 * What a token AccessRequest (`spec.token`) needs on the workload cluster:
 * one ServiceAccount per request, a Role or ClusterRole per requested
 * permission bound to it, and a binding per referenced existing role.
 *
 * Everything is derived from the request's identity, never random, so a
 * controller that restarts finds what it made; and everything carries the
 * same labels, so what a request no longer asks for can be found and
 * deleted (`staleObjects`). Namespaces the request has us create are not
 * labelled for cleanup: other objects may live in them.
 */
import { isDnsLabel, labelValue } from "@edgeconnect/provisioning";
import { shortHash } from "@edgeconnect/provisioning";
import { MANAGED_BY } from "../provider/provider-identity.js";

/** A hash of (environment, provider, namespace, name) of the request: selects all of its objects. */
export const ACCESS_REQUEST_LABEL = "capi.clusters.edgeconnect.eu/access-request";
/** For people and `kubectl get -l`; shortened with a hash when too long for a label value. */
export const ACCESS_REQUEST_NAMESPACE_LABEL = "capi.clusters.edgeconnect.eu/access-request-namespace";
export const ACCESS_REQUEST_NAME_LABEL = "capi.clusters.edgeconnect.eu/access-request-name";
/** The request instance that last wrote the object; not part of the selector, so a request recreated under the same name adopts its predecessor's objects. */
export const ACCESS_REQUEST_UID_LABEL = "capi.clusters.edgeconnect.eu/access-request-uid";
export const DEFAULT_ACCESS_NAMESPACE = "openmcp-access";

const RBAC_GROUP = "rbac.authorization.k8s.io";
const RBAC_API_VERSION = `${RBAC_GROUP}/v1` as const;
/** 64 bits: the label selects one request's objects among all requests of all environments sharing a cluster. */
const HASH_CHARS = 16;
const MAX_LABEL = 63;

export interface PolicyRule {
  readonly apiGroups?: readonly string[] | undefined;
  readonly resources?: readonly string[] | undefined;
  readonly resourceNames?: readonly string[] | undefined;
  readonly nonResourceURLs?: readonly string[] | undefined;
  readonly verbs: readonly string[];
}

export interface PermissionRequest {
  /** The (Cluster)Role's name; generated when empty. */
  readonly name?: string | undefined;
  /** A Role in this namespace; a ClusterRole when empty. */
  readonly namespace?: string | undefined;
  readonly disableAutomaticNamespaceCreation?: boolean | undefined;
  readonly rules: readonly PolicyRule[];
}

export interface RoleRefRequest {
  /** `Role` (then `namespace` is required) or `ClusterRole` (then it must be empty). */
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
}

/** An AccessRequest's `spec.token`. */
export interface TokenSpec {
  readonly permissions?: readonly PermissionRequest[] | undefined;
  readonly roleRefs?: readonly RoleRefRequest[] | undefined;
}

export interface AccessRequestIdentity {
  /** openMCP environment (`--environment`). */
  readonly environment: string;
  /** This provider's name (`--provider-name`). */
  readonly providerName: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface TokenAccessOptions {
  /** Where the ServiceAccounts live; ours, created by the caller. */
  readonly serviceAccountNamespace: string;
}

export interface RenderedPolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

export interface ClusterScopedMetadata {
  name: string;
  labels: Record<string, string>;
}

export interface NamespacedMetadata extends ClusterScopedMetadata {
  namespace: string;
}

export interface ServiceAccount {
  apiVersion: "v1";
  kind: "ServiceAccount";
  metadata: NamespacedMetadata;
}

export interface Role {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "Role";
  metadata: NamespacedMetadata;
  rules: RenderedPolicyRule[];
}

export interface ClusterRole {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "ClusterRole";
  metadata: ClusterScopedMetadata;
  rules: RenderedPolicyRule[];
}

export interface ServiceAccountSubject {
  kind: "ServiceAccount";
  name: string;
  namespace: string;
}

export interface RoleBinding {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "RoleBinding";
  metadata: NamespacedMetadata;
  roleRef: { apiGroup: typeof RBAC_GROUP; kind: "Role"; name: string };
  subjects: ServiceAccountSubject[];
}

export interface ClusterRoleBinding {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "ClusterRoleBinding";
  metadata: ClusterScopedMetadata;
  roleRef: { apiGroup: typeof RBAC_GROUP; kind: "ClusterRole"; name: string };
  subjects: ServiceAccountSubject[];
}

export type AccessObject = ServiceAccount | Role | ClusterRole | RoleBinding | ClusterRoleBinding;

export interface TokenAccess {
  serviceAccount: ServiceAccount;
  /** One per permission, in the order requested. */
  roles: (Role | ClusterRole)[];
  /** One per permission, then one per roleRef, in the order requested. */
  bindings: (RoleBinding | ClusterRoleBinding)[];
  /** Namespaces to create if missing, in order of first mention: those of the permissions that do not disable it. */
  namespaces: string[];
  /** Labels (`matchLabels`) of every object of this request and no other. */
  selector: Record<string, string>;
}

/** A token spec that cannot be granted as it stands; the message says which field and why. */
export class TokenAccessError extends Error {
  override readonly name = "TokenAccessError";
}

/**
 * The objects for `spec` of the request `request`. The ServiceAccount is
 * `<namespace>-<name>` of the request as far as it fits, then a hash;
 * generated (Cluster)Role and binding names are
 * `openmcp:<serviceaccount>:permission:<i>` and
 * `openmcp:<serviceaccount>:roleref:<i>` (RBAC names may contain colons).
 * Throws `TokenAccessError` for a spec the API server would refuse.
 */
export function renderTokenAccess(spec: TokenSpec, request: AccessRequestIdentity, { serviceAccountNamespace }: TokenAccessOptions): TokenAccess {
  if (!isDnsLabel(serviceAccountNamespace)) throw new TypeError(`service account namespace ${JSON.stringify(serviceAccountNamespace)} is not a DNS-1123 label`);
  const hash = shortHash(["accessrequest", request.environment, request.providerName, request.namespace, request.name], HASH_CHARS);
  const selector = { ...MANAGED_BY, [ACCESS_REQUEST_LABEL]: hash };
  const labels = (): Record<string, string> => ({
    ...selector,
    [ACCESS_REQUEST_NAMESPACE_LABEL]: labelValue(request.namespace),
    [ACCESS_REQUEST_NAME_LABEL]: labelValue(request.name),
    [ACCESS_REQUEST_UID_LABEL]: labelValue(request.uid),
  });

  const saName = serviceAccountName(request, hash);
  const serviceAccount: ServiceAccount = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: saName, namespace: serviceAccountNamespace, labels: labels() } };
  const bind = (name: string, namespace: string, roleKind: "Role" | "ClusterRole", roleName: string): RoleBinding | ClusterRoleBinding => {
    const subjects: ServiceAccountSubject[] = [{ kind: "ServiceAccount", name: saName, namespace: serviceAccountNamespace }];
    return roleKind === "Role"
      ? { apiVersion: RBAC_API_VERSION, kind: "RoleBinding", metadata: { name, namespace, labels: labels() }, roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: roleName }, subjects }
      : { apiVersion: RBAC_API_VERSION, kind: "ClusterRoleBinding", metadata: { name, labels: labels() }, roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: roleName }, subjects };
  };

  const roles: (Role | ClusterRole)[] = [];
  const bindings: (RoleBinding | ClusterRoleBinding)[] = [];
  const namespaces = new Set<string>();

  (spec.permissions ?? []).forEach((permission, i) => {
    const field = `spec.token.permissions[${i}]`;
    const namespace = permission.namespace ?? "";
    if (namespace !== "" && !isDnsLabel(namespace)) throw new TokenAccessError(`${field}.namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
    const generated = `openmcp:${saName}:permission:${i}`;
    const roleName = permission.name === undefined || permission.name === "" ? generated : permission.name;
    if (!isRbacName(roleName)) throw new TokenAccessError(`${field}.name ${JSON.stringify(roleName)} must not be "." or ".." nor contain "/" or "%"`);
    const rules = permission.rules.map((rule, r) => renderRule(rule, `${field}.rules[${r}]`, namespace !== ""));
    if (namespace === "") {
      roles.push({ apiVersion: RBAC_API_VERSION, kind: "ClusterRole", metadata: { name: roleName, labels: labels() }, rules });
      bindings.push(bind(generated, namespace, "ClusterRole", roleName));
    } else {
      roles.push({ apiVersion: RBAC_API_VERSION, kind: "Role", metadata: { name: roleName, namespace, labels: labels() }, rules });
      bindings.push(bind(generated, namespace, "Role", roleName));
      if (permission.disableAutomaticNamespaceCreation !== true) namespaces.add(namespace);
    }
  });

  (spec.roleRefs ?? []).forEach((ref, i) => {
    const field = `spec.token.roleRefs[${i}]`;
    const namespace = ref.namespace ?? "";
    if (ref.kind !== "Role" && ref.kind !== "ClusterRole") throw new TokenAccessError(`${field}.kind must be Role or ClusterRole, got ${JSON.stringify(ref.kind)}`);
    if (!isRbacName(ref.name)) throw new TokenAccessError(`${field}.name ${JSON.stringify(ref.name)} must be non-empty, not "." or "..", and contain neither "/" nor "%"`);
    if (ref.kind === "Role" && !isDnsLabel(namespace)) throw new TokenAccessError(`${field}.namespace must be the DNS-1123 label of the Role's namespace, got ${JSON.stringify(namespace)}`);
    if (ref.kind === "ClusterRole" && namespace !== "") throw new TokenAccessError(`${field}.namespace must be empty for a ClusterRole, got ${JSON.stringify(namespace)}`);
    bindings.push(bind(`openmcp:${saName}:roleref:${i}`, namespace, ref.kind, ref.name));
  });

  const seen = new Set<string>();
  for (const role of roles) {
    const key = accessObjectKey(role);
    if (seen.has(key)) {
      const where = role.kind === "Role" ? ` in namespace ${JSON.stringify(role.metadata.namespace)}` : "";
      throw new TokenAccessError(`two permissions would make the ${role.kind} ${JSON.stringify(role.metadata.name)}${where}; give them different names`);
    }
    seen.add(key);
  }

  return { serviceAccount, roles, bindings, namespaces: [...namespaces], selector };
}

/** The objects of `access` in the order to apply them: the ServiceAccount, the roles, then the bindings that refer to both. */
export function accessObjects(access: TokenAccess): AccessObject[] {
  return [access.serviceAccount, ...access.roles, ...access.bindings];
}

export interface ExistingObject {
  /** Items of a List response carry no kind: the caller sets it from what it listed. */
  readonly kind: string;
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined; readonly labels?: Readonly<Record<string, string>> | undefined } | undefined;
}

/** Whether `obj` carries every label of `selector`: made by us for that request. */
export function managedByRequest(obj: Pick<ExistingObject, "metadata">, selector: Readonly<Record<string, string>>): boolean {
  const labels = obj.metadata?.labels ?? {};
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/**
 * The objects among `existing` that belong to the request of `desired`
 * but are no longer part of it, for deletion. Objects of other requests
 * and objects we did not make are never returned, whatever the caller listed.
 */
export function staleObjects<T extends ExistingObject>(existing: readonly T[], desired: TokenAccess): T[] {
  const wanted = new Set(accessObjects(desired).map(accessObjectKey));
  return existing.filter((o) => managedByRequest(o, desired.selector) && !wanted.has(objectKey(o.kind, o.metadata?.namespace, o.metadata?.name ?? "")));
}

function serviceAccountName(request: AccessRequestIdentity, hash: string): string {
  const readable = `${request.namespace}-${request.name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, MAX_LABEL - HASH_CHARS - 1)
    .replace(/^-+|-+$/g, "");
  return readable === "" ? hash : `${readable}-${hash}`;
}

/** Kubernetes' own PolicyRule validation, so that a bad rule denies the request instead of failing every apply. */
function renderRule(rule: PolicyRule, field: string, namespaced: boolean): RenderedPolicyRule {
  if (rule.verbs.length === 0) throw new TokenAccessError(`${field}.verbs must contain at least one verb`);
  const nonResourceURLs = rule.nonResourceURLs ?? [];
  if (nonResourceURLs.length > 0) {
    if (namespaced) throw new TokenAccessError(`${field}.nonResourceURLs are only allowed in a permission without namespace`);
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      throw new TokenAccessError(`${field} cannot apply to both resources and nonResourceURLs`);
    }
  } else {
    if ((rule.apiGroups ?? []).length === 0) throw new TokenAccessError(`${field}.apiGroups must name at least one API group ("" for the core group)`);
    if ((rule.resources ?? []).length === 0) throw new TokenAccessError(`${field}.resources must name at least one resource`);
  }
  return {
    ...(rule.apiGroups === undefined ? {} : { apiGroups: [...rule.apiGroups] }),
    ...(rule.resources === undefined ? {} : { resources: [...rule.resources] }),
    ...(rule.resourceNames === undefined ? {} : { resourceNames: [...rule.resourceNames] }),
    ...(rule.nonResourceURLs === undefined ? {} : { nonResourceURLs: [...rule.nonResourceURLs] }),
    verbs: [...rule.verbs],
  };
}

/** RBAC object names are path segments, not DNS names. */
function isRbacName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/%]/.test(name);
}

function accessObjectKey(o: AccessObject): string {
  return objectKey(o.kind, "namespace" in o.metadata ? o.metadata.namespace : undefined, o.metadata.name);
}

function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}\0${namespace ?? ""}\0${name}`;
}
