import { describe, expect, it } from "@jest/globals";
import { ownerAnnotations, ownerLabels } from "@edgeconnect/provisioning";
import { ownedBy, ownerRequest } from "./owner.js";

const owner = { cluster: "2x8ai4kq1pr0a3v9", namespace: "default", name: "my-cluster", uid: "5b1f" };
const made = (o: typeof owner) => ({ metadata: { labels: ownerLabels(o), annotations: ownerAnnotations(o) } });

describe("ownerRequest", () => {
  it("reads back the tenant object an infrastructure object was made for", () => {
    expect(ownerRequest(made(owner))).toEqual({ cluster: owner.cluster, namespace: "default", name: "my-cluster" });
  });

  it("takes the full names from the annotations when the labels had to be shortened", () => {
    const long = { ...owner, name: `c-${"x".repeat(80)}` };
    const obj = made(long);
    expect(obj.metadata.labels["platform.edgeconnect.eu/name"]).not.toBe(long.name);
    expect(ownerRequest(obj)?.name).toBe(long.name);
  });

  it("ignores objects without our marks", () => {
    expect(ownerRequest({ metadata: { labels: { "app.kubernetes.io/managed-by": "provider-controller" } } })).toBeUndefined();
    expect(ownerRequest({})).toBeUndefined();
  });
});

describe("ownedBy", () => {
  it("matches cluster, namespace and name, so another tenant's object of the same name is not ours", () => {
    const request = { cluster: owner.cluster, namespace: "default", name: "my-cluster" };
    expect(ownedBy(made(owner), request)).toBe(true);
    expect(ownedBy(made({ ...owner, cluster: "other-cluster" }), request)).toBe(false);
    expect(ownedBy(made({ ...owner, namespace: "team" }), request)).toBe(false);
  });
});
