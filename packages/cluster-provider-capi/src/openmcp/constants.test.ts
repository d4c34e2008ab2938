import { describe, expect, it } from "@jest/globals";
import {
  APISERVER_ENDPOINT,
  CLUSTER_LABEL,
  CLUSTERS_API_VERSION,
  COMMON_PHASE,
  K8S_VERSION_LABEL,
  OPERATION,
  OPERATION_ANNOTATION,
  PLATFORM_CLUSTER,
  PROFILE_LABEL,
  PROVIDER_INFO_ANNOTATION,
  PROVIDER_LABEL,
  REASON,
  REQUEST_PHASE,
  SECRET_KEY,
} from "./constants.js";

// The values of openmcp-operator's API module v1.3.0: a change here breaks
// the contract with the operator and every consumer, so each is pinned.
describe("openMCP contract constants", () => {
  it.each([
    ["provider label", PROVIDER_LABEL, "clusters.openmcp.cloud/provider"],
    ["profile label", PROFILE_LABEL, "clusters.openmcp.cloud/profile"],
    ["k8s version label", K8S_VERSION_LABEL, "clusters.openmcp.cloud/k8sversion"],
    ["provider info annotation", PROVIDER_INFO_ANNOTATION, "clusters.openmcp.cloud/providerinfo"],
    ["operation annotation", OPERATION_ANNOTATION, "openmcp.cloud/operation"],
    ["CRD cluster label", CLUSTER_LABEL, "openmcp.cloud/cluster"],
    ["platform cluster", PLATFORM_CLUSTER, "platform"],
    ["API version", CLUSTERS_API_VERSION, "clusters.openmcp.cloud/v1alpha1"],
  ])("%s is %s", (_what, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it("has the operation values, endpoint names and phases", () => {
    expect(OPERATION).toEqual({ Reconcile: "reconcile", Ignore: "ignore" });
    expect(APISERVER_ENDPOINT).toEqual({ External: "apiserver-external", Internal: "apiserver-internal" });
    expect(COMMON_PHASE).toEqual({ Ready: "Ready", Progressing: "Progressing", Terminating: "Terminating" });
    expect(REQUEST_PHASE).toEqual({ Pending: "Pending", Granted: "Granted", Denied: "Denied" });
  });

  it("has the AccessRequest Secret keys", () => {
    expect(SECRET_KEY).toEqual({
      Kubeconfig: "kubeconfig",
      ExpirationTimestamp: "expirationTimestamp",
      CreationTimestamp: "creationTimestamp",
      ClientID: "clientID",
      Host: "host",
      CA: "ca.crt",
      Token: "token",
    });
  });

  it("has reasons whose values are their names", () => {
    for (const [key, value] of Object.entries(REASON)) expect(value).toBe(key);
  });
});
