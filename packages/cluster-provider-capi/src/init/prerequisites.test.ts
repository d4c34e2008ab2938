import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { certManagerKinds, certManagerMissing, OPERATOR_CRDS } from "./prerequisites.js";

/** The shape of the operator's release manifest: config/default with ../certmanager. */
const OPERATOR_MANIFEST: KubeObject[] = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "capi-operator-system" } },
  { apiVersion: "cert-manager.io/v1", kind: "Issuer", metadata: { name: "capi-operator-selfsigned-issuer", namespace: "capi-operator-system" } },
  { apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "capi-operator-serving-cert", namespace: "capi-operator-system" } },
  { apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "another", namespace: "capi-operator-system" } },
  { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "capi-operator-controller-manager", namespace: "capi-operator-system" } },
  // Another group that merely ends like cert-manager's.
  { apiVersion: "acme.cert-manager.io/v1", kind: "Order", metadata: { name: "o" } },
];

describe("certManagerKinds", () => {
  it("lists each cert-manager kind of a manifest once", () => {
    expect(certManagerKinds(OPERATOR_MANIFEST)).toEqual([
      { apiVersion: "cert-manager.io/v1", kind: "Issuer" },
      { apiVersion: "cert-manager.io/v1", kind: "Certificate" },
    ]);
  });

  it("finds none in a manifest without cert-manager objects", () => {
    expect(certManagerKinds(OPERATOR_MANIFEST.filter((o) => o.apiVersion !== "cert-manager.io/v1"))).toEqual([]);
  });
});

describe("certManagerMissing", () => {
  it("says what the operator needs, what the cluster lacks and the two ways out", () => {
    const needed = certManagerKinds(OPERATOR_MANIFEST);
    expect(certManagerMissing(needed, needed)).toBe(
      "the Cluster API Operator's manifest needs cert-manager for its webhook certificate (Issuer (cert-manager.io/v1), Certificate (cert-manager.io/v1)), " +
        "but this cluster serves no Issuer (cert-manager.io/v1), Certificate (cert-manager.io/v1) and the init configuration has no certManager source: " +
        "install cert-manager first, or set certManager (url, file or configMap of cert-manager's release manifest) in the init configuration",
    );
  });
});

describe("OPERATOR_CRDS", () => {
  it("names the operator's CRDs of the provider kinds this provider writes", () => {
    expect(OPERATOR_CRDS).toEqual([
      "coreproviders.operator.cluster.x-k8s.io",
      "infrastructureproviders.operator.cluster.x-k8s.io",
      "bootstrapproviders.operator.cluster.x-k8s.io",
      "controlplaneproviders.operator.cluster.x-k8s.io",
    ]);
  });
});
