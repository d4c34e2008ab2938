import { describe, expect, it, jest } from "@jest/globals";
import { holdSecrets, REDACTED, RELEASE_GRACE_MS, releaseTenantSecrets, scrubText } from "@edgeconnect/redaction";
import { clusterSecrets, providerConfigSecrets, releaseClusterSecrets } from "./secret-holders.js";

const REQUEST = { cluster: "2x7aholders", namespace: "default", name: "my-cluster" };

/** Moves only the wall clock, on which the registry's grace period runs. */
function afterGrace(): void {
  jest.setSystemTime(Date.now() + RELEASE_GRACE_MS);
}

describe("secret holders", () => {
  it("a KubernetesCluster that is gone lets go of everything it brought, and of nothing of its neighbours", () => {
    jest.useFakeTimers({ doNotFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "nextTick", "queueMicrotask", "hrtime", "performance"] });
    try {
      holdSecrets(clusterSecrets(REQUEST, "kubeconfig"), ["holders-kubeconfig-value"]);
      holdSecrets(clusterSecrets(REQUEST, "clustercert"), ["holders-clustercert-value"]);
      holdSecrets(clusterSecrets(REQUEST, "capi-kubeconfig"), ["holders-capi-kubeconfig"]);
      holdSecrets(clusterSecrets(REQUEST, "login-key"), ["holders-login-key-value"]);
      holdSecrets(clusterSecrets({ ...REQUEST, name: "neighbour" }, "kubeconfig"), ["holders-neighbour-value"]);
      holdSecrets(providerConfigSecrets(REQUEST.cluster, "default", "otc"), ["holders-provider-config"]);
      releaseClusterSecrets(REQUEST);
      afterGrace();
      expect(scrubText("holders-kubeconfig-value holders-clustercert-value holders-capi-kubeconfig holders-login-key-value")).toBe(
        "holders-kubeconfig-value holders-clustercert-value holders-capi-kubeconfig holders-login-key-value",
      );
      expect(scrubText("holders-neighbour-value holders-provider-config")).toBe(`${REDACTED} ${REDACTED}`);
      // The tenant's workspace leaves the controller's view: all of its holders go.
      releaseTenantSecrets(REQUEST.cluster);
      afterGrace();
      expect(scrubText("holders-neighbour-value holders-provider-config")).toBe("holders-neighbour-value holders-provider-config");
    } finally {
      jest.useRealTimers();
    }
  });

  it("names holders by tenant, so two tenants' objects of one name never share one", () => {
    expect(providerConfigSecrets("tenant-a", "default", "otc")).not.toEqual(providerConfigSecrets("tenant-b", "default", "otc"));
    expect(clusterSecrets({ ...REQUEST, cluster: "tenant-a" }, "kubeconfig")).not.toEqual(clusterSecrets({ ...REQUEST, cluster: "tenant-b" }, "kubeconfig"));
  });
});
