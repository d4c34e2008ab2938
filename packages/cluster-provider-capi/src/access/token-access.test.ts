import { carriesLabels, MANAGED_BY_LABEL } from "../provider/provider-identity.js";
import { describe, expect, it } from "@jest/globals";
import { isDnsLabel, isLabelValue } from "@edgeconnect/provisioning";
import {
  accessObjects,
  ACCESS_REQUEST_LABEL,
  ACCESS_REQUEST_NAME_LABEL,
  ACCESS_REQUEST_NAMESPACE_LABEL,
  ACCESS_REQUEST_UID_LABEL,
  renderTokenAccess,
  staleObjects,
  TokenAccessError,
  type AccessRequestIdentity,
  type ExistingObject,
  type TokenSpec,
} from "./token-access.js";

const REQUEST: AccessRequestIdentity = { environment: "dev", providerName: "capi", namespace: "project-a", name: "admin-access", uid: "0f8e6a1c-1111-2222-3333-444455556666" };
const OPTIONS = { serviceAccountNamespace: "openmcp-access" };
const PODS = { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] };

function render(spec: TokenSpec, request: AccessRequestIdentity = REQUEST) {
  return renderTokenAccess(spec, request, OPTIONS);
}

describe("renderTokenAccess", () => {
  it("makes a ServiceAccount named after the request, with a hash of its full identity", () => {
    const access = render({});
    expect(access.serviceAccount).toEqual({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: expect.stringMatching(/^project-a-admin-access-[0-9a-f]{16}$/), namespace: "openmcp-access", labels: access.serviceAccount.metadata.labels },
    });
    expect(access.serviceAccount.metadata.labels).toEqual({
      [MANAGED_BY_LABEL]: "cluster-provider-capi",
      [ACCESS_REQUEST_LABEL]: expect.stringMatching(/^[0-9a-f]{16}$/),
      [ACCESS_REQUEST_NAMESPACE_LABEL]: "project-a",
      [ACCESS_REQUEST_NAME_LABEL]: "admin-access",
      [ACCESS_REQUEST_UID_LABEL]: REQUEST.uid,
    });
    expect(access.selector).toEqual({ [MANAGED_BY_LABEL]: "cluster-provider-capi", [ACCESS_REQUEST_LABEL]: access.serviceAccount.metadata.labels[ACCESS_REQUEST_LABEL] });
  });

  it("gives only the ServiceAccount for empty permissions and roleRefs", () => {
    for (const spec of [{}, { permissions: [], roleRefs: [] }]) {
      const access = render(spec);
      expect(access.roles).toEqual([]);
      expect(access.bindings).toEqual([]);
      expect(access.namespaces).toEqual([]);
      expect(accessObjects(access)).toEqual([access.serviceAccount]);
    }
  });

  it("is deterministic: a restarted controller derives the same objects", () => {
    const spec: TokenSpec = { permissions: [{ namespace: "apps", rules: [PODS] }], roleRefs: [{ kind: "ClusterRole", name: "view" }] };
    expect(render(spec)).toEqual(render(spec));
  });

  it.each<[string, Partial<AccessRequestIdentity>]>([
    ["environment", { environment: "prod" }],
    ["provider", { providerName: "capi-2" }],
    ["namespace", { namespace: "project-b" }],
    ["name", { name: "admin-access-2" }],
  ])("gives another ServiceAccount and selector for another %s", (_case, change) => {
    const a = render({});
    const b = render({}, { ...REQUEST, ...change });
    expect(b.serviceAccount.metadata.name).not.toBe(a.serviceAccount.metadata.name);
    expect(b.selector).not.toEqual(a.selector);
  });

  it("keeps the ServiceAccount and selector of a request recreated under the same name", () => {
    const a = render({});
    const b = render({}, { ...REQUEST, uid: "another-uid" });
    expect(b.serviceAccount.metadata.name).toBe(a.serviceAccount.metadata.name);
    expect(b.selector).toEqual(a.selector);
  });

  it("does not confuse requests whose namespace and name read alike", () => {
    const a = render({}, { ...REQUEST, namespace: "a-b", name: "c" });
    const b = render({}, { ...REQUEST, namespace: "a", name: "b-c" });
    expect(a.serviceAccount.metadata.name).not.toBe(b.serviceAccount.metadata.name);
  });

  it.each([
    ["longest namespace and name", "n".repeat(63), "m".repeat(253)],
    ["a dotted name", "team", "prod.eu.example.com"],
    ["digits first", "1ns", "2name"],
  ])("keeps names and labels valid for %s", (_case, namespace, name) => {
    const access = render({ permissions: [{ rules: [PODS] }] }, { ...REQUEST, namespace, name });
    expect(isDnsLabel(access.serviceAccount.metadata.name)).toBe(true);
    for (const o of accessObjects(access)) {
      for (const value of Object.values(o.metadata.labels)) expect(isLabelValue(value)).toBe(true);
    }
  });

  it("makes a Role and RoleBinding per namespaced permission, and a ClusterRole and ClusterRoleBinding otherwise", () => {
    const access = render({
      permissions: [
        { namespace: "apps", rules: [PODS] },
        { rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }] },
      ],
    });
    const sa = access.serviceAccount.metadata.name;
    const subjects = [{ kind: "ServiceAccount", name: sa, namespace: "openmcp-access" }];
    const labels = access.serviceAccount.metadata.labels;
    expect(access.roles).toEqual([
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: `openmcp:${sa}:permission:0`, namespace: "apps", labels }, rules: [PODS] },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: `openmcp:${sa}:permission:1`, labels }, rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }] },
    ]);
    expect(access.bindings).toEqual([
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: `openmcp:${sa}:permission:0`, namespace: "apps", labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `openmcp:${sa}:permission:0` },
        subjects,
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `openmcp:${sa}:permission:1`, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `openmcp:${sa}:permission:1` },
        subjects,
      },
    ]);
  });

  it("uses a permission's name for its role, and still a generated name for the binding", () => {
    const access = render({ permissions: [{ name: "app-reader", namespace: "apps", rules: [PODS] }, { name: "node-reader", rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }] }] });
    const sa = access.serviceAccount.metadata.name;
    expect(access.roles.map((r) => r.metadata.name)).toEqual(["app-reader", "node-reader"]);
    expect(access.bindings.map((b) => [b.metadata.name, b.roleRef.name])).toEqual([
      [`openmcp:${sa}:permission:0`, "app-reader"],
      [`openmcp:${sa}:permission:1`, "node-reader"],
    ]);
  });

  it("copies rules without sharing arrays with the request", () => {
    const rule = { apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["web"], verbs: ["get"] };
    const access = render({ permissions: [{ namespace: "apps", rules: [rule] }] });
    expect(access.roles[0]?.rules).toEqual([rule]);
    expect(access.roles[0]?.rules[0]?.verbs).not.toBe(rule.verbs);
  });

  it("binds roleRefs: a RoleBinding in the Role's namespace, a ClusterRoleBinding for a ClusterRole", () => {
    const access = render({ roleRefs: [{ kind: "Role", name: "editor", namespace: "apps" }, { kind: "ClusterRole", name: "view" }] });
    const sa = access.serviceAccount.metadata.name;
    expect(access.roles).toEqual([]);
    expect(access.bindings.map((b) => ({ kind: b.kind, metadata: b.metadata, roleRef: b.roleRef }))).toEqual([
      { kind: "RoleBinding", metadata: { name: `openmcp:${sa}:roleref:0`, namespace: "apps", labels: expect.any(Object) }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "editor" } },
      { kind: "ClusterRoleBinding", metadata: { name: `openmcp:${sa}:roleref:1`, labels: expect.any(Object) }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" } },
    ]);
    expect(access.namespaces).toEqual([]);
  });

  it("puts permission bindings before roleRef bindings", () => {
    const access = render({ permissions: [{ rules: [PODS] }], roleRefs: [{ kind: "ClusterRole", name: "view" }] });
    expect(access.bindings.map((b) => b.metadata.name.split(":").slice(2).join(":"))).toEqual(["permission:0", "roleref:0"]);
  });

  it("lists the permissions' namespaces once each, unless automatic creation is disabled", () => {
    const access = render({
      permissions: [
        { namespace: "b", rules: [PODS] },
        { namespace: "a", rules: [PODS] },
        { namespace: "b", rules: [PODS] },
        { namespace: "existing", disableAutomaticNamespaceCreation: true, rules: [PODS] },
        { namespace: "", rules: [PODS] },
        { namespace: "c", disableAutomaticNamespaceCreation: false, rules: [PODS] },
      ],
      roleRefs: [{ kind: "Role", name: "r", namespace: "d" }],
    });
    expect(access.namespaces).toEqual(["b", "a", "c"]);
  });

  it("creates a namespace when any permission for it allows that", () => {
    const access = render({ permissions: [{ namespace: "x", disableAutomaticNamespaceCreation: true, rules: [PODS] }, { namespace: "x", rules: [PODS] }] });
    expect(access.namespaces).toEqual(["x"]);
  });

  it.each<[string, TokenSpec, RegExp]>([
    ["a Role roleRef without namespace", { roleRefs: [{ kind: "Role", name: "editor" }] }, /spec\.token\.roleRefs\[0\]\.namespace must be the DNS-1123 label/],
    ["a ClusterRole roleRef with namespace", { roleRefs: [{ kind: "ClusterRole", name: "view", namespace: "apps" }] }, /roleRefs\[0\]\.namespace must be empty for a ClusterRole, got "apps"/],
    ["an unknown roleRef kind", { roleRefs: [{ kind: "Group", name: "x" }] }, /roleRefs\[0\]\.kind must be Role or ClusterRole, got "Group"/],
    ["an empty roleRef name", { roleRefs: [{ kind: "ClusterRole", name: "" }] }, /roleRefs\[0\]\.name "" must be non-empty/],
    ["a roleRef name with a slash", { roleRefs: [{ kind: "ClusterRole", name: "a/b" }] }, /roleRefs\[0\]\.name "a\/b"/],
    ["an invalid permission namespace", { permissions: [{ namespace: "Apps", rules: [PODS] }] }, /permissions\[0\]\.namespace "Apps" is not a DNS-1123 label/],
    ["a permission name of ..", { permissions: [{ name: "..", rules: [PODS] }] }, /permissions\[0\]\.name "\.\."/],
    ["a permission name with %", { permissions: [{ name: "a%b", rules: [PODS] }] }, /permissions\[0\]\.name "a%b"/],
    ["two permissions naming one ClusterRole", { permissions: [{ name: "same", rules: [PODS] }, { name: "same", rules: [PODS] }] }, /two permissions would make the ClusterRole "same"/],
    ["two permissions naming one Role in one namespace", { permissions: [{ name: "same", namespace: "a", rules: [PODS] }, { name: "same", namespace: "a", rules: [PODS] }] }, /the Role "same" in namespace "a"/],
    ["a rule without verbs", { permissions: [{ rules: [{ ...PODS, verbs: [] }] }] }, /permissions\[0\]\.rules\[0\]\.verbs must contain at least one verb/],
    ["nonResourceURLs in a namespaced permission", { permissions: [{ namespace: "a", rules: [PODS, { nonResourceURLs: ["/metrics"], verbs: ["get"] }] }] }, /rules\[1\]\.nonResourceURLs are only allowed in a permission without namespace/],
    ["a rule for resources and nonResourceURLs", { permissions: [{ rules: [{ ...PODS, nonResourceURLs: ["/metrics"] }] }] }, /cannot apply to both resources and nonResourceURLs/],
    ["a nonResourceURLs rule with resourceNames", { permissions: [{ rules: [{ nonResourceURLs: ["/metrics"], resourceNames: ["x"], verbs: ["get"] }] }] }, /cannot apply to both resources and nonResourceURLs/],
    ["a resource rule without apiGroups", { permissions: [{ rules: [{ resources: ["pods"], verbs: ["get"] }] }] }, /apiGroups must name at least one API group/],
    ["a resource rule without resources", { permissions: [{ rules: [{ apiGroups: [""], verbs: ["get"] }] }] }, /resources must name at least one resource/],
  ])("refuses %s", (_case, spec, message) => {
    expect(() => render(spec)).toThrow(TokenAccessError);
    expect(() => render(spec)).toThrow(message);
  });

  it("allows the same permission name as a Role in two namespaces", () => {
    const access = render({ permissions: [{ name: "same", namespace: "a", rules: [PODS] }, { name: "same", namespace: "b", rules: [PODS] }] });
    expect(access.roles.map((r) => [r.kind, r.metadata.name])).toEqual([
      ["Role", "same"],
      ["Role", "same"],
    ]);
  });

  it("refuses a service account namespace that is no namespace name", () => {
    expect(() => renderTokenAccess({}, REQUEST, { serviceAccountNamespace: "Not_A_Namespace" })).toThrow(TypeError);
  });
});

describe("carriesLabels", () => {
  const access = render({});
  it.each<[string, Record<string, string> | undefined, boolean]>([
    ["all selector labels", access.serviceAccount.metadata.labels, true],
    ["another request's hash", { ...access.selector, [ACCESS_REQUEST_LABEL]: "0000000000000000" }, false],
    ["no managed-by label", { [ACCESS_REQUEST_LABEL]: access.selector[ACCESS_REQUEST_LABEL] ?? "" }, false],
    ["no labels", undefined, false],
  ])("%s", (_case, labels, expected) => {
    expect(carriesLabels({ metadata: labels === undefined ? {} : { labels } }, access.selector)).toBe(expected);
  });
});

describe("staleObjects", () => {
  const previous = render({
    permissions: [
      { namespace: "a", rules: [PODS] },
      { rules: [PODS] },
    ],
    roleRefs: [{ kind: "ClusterRole", name: "view" }, { kind: "Role", name: "editor", namespace: "b" }],
  });
  const existing: ExistingObject[] = accessObjects(previous).map((o) => ({ kind: o.kind, metadata: { ...o.metadata } }));

  it("finds nothing when nothing changed", () => {
    expect(staleObjects(existing, previous)).toEqual([]);
  });

  it("finds everything but the ServiceAccount once the request asks for nothing", () => {
    expect(staleObjects(existing, render({})).map((o) => o.kind)).toEqual(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "ClusterRoleBinding", "RoleBinding"]);
  });

  it("finds the objects of a removed permission and a removed roleRef", () => {
    const desired = render({ permissions: [{ namespace: "a", rules: [PODS] }], roleRefs: [{ kind: "ClusterRole", name: "view" }] });
    const sa = desired.serviceAccount.metadata.name;
    expect(staleObjects(existing, desired).map((o) => [o.kind, o.metadata?.namespace, o.metadata?.name])).toEqual([
      ["ClusterRole", undefined, `openmcp:${sa}:permission:1`],
      ["ClusterRoleBinding", undefined, `openmcp:${sa}:permission:1`],
      ["RoleBinding", "b", `openmcp:${sa}:roleref:1`],
    ]);
  });

  it("finds a Role whose permission moved to another namespace, and tells kinds apart", () => {
    const desired = render({ permissions: [{ namespace: "c", rules: [PODS] }, { rules: [PODS] }], roleRefs: [{ kind: "ClusterRole", name: "view" }, { kind: "Role", name: "editor", namespace: "b" }] });
    expect(staleObjects(existing, desired).map((o) => [o.kind, o.metadata?.namespace])).toEqual([
      ["Role", "a"],
      ["RoleBinding", "a"],
    ]);
  });

  it("finds the ServiceAccount when its namespace changed", () => {
    const desired = renderTokenAccess({ permissions: [{ namespace: "a", rules: [PODS] }, { rules: [PODS] }], roleRefs: [{ kind: "ClusterRole", name: "view" }, { kind: "Role", name: "editor", namespace: "b" }] }, REQUEST, { serviceAccountNamespace: "elsewhere" });
    expect(staleObjects(existing, desired).map((o) => [o.kind, o.metadata?.namespace])).toEqual([["ServiceAccount", "openmcp-access"]]);
  });

  it("never returns objects of other requests or objects without our labels", () => {
    const other = render({ permissions: [{ rules: [PODS] }] }, { ...REQUEST, name: "other" });
    const foreign: ExistingObject[] = [
      ...accessObjects(other).map((o) => ({ kind: o.kind, metadata: { ...o.metadata } })),
      { kind: "ClusterRole", metadata: { name: "cluster-admin" } },
      { kind: "ClusterRole", metadata: { name: "unlabelled", labels: { [ACCESS_REQUEST_LABEL]: previous.selector[ACCESS_REQUEST_LABEL] ?? "" } } },
    ];
    expect(staleObjects(foreign, render({}))).toEqual([]);
  });

  it("returns the caller's objects themselves", () => {
    const [first] = staleObjects(existing, render({}));
    expect(existing).toContain(first);
  });
});
