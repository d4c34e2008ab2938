import { describe, expect, it } from "@jest/globals";
import type { AccessRequestV1alpha1Oidc } from "@edgeconnect/capi-provider-api";
import { groupsPrefix, renderOidcAccess, usernamePrefix, type OidcSpec } from "./oidc-access.js";
import { accessObjects, renderTokenAccess, staleObjects, TokenAccessError, type AccessRequestIdentity, type ExistingObject } from "./token-access.js";

const REQUEST: AccessRequestIdentity = { environment: "dev", providerName: "capi", namespace: "project-a", name: "mcp-oidc", uid: "0f8e6a1c-1111-2222-3333-444455556666" };
const BASE: OidcSpec = { name: "corp", issuer: "https://issuer.example.com", clientID: "mcp" };
const CONFIGMAPS = { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] };
const RBAC = "rbac.authorization.k8s.io";

function render(spec: Partial<OidcSpec>, request: AccessRequestIdentity = REQUEST) {
  return renderOidcAccess({ ...BASE, ...spec }, request);
}

/** What token access names this request's objects after. */
const BASE_NAME = renderTokenAccess({}, REQUEST, { serviceAccountNamespace: "openmcp-access" }).serviceAccount.metadata.name;

describe("usernamePrefix and groupsPrefix", () => {
  it("default to the provider's name and a colon", () => {
    expect(usernamePrefix(BASE)).toBe("corp:");
    expect(groupsPrefix(BASE)).toBe("corp:");
  });

  it("take a set prefix, and an empty one as no prefix", () => {
    expect(usernamePrefix({ ...BASE, usernamePrefix: "u-" })).toBe("u-");
    expect(groupsPrefix({ ...BASE, groupsPrefix: "" })).toBe("");
  });
});

describe("renderOidcAccess", () => {
  it("makes nothing for a provider without roles and bindings, with token access's selector", () => {
    const access = render({ roleBindings: [] });
    expect(access).toEqual({ roles: [], bindings: [], namespaces: [], selector: renderTokenAccess({}, REQUEST, { serviceAccountNamespace: "openmcp-access" }).selector });
  });

  it("makes a Role per namespaced role and a ClusterRole otherwise, generated names when none is given", () => {
    const access = render({ roles: [{ namespace: "apps", rules: [CONFIGMAPS] }, { name: "node-reader", rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }] }] });
    expect(access.roles.map((r) => ({ kind: r.kind, metadata: r.metadata, rules: r.rules }))).toEqual([
      { kind: "Role", metadata: { name: `openmcp:${BASE_NAME}:role:0`, namespace: "apps", labels: expect.objectContaining(access.selector) }, rules: [CONFIGMAPS] },
      { kind: "ClusterRole", metadata: { name: "node-reader", labels: expect.objectContaining(access.selector) }, rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }] },
    ]);
    expect(access.bindings).toEqual([]);
    expect(access.namespaces).toEqual(["apps"]);
  });

  it("binds each entry's subjects to each of its roles, prefixing users and groups", () => {
    const access = render({
      roleBindings: [
        { subjects: [{ kind: "User", name: "alice" }, { kind: "Group", apiGroup: RBAC, name: "admins" }], roleRefs: [{ kind: "Role", name: "reader", namespace: "apps" }, { kind: "ClusterRole", name: "view" }] },
        { subjects: [{ kind: "User", name: "bob" }], roleRefs: [{ kind: "ClusterRole", name: "edit" }] },
      ],
    });
    const alice = { kind: "User", apiGroup: RBAC, name: "corp:alice" };
    const admins = { kind: "Group", apiGroup: RBAC, name: "corp:admins" };
    expect(access.bindings).toEqual([
      {
        apiVersion: `${RBAC}/v1`,
        kind: "RoleBinding",
        metadata: { name: `openmcp:${BASE_NAME}:rolebinding:0:0`, namespace: "apps", labels: expect.objectContaining(access.selector) },
        roleRef: { apiGroup: RBAC, kind: "Role", name: "reader" },
        subjects: [alice, admins],
      },
      {
        apiVersion: `${RBAC}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name: `openmcp:${BASE_NAME}:rolebinding:0:1`, labels: expect.objectContaining(access.selector) },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "view" },
        subjects: [alice, admins],
      },
      {
        apiVersion: `${RBAC}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name: `openmcp:${BASE_NAME}:rolebinding:1:0`, labels: expect.objectContaining(access.selector) },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "edit" },
        subjects: [{ kind: "User", apiGroup: RBAC, name: "corp:bob" }],
      },
    ]);
    expect(access.bindings[0]?.subjects[0]).not.toBe(access.bindings[1]?.subjects[0]);
  });

  it.each<[string, Partial<OidcSpec>, string, string]>([
    ["set prefixes", { usernamePrefix: "oidc-user/", groupsPrefix: "oidc-group/" }, "oidc-user/alice", "oidc-group/admins"],
    ["empty prefixes", { usernamePrefix: "", groupsPrefix: "" }, "alice", "admins"],
  ])("uses %s", (_case, prefixes, user, group) => {
    const access = render({ ...prefixes, roleBindings: [{ subjects: [{ kind: "User", name: "alice" }, { kind: "Group", name: "admins" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] });
    expect(access.bindings[0]?.subjects.map((s) => s.name)).toEqual([user, group]);
  });

  it("takes a name after :: as it stands, and never prefixes a ServiceAccount", () => {
    const access = render({
      roleBindings: [
        {
          subjects: [
            { kind: "User", name: "::system:admin" },
            { kind: "Group", name: "::system:authenticated" },
            { kind: "ServiceAccount", name: "deployer", namespace: "ci" },
            { kind: "ServiceAccount", name: "::robot", namespace: "ci" },
          ],
          roleRefs: [{ kind: "ClusterRole", name: "view" }],
        },
      ],
    });
    expect(access.bindings[0]?.subjects).toEqual([
      { kind: "User", apiGroup: RBAC, name: "system:admin" },
      { kind: "Group", apiGroup: RBAC, name: "system:authenticated" },
      { kind: "ServiceAccount", name: "deployer", namespace: "ci" },
      { kind: "ServiceAccount", name: "robot", namespace: "ci" },
    ]);
  });

  it("drops the namespace of a user, which RBAC ignores", () => {
    const access = render({ roleBindings: [{ subjects: [{ kind: "User", name: "alice", namespace: "apps" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] });
    expect(access.bindings[0]?.subjects).toEqual([{ kind: "User", apiGroup: RBAC, name: "corp:alice" }]);
  });

  it("lets a ServiceAccount in a RoleBinding leave its namespace to the binding's", () => {
    const access = render({ roleBindings: [{ subjects: [{ kind: "ServiceAccount", name: "deployer" }], roleRefs: [{ kind: "Role", name: "reader", namespace: "apps" }] }] });
    expect(access.bindings[0]?.subjects).toEqual([{ kind: "ServiceAccount", name: "deployer", namespace: "" }]);
  });

  it("takes an AccessRequest's spec.oidc as the CRD types it", () => {
    const fromCrd: AccessRequestV1alpha1Oidc = { name: "corp", issuer: "https://issuer.example.com", clientID: "mcp", groupsClaim: "groups", roleBindings: [{ subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] };
    expect(renderOidcAccess(fromCrd, REQUEST).bindings[0]?.subjects).toEqual([{ kind: "User", apiGroup: RBAC, name: "corp:alice" }]);
  });

  it("makes no binding for an entry without roleRefs", () => {
    expect(render({ roleBindings: [{ subjects: [{ kind: "User", name: "alice" }], roleRefs: [] }] }).bindings).toEqual([]);
  });

  it("is deterministic and gives another request other objects", () => {
    const spec: Partial<OidcSpec> = { roles: [{ rules: [CONFIGMAPS] }], roleBindings: [{ subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] };
    expect(render(spec)).toEqual(render(spec));
    const other = render(spec, { ...REQUEST, name: "mcp-oidc-2" });
    expect(other.selector).not.toEqual(render(spec).selector);
    expect(other.roles[0]?.metadata.name).not.toBe(render(spec).roles[0]?.metadata.name);
  });

  it.each<[string, Partial<OidcSpec>, RegExp]>([
    ["an unknown subject kind", { roleBindings: [{ subjects: [{ kind: "Robot", name: "r2" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /spec\.oidc\.roleBindings\[0\]\.subjects\[0\]\.kind must be User, Group or ServiceAccount, got "Robot"/],
    ["a user of another API group", { roleBindings: [{ subjects: [{ kind: "User", apiGroup: "example.com", name: "alice" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.apiGroup must be "rbac\.authorization\.k8s\.io" for a User/],
    ["an empty unprefixed group", { roleBindings: [{ subjects: [{ kind: "Group", name: "::" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.name must name a Group/],
    ["an empty user without prefix", { usernamePrefix: "", roleBindings: [{ subjects: [{ kind: "User", name: "" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.name must name a User/],
    ["a ServiceAccount with an API group", { roleBindings: [{ subjects: [{ kind: "ServiceAccount", apiGroup: RBAC, name: "sa", namespace: "ci" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.apiGroup must be empty for a ServiceAccount/],
    ["a ServiceAccount name that is no DNS subdomain", { roleBindings: [{ subjects: [{ kind: "ServiceAccount", name: "Deployer", namespace: "ci" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.name "Deployer" is not a ServiceAccount name/],
    ["a ServiceAccount namespace that is no DNS label", { roleBindings: [{ subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "c.i" }], roleRefs: [{ kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.namespace "c\.i" is not a DNS-1123 label/],
    ["a ServiceAccount without namespace bound to a ClusterRole", { roleBindings: [{ subjects: [{ kind: "ServiceAccount", name: "sa" }], roleRefs: [{ kind: "Role", name: "r", namespace: "a" }, { kind: "ClusterRole", name: "view" }] }] }, /subjects\[0\]\.namespace is required for a ServiceAccount bound to a ClusterRole/],
    ["a Role roleRef without namespace", { roleBindings: [{ subjects: [], roleRefs: [{ kind: "Role", name: "reader" }] }] }, /spec\.oidc\.roleBindings\[0\]\.roleRefs\[0\]\.namespace must be the DNS-1123 label/],
    ["a ClusterRole roleRef with namespace", { roleBindings: [{ subjects: [], roleRefs: [{ kind: "ClusterRole", name: "view", namespace: "a" }] }] }, /roleRefs\[0\]\.namespace must be empty for a ClusterRole/],
    ["an invalid role namespace", { roles: [{ namespace: "Apps", rules: [CONFIGMAPS] }] }, /spec\.oidc\.roles\[0\]\.namespace "Apps" is not a DNS-1123 label/],
    ["a rule without verbs", { roles: [{ rules: [{ ...CONFIGMAPS, verbs: [] }] }] }, /spec\.oidc\.roles\[0\]\.rules\[0\]\.verbs must contain at least one verb/],
    ["two roles naming one ClusterRole", { roles: [{ name: "same", rules: [CONFIGMAPS] }, { name: "same", rules: [CONFIGMAPS] }] }, /two roles would make the ClusterRole "same"/],
  ])("refuses %s", (_case, spec, message) => {
    expect(() => render(spec)).toThrow(TokenAccessError);
    expect(() => render(spec)).toThrow(message);
  });
});

describe("OIDC access with the shared apply and cleanup", () => {
  const previous = render({
    roles: [{ namespace: "apps", rules: [CONFIGMAPS] }],
    roleBindings: [{ subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "Role", name: `openmcp:${BASE_NAME}:role:0`, namespace: "apps" }, { kind: "ClusterRole", name: "view" }] }],
  });
  const existing: ExistingObject[] = accessObjects(previous).map((o) => ({ kind: o.kind, metadata: { ...o.metadata } }));

  it("applies roles before bindings", () => {
    expect(accessObjects(previous).map((o) => o.kind)).toEqual(["Role", "RoleBinding", "ClusterRoleBinding"]);
  });

  it("finds the binding of a removed roleRef stale, and nothing else", () => {
    const desired = render({ roles: [{ namespace: "apps", rules: [CONFIGMAPS] }], roleBindings: [{ subjects: [{ kind: "User", name: "alice" }], roleRefs: [{ kind: "Role", name: `openmcp:${BASE_NAME}:role:0`, namespace: "apps" }] }] });
    expect(staleObjects(existing, desired).map((o) => [o.kind, o.metadata?.name])).toEqual([["ClusterRoleBinding", `openmcp:${BASE_NAME}:rolebinding:0:1`]]);
  });

  it("finds the ServiceAccount and token bindings of a request that switched from token to OIDC", () => {
    const token = renderTokenAccess({ roleRefs: [{ kind: "ClusterRole", name: "view" }] }, REQUEST, { serviceAccountNamespace: "openmcp-access" });
    const leftovers: ExistingObject[] = accessObjects(token).map((o) => ({ kind: o.kind, metadata: { ...o.metadata } }));
    expect(staleObjects(leftovers, previous).map((o) => o.kind)).toEqual(["ServiceAccount", "ClusterRoleBinding"]);
  });
});
