/**
 * What an OIDC AccessRequest (`spec.oidc`) needs on the workload cluster: a
 * Role or ClusterRole per entry of `roles`, and per entry of `roleBindings`
 * a binding of its subjects to each of its roles, as openMCP's Gardener
 * provider grants it (internal/controllers/accessrequest/access.go,
 * `ensureOIDCAccess`).
 *
 * Nothing here makes the API server trust the issuer: that is the template
 * set's job (its structured authentication configuration, see the README).
 * The subjects' names carry the prefixes openMCP's OIDCProviderConfig
 * defines, which the template set's claim mappings must use as well.
 *
 * Names and labels come from the request's identity like token access's
 * (token-access.ts), so the same apply, list and stale-deletion code
 * serves both.
 */
import { isDnsLabel, isDnsSubdomain } from "@edgeconnect/provisioning";
import {
  assertDistinctRoles,
  checkRoleRef,
  namespacesToCreate,
  renderBinding,
  renderRole,
  requestScope,
  TokenAccessError,
  type AccessRequestIdentity,
  type ClusterRole,
  type ClusterRoleBinding,
  type PermissionRequest,
  type Role,
  type RoleBinding,
  type RoleRefRequest,
  type Subject,
} from "./token-access.js";

const RBAC_GROUP = "rbac.authorization.k8s.io";
/** openMCP's marker for a subject name to be taken as it stands, without the provider's prefix. */
const UNPREFIXED = "::";

/** A subject of `spec.oidc.roleBindings[].subjects` (rbac/v1 Subject). */
export interface OidcSubjectRequest {
  readonly kind: string;
  readonly apiGroup?: string | undefined;
  readonly name: string;
  readonly namespace?: string | undefined;
}

export interface OidcRoleBindingsRequest {
  readonly subjects?: readonly OidcSubjectRequest[] | undefined;
  readonly roleRefs?: readonly RoleRefRequest[] | undefined;
}

/** An AccessRequest's `spec.oidc`: openMCP's OIDCProviderConfig plus `roles`. */
export interface OidcSpec {
  /** The provider's name; `<name>:` is the default prefix of its users and groups. */
  readonly name: string;
  readonly issuer: string;
  readonly clientID: string;
  /** Absent: `<name>:`; empty: no prefix. */
  readonly usernamePrefix?: string | undefined;
  /** Absent: `<name>:`; empty: no prefix. */
  readonly groupsPrefix?: string | undefined;
  readonly extraScopes?: readonly string[] | undefined;
  readonly roleBindings?: readonly OidcRoleBindingsRequest[] | undefined;
  readonly roles?: readonly PermissionRequest[] | undefined;
}

export interface OidcAccess {
  /** One per entry of `roles`, in the order requested. */
  roles: (Role | ClusterRole)[];
  /** Per entry of `roleBindings`, one per roleRef, in the order requested. */
  bindings: (RoleBinding<Subject> | ClusterRoleBinding<Subject>)[];
  /** Namespaces to create if missing, in order of first mention: those of the roles that do not disable it. */
  namespaces: string[];
  /** Labels (`matchLabels`) of every object of this request and no other. */
  selector: Record<string, string>;
}

/** The prefix of the provider's user names in RBAC (OIDCProviderConfig.GetUsernamePrefix). */
export function usernamePrefix(spec: Pick<OidcSpec, "name" | "usernamePrefix">): string {
  return spec.usernamePrefix ?? `${spec.name}:`;
}

/** The prefix of the provider's group names in RBAC (OIDCProviderConfig.GetGroupsPrefix). */
export function groupsPrefix(spec: Pick<OidcSpec, "name" | "groupsPrefix">): string {
  return spec.groupsPrefix ?? `${spec.name}:`;
}

/**
 * The objects for `spec` of the request `request`. Roles without a name
 * are `openmcp:<request>:role:<i>`, bindings
 * `openmcp:<request>:rolebinding:<i>:<j>` (entry i, roleRef j), where
 * `<request>` is the base name token access gives the request's
 * ServiceAccount. Throws `TokenAccessError` for a spec the API server would
 * refuse.
 */
export function renderOidcAccess(spec: OidcSpec, request: AccessRequestIdentity): OidcAccess {
  const scope = requestScope(request);
  const roleSpecs = spec.roles ?? [];
  const roles = roleSpecs.map((role, i) => renderRole(role, `spec.oidc.roles[${i}]`, `openmcp:${scope.baseName}:role:${i}`, scope.labels()));
  assertDistinctRoles(roles, "roles");

  const bindings: (RoleBinding<Subject> | ClusterRoleBinding<Subject>)[] = [];
  (spec.roleBindings ?? []).forEach((entry, i) => {
    const field = `spec.oidc.roleBindings[${i}]`;
    const roleRefs = (entry.roleRefs ?? []).map((ref, j) => checkRoleRef(ref, `${field}.roleRefs[${j}]`));
    const clusterWide = roleRefs.some((ref) => ref.kind === "ClusterRole");
    const subjects = (entry.subjects ?? []).map((subject, k) => renderSubject(spec, subject, `${field}.subjects[${k}]`, clusterWide));
    roleRefs.forEach((ref, j) => {
      bindings.push(renderBinding(`openmcp:${scope.baseName}:rolebinding:${i}:${j}`, scope.labels(), ref, subjects.map((s) => ({ ...s }))));
    });
  });

  return { roles, bindings, namespaces: namespacesToCreate(roleSpecs), selector: scope.selector };
}

/**
 * The subject as the API server's authenticator names it: a user or group
 * gets the provider's prefix unless its name starts with `::` (then taken
 * as it stands, without the `::`); a ServiceAccount is never prefixed.
 * User and group subjects lose a namespace, which RBAC ignores for them.
 * `inClusterRoleBinding`: a ServiceAccount subject then needs its namespace.
 */
function renderSubject(spec: OidcSpec, subject: OidcSubjectRequest, field: string, inClusterRoleBinding: boolean): Subject {
  const unprefixed = subject.name.startsWith(UNPREFIXED) ? subject.name.slice(UNPREFIXED.length) : undefined;
  const apiGroup = subject.apiGroup ?? "";
  switch (subject.kind) {
    case "User":
    case "Group": {
      if (apiGroup !== "" && apiGroup !== RBAC_GROUP) throw new TokenAccessError(`${field}.apiGroup must be ${JSON.stringify(RBAC_GROUP)} for a ${subject.kind}, got ${JSON.stringify(apiGroup)}`);
      const prefix = subject.kind === "User" ? usernamePrefix(spec) : groupsPrefix(spec);
      const name = unprefixed ?? `${prefix}${subject.name}`;
      if (name === "") throw new TokenAccessError(`${field}.name must name a ${subject.kind}`);
      return { kind: subject.kind, apiGroup: RBAC_GROUP, name };
    }
    case "ServiceAccount": {
      const name = unprefixed ?? subject.name;
      const namespace = subject.namespace ?? "";
      if (apiGroup !== "") throw new TokenAccessError(`${field}.apiGroup must be empty for a ServiceAccount, got ${JSON.stringify(apiGroup)}`);
      if (!isDnsSubdomain(name)) throw new TokenAccessError(`${field}.name ${JSON.stringify(name)} is not a ServiceAccount name (a DNS-1123 subdomain)`);
      if (namespace !== "" && !isDnsLabel(namespace)) throw new TokenAccessError(`${field}.namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
      if (namespace === "" && inClusterRoleBinding) throw new TokenAccessError(`${field}.namespace is required for a ServiceAccount bound to a ClusterRole`);
      return { kind: "ServiceAccount", name, namespace };
    }
    default:
      throw new TokenAccessError(`${field}.kind must be User, Group or ServiceAccount, got ${JSON.stringify(subject.kind)}`);
  }
}
