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
 *
 * OIDC access (oidc-access.ts) makes its roles and bindings with the same
 * building blocks (`requestScope`, `renderRole`, `checkRoleRef`,
 * `renderBinding`), so both kinds go through the same apply and cleanup.
 */
import { isDnsLabel, labelValue } from "@edgeconnect/provisioning";
import { shortHash } from "@edgeconnect/provisioning";
import { carriesLabels, MANAGED_BY } from "../provider/provider-identity.js";

/** A hash of (environment, provider, namespace, name) of the request: selects all of its objects. */
export const ACCESS_REQUEST_LABEL = "capi.clusters.openmcp.cloud/access-request";
/** For people and `kubectl get -l`; shortened with a hash when too long for a label value. */
export const ACCESS_REQUEST_NAMESPACE_LABEL = "capi.clusters.openmcp.cloud/access-request-namespace";
export const ACCESS_REQUEST_NAME_LABEL = "capi.clusters.openmcp.cloud/access-request-name";
/** The request instance that last wrote the object; not part of the selector, so a request recreated under the same name adopts its predecessor's objects. */
export const ACCESS_REQUEST_UID_LABEL = "capi.clusters.openmcp.cloud/access-request-uid";
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

/** A user or group as the API server's authenticator names it (OIDC access binds these). */
export interface UserOrGroupSubject {
  kind: "User" | "Group";
  apiGroup: typeof RBAC_GROUP;
  name: string;
}

export type Subject = ServiceAccountSubject | UserOrGroupSubject;

/** Token access binds its ServiceAccount only, hence the default. */
export interface RoleBinding<S extends Subject = ServiceAccountSubject> {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "RoleBinding";
  metadata: NamespacedMetadata;
  roleRef: { apiGroup: typeof RBAC_GROUP; kind: "Role"; name: string };
  subjects: S[];
}

export interface ClusterRoleBinding<S extends Subject = ServiceAccountSubject> {
  apiVersion: typeof RBAC_API_VERSION;
  kind: "ClusterRoleBinding";
  metadata: ClusterScopedMetadata;
  roleRef: { apiGroup: typeof RBAC_GROUP; kind: "ClusterRole"; name: string };
  subjects: S[];
}

export type AccessObject = ServiceAccount | Role | ClusterRole | RoleBinding<Subject> | ClusterRoleBinding<Subject>;

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

/**
 * What token and OIDC access have in common, as the code that applies
 * them, lists what exists and deletes what is stale takes them.
 */
export interface GrantedAccess {
  readonly serviceAccount?: ServiceAccount | undefined;
  readonly roles: readonly (Role | ClusterRole)[];
  readonly bindings: readonly (RoleBinding<Subject> | ClusterRoleBinding<Subject>)[];
  readonly namespaces: readonly string[];
  readonly selector: Readonly<Record<string, string>>;
}

/** A token or OIDC spec that cannot be granted as it stands; the message says which field and why. */
export class TokenAccessError extends Error {
  override readonly name = "TokenAccessError";
}

/** What every object of one request carries, whatever kind of access it asks for. */
export interface RequestScope {
  /** `<namespace>-<name>` of the request as far as it fits, then a hash of its identity: a DNS label. */
  readonly baseName: string;
  /** Labels (`matchLabels`) of every object of this request and no other. */
  readonly selector: Record<string, string>;
  /** A fresh copy of the labels of each object: the selector and the readable ones. */
  labels(): Record<string, string>;
}

/** The names and labels of the objects of `request`: the same for a request recreated under the same name. */
export function requestScope(request: AccessRequestIdentity): RequestScope {
  const hash = shortHash(["accessrequest", request.environment, request.providerName, request.namespace, request.name], HASH_CHARS);
  const selector = { ...MANAGED_BY, [ACCESS_REQUEST_LABEL]: hash };
  return {
    baseName: baseName(request, hash),
    selector,
    labels: () => ({
      ...selector,
      [ACCESS_REQUEST_NAMESPACE_LABEL]: labelValue(request.namespace),
      [ACCESS_REQUEST_NAME_LABEL]: labelValue(request.name),
      [ACCESS_REQUEST_UID_LABEL]: labelValue(request.uid),
    }),
  };
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
  const scope = requestScope(request);
  const saName = scope.baseName;
  const serviceAccount: ServiceAccount = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: saName, namespace: serviceAccountNamespace, labels: scope.labels() } };
  const subjects = (): ServiceAccountSubject[] => [{ kind: "ServiceAccount", name: saName, namespace: serviceAccountNamespace }];

  const permissions = spec.permissions ?? [];
  const roles: (Role | ClusterRole)[] = [];
  const bindings: (RoleBinding | ClusterRoleBinding)[] = [];
  permissions.forEach((permission, i) => {
    const generated = `openmcp:${saName}:permission:${i}`;
    const role = renderRole(permission, `spec.token.permissions[${i}]`, generated, scope.labels());
    roles.push(role);
    bindings.push(renderBinding(generated, scope.labels(), roleRefOf(role), subjects()));
  });
  (spec.roleRefs ?? []).forEach((ref, i) => {
    const roleRef = checkRoleRef(ref, `spec.token.roleRefs[${i}]`);
    bindings.push(renderBinding(`openmcp:${saName}:roleref:${i}`, scope.labels(), roleRef, subjects()));
  });
  assertDistinctRoles(roles, "permissions");

  return { serviceAccount, roles, bindings, namespaces: namespacesToCreate(permissions), selector: scope.selector };
}

/**
 * A Role for a permission with a namespace, a ClusterRole otherwise, named
 * `permission.name` or else `generatedName`. `field` is the permission's
 * path in the request, for the error.
 */
export function renderRole(permission: PermissionRequest, field: string, generatedName: string, labels: Record<string, string>): Role | ClusterRole {
  const namespace = permission.namespace ?? "";
  if (namespace !== "" && !isDnsLabel(namespace)) throw new TokenAccessError(`${field}.namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
  const name = permission.name === undefined || permission.name === "" ? generatedName : permission.name;
  if (!isRbacName(name)) throw new TokenAccessError(`${field}.name ${JSON.stringify(name)} must not be "." or ".." nor contain "/" or "%"`);
  const rules = permission.rules.map((rule, r) => renderRule(rule, `${field}.rules[${r}]`, namespace !== ""));
  return namespace === ""
    ? { apiVersion: RBAC_API_VERSION, kind: "ClusterRole", metadata: { name, labels }, rules }
    : { apiVersion: RBAC_API_VERSION, kind: "Role", metadata: { name, namespace, labels }, rules };
}

/** A role to bind: a Role lives in `namespace`, a ClusterRole has none (""). */
export interface CheckedRoleRef {
  readonly kind: "Role" | "ClusterRole";
  readonly name: string;
  readonly namespace: string;
}

/** `ref` if the API server would accept a binding to it; `field` is its path in the request, for the error. */
export function checkRoleRef(ref: RoleRefRequest, field: string): CheckedRoleRef {
  const namespace = ref.namespace ?? "";
  if (ref.kind !== "Role" && ref.kind !== "ClusterRole") throw new TokenAccessError(`${field}.kind must be Role or ClusterRole, got ${JSON.stringify(ref.kind)}`);
  if (!isRbacName(ref.name)) throw new TokenAccessError(`${field}.name ${JSON.stringify(ref.name)} must be non-empty, not "." or "..", and contain neither "/" nor "%"`);
  if (ref.kind === "Role" && !isDnsLabel(namespace)) throw new TokenAccessError(`${field}.namespace must be the DNS-1123 label of the Role's namespace, got ${JSON.stringify(namespace)}`);
  if (ref.kind === "ClusterRole" && namespace !== "") throw new TokenAccessError(`${field}.namespace must be empty for a ClusterRole, got ${JSON.stringify(namespace)}`);
  return { kind: ref.kind, name: ref.name, namespace };
}

/** A RoleBinding, in the Role's namespace, for a Role; a ClusterRoleBinding for a ClusterRole. */
export function renderBinding<S extends Subject>(name: string, labels: Record<string, string>, role: CheckedRoleRef, subjects: S[]): RoleBinding<S> | ClusterRoleBinding<S> {
  return role.kind === "Role"
    ? { apiVersion: RBAC_API_VERSION, kind: "RoleBinding", metadata: { name, namespace: role.namespace, labels }, roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: role.name }, subjects }
    : { apiVersion: RBAC_API_VERSION, kind: "ClusterRoleBinding", metadata: { name, labels }, roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role.name }, subjects };
}

/** The namespaces of `permissions` that do not disable their creation, once each, in order of first mention. */
export function namespacesToCreate(permissions: readonly PermissionRequest[]): string[] {
  const namespaces = permissions.filter((p) => p.disableAutomaticNamespaceCreation !== true).map((p) => p.namespace ?? "");
  return [...new Set(namespaces.filter((ns) => ns !== ""))];
}

/** Two entries of a request making one object would overwrite each other on every pass; `what` names the entries. */
export function assertDistinctRoles(roles: readonly (Role | ClusterRole)[], what: string): void {
  const seen = new Set<string>();
  for (const role of roles) {
    const key = accessObjectKey(role);
    if (seen.has(key)) {
      const where = role.kind === "Role" ? ` in namespace ${JSON.stringify(role.metadata.namespace)}` : "";
      throw new TokenAccessError(`two ${what} would make the ${role.kind} ${JSON.stringify(role.metadata.name)}${where}; give them different names`);
    }
    seen.add(key);
  }
}

function roleRefOf(role: Role | ClusterRole): CheckedRoleRef {
  return { kind: role.kind, name: role.metadata.name, namespace: role.kind === "Role" ? role.metadata.namespace : "" };
}

/** The objects of `access` in the order to apply them: the ServiceAccount (token access), the roles, then the bindings that refer to both. */
export function accessObjects(access: GrantedAccess): AccessObject[] {
  return [...(access.serviceAccount === undefined ? [] : [access.serviceAccount]), ...access.roles, ...access.bindings];
}

export interface ExistingObject {
  /** Items of a List response carry no kind: the caller sets it from what it listed. */
  readonly kind: string;
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined; readonly labels?: Readonly<Record<string, string>> | undefined } | undefined;
}


/**
 * The objects among `existing` that belong to the request of `desired`
 * but are no longer part of it, for deletion. Objects of other requests
 * and objects we did not make are never returned, whatever the caller listed.
 */
export function staleObjects<T extends ExistingObject>(existing: readonly T[], desired: GrantedAccess): T[] {
  const wanted = new Set(accessObjects(desired).map(accessObjectKey));
  return existing.filter((o) => carriesLabels(o, desired.selector) && !wanted.has(objectKey(o.kind, o.metadata?.namespace, o.metadata?.name ?? "")));
}

function baseName(request: AccessRequestIdentity, hash: string): string {
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
