import { describe, expect, it } from "@jest/globals";
import { fingerprint } from "@edgeconnect/kcp-ts/logical-cluster";
import {
  isLabelValue,
  labelValue,
  LOGICAL_CLUSTER_ANNOTATION,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  NAME_LABEL,
  NAMESPACE_LABEL,
  namespaceOwner,
  ownerAnnotations,
  ownerLabels,
  TENANT_LABEL,
  tenantNamespace,
  UID_LABEL,
} from "./tenant-namespace.js";

const CLUSTER = "root:orgs:acme";

describe("tenantNamespace", () => {
  it("is kcp-<fingerprint>, labelled with the tenant and annotated with the full logical cluster", () => {
    const fp = fingerprint(CLUSTER);
    expect(tenantNamespace(CLUSTER)).toEqual({
      name: `kcp-${fp}`,
      labels: { [TENANT_LABEL]: fp, [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: { [LOGICAL_CLUSTER_ANNOTATION]: CLUSTER },
    });
    expect(MANAGED_BY_LABEL).toBe("app.kubernetes.io/managed-by");
    expect(MANAGED_BY).toBe("provider-controller");
  });
});

describe("namespaceOwner", () => {
  it.each([
    ["our annotation", { metadata: { annotations: { [LOGICAL_CLUSTER_ANNOTATION]: CLUSTER } } }, "ours"],
    ["another logical cluster's annotation (a fingerprint collision)", { metadata: { annotations: { [LOGICAL_CLUSTER_ANNOTATION]: "root:orgs:other" } } }, "foreign"],
    ["no annotation", { metadata: { labels: { [TENANT_LABEL]: fingerprint(CLUSTER) } } }, "unclaimed"],
    ["no metadata", {}, "unclaimed"],
  ] as const)("%s → %s", (_case, namespace, owner) => {
    expect(namespaceOwner(namespace, CLUSTER)).toBe(owner);
  });
});

describe("labelValue", () => {
  it.each([
    ["default", "default"],
    ["", ""],
    ["a.b_c-D", "a.b_c-D"],
    ["x".repeat(63), "x".repeat(63)],
  ])("keeps the valid value %j", (value, label) => {
    expect(labelValue(value)).toBe(label);
  });

  it.each([
    ["too long", "x".repeat(64), /^x{54}-[0-9a-f]{8}$/],
    ["a kcp path", "root:orgs:acme", /^root-orgs-acme-[0-9a-f]{8}$/],
    ["leading and trailing punctuation", "-a-", /^a-[0-9a-f]{8}$/],
    ["nothing readable", ":::", /^[0-9a-f]{8}$/],
  ])("hashes a value that is %s", (_case, value, pattern) => {
    const label = labelValue(value);
    expect(label).toMatch(pattern);
    expect(isLabelValue(label)).toBe(true);
    expect(labelValue(value)).toBe(label);
  });

  it("gives different values different labels even when their readable parts agree", () => {
    expect(labelValue("root:a")).not.toBe(labelValue("root/a"));
    expect(labelValue(`${"x".repeat(60)}aaaa`)).not.toBe(labelValue(`${"x".repeat(60)}bbbb`));
  });
});

describe("ownerLabels and ownerAnnotations", () => {
  const owner = { cluster: CLUSTER, namespace: "default", name: "my-cluster", uid: "6f1c0f3e-3b0c-4a49-9a53-2f4d8a2d9b10" };

  it("label the tenant, the object and the manager", () => {
    expect(ownerLabels(owner)).toEqual({
      [TENANT_LABEL]: fingerprint(CLUSTER),
      [NAMESPACE_LABEL]: "default",
      [NAME_LABEL]: "my-cluster",
      [UID_LABEL]: owner.uid,
      [MANAGED_BY_LABEL]: MANAGED_BY,
    });
    expect(ownerAnnotations(owner)).toEqual({ [LOGICAL_CLUSTER_ANNOTATION]: CLUSTER });
  });

  it("hash a name too long for a label and keep it whole in an annotation", () => {
    const name = `${"n".repeat(100)}.example`;
    const labels = ownerLabels({ ...owner, name });
    expect(labels[NAME_LABEL]).toHaveLength(63);
    expect(Object.values(labels).every(isLabelValue)).toBe(true);
    expect(ownerAnnotations({ ...owner, name })).toEqual({ [LOGICAL_CLUSTER_ANNOTATION]: CLUSTER, [NAME_LABEL]: name });
  });
});
