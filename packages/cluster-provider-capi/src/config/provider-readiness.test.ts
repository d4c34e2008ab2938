import { describe, expect, it } from "@jest/globals";
import type { CoreProviderV1alpha2Condition } from "@edgeconnect/capi-provider-api";
import type { OperatorProvider } from "./operator-providers.js";
import { providerReadiness } from "./provider-readiness.js";

const AT = "2026-01-01T00:00:00Z";

function condition(type: string, status: CoreProviderV1alpha2Condition["status"], reason = type, message = ""): CoreProviderV1alpha2Condition {
  return { type, status, reason, message, lastTransitionTime: AT };
}

/** An operator object with the status the operator wrote (every provider kind has CoreProvider's shape). */
function observed(installedVersion: string | undefined, conditions: CoreProviderV1alpha2Condition[]): OperatorProvider {
  return {
    apiVersion: "operator.cluster.x-k8s.io/v1alpha2",
    kind: "CoreProvider",
    metadata: { name: "cluster-api", namespace: "capi-system" },
    spec: { version: "v2.9.2" },
    status: { ...(installedVersion === undefined ? {} : { installedVersion }), conditions },
  };
}

const INSTALLED = condition("ProviderInstalled", "True");
const READY = condition("Ready", "True", "DeploymentAvailable");

describe("providerReadiness", () => {
  it("is ready when the declared version is installed, Ready and not failing an upgrade", () => {
    expect(providerReadiness("v2.9.2", observed("v2.9.2", [INSTALLED, READY]))).toEqual({ ready: true, message: "" });
    expect(providerReadiness("v2.9.2", observed("v2.9.2", [INSTALLED, condition("ProviderUpgraded", "True"), READY]))).toEqual({ ready: true, message: "" });
  });

  it("waits for an operator that has not seen the object yet", () => {
    expect(providerReadiness("v2.9.2", undefined)).toEqual({ ready: false, message: "waiting for the Cluster API Operator" });
  });

  it("is not ready while the old release runs Ready and the declared one is not installed, naming both versions", () => {
    expect(providerReadiness("v2.10.0", observed("v2.9.2", [INSTALLED, READY]))).toEqual({ ready: false, message: "installed version v2.9.2, declared v2.10.0" });
  });

  it("is not ready when the operator reports ProviderUpgraded=False, saying why and naming both versions", () => {
    const failed = condition("ProviderUpgraded", "False", "ComponentsUpgradeError", "config map not found");
    expect(providerReadiness("v2.10.0", observed("v2.9.2", [INSTALLED, failed, READY]))).toEqual({
      ready: false,
      message: "installed version v2.9.2, declared v2.10.0; ProviderUpgraded=False (ComponentsUpgradeError: config map not found)",
    });
  });

  it("is not ready on ProviderUpgraded=False even where installedVersion already names the declared version", () => {
    const failed = condition("ProviderUpgraded", "False", "ComponentsUpgradeError");
    expect(providerReadiness("v2.10.0", observed("v2.10.0", [INSTALLED, failed, READY]))).toEqual({ ready: false, message: "ProviderUpgraded=False (ComponentsUpgradeError)" });
  });

  it("reports an installation that has not happened yet", () => {
    expect(providerReadiness("v2.9.2", observed(undefined, []))).toEqual({ ready: false, message: "installed version none yet, declared v2.9.2" });
    expect(providerReadiness("v2.9.2", observed(undefined, [condition("ProviderInstalled", "False", "ComponentsFetchError", "rate limit")]))).toEqual({
      ready: false,
      message: "installed version none yet, declared v2.9.2; ProviderInstalled=False (ComponentsFetchError: rate limit)",
    });
  });

  it("is not ready while the provider's Deployment is not Available", () => {
    expect(providerReadiness("v2.9.2", observed("v2.9.2", [INSTALLED, condition("Ready", "False", "NoDeploymentAvailableConditionReason")]))).toEqual({
      ready: false,
      message: "Ready=False (NoDeploymentAvailableConditionReason)",
    });
    expect(providerReadiness("v2.9.2", observed("v2.9.2", [INSTALLED]))).toEqual({ ready: false, message: "waiting for the Cluster API Operator to report it ready" });
  });
});
