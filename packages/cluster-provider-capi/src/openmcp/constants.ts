/**
 * The keys and values of the openMCP cluster-provider contract, as
 * openmcp-operator's API module v1.3.0 defines them (`api/constants`,
 * `api/common`, `api/clusters/v1alpha1/constants.go` and `constants/`).
 * Other providers and the operator match on these exact strings, so each is
 * written out in full, findable by searching for it.
 */

export const OPENMCP_GROUP = "openmcp.cloud";
export const CLUSTERS_GROUP = "clusters.openmcp.cloud";
/** Cluster, ClusterProfile, ClusterRequest and AccessRequest. */
export const CLUSTERS_API_VERSION = "clusters.openmcp.cloud/v1alpha1";

/** On Clusters, set by the provider; on AccessRequests, set by openmcp-operator's generic controller. */
export const PROVIDER_LABEL = "clusters.openmcp.cloud/provider";
/** On AccessRequests, set by openmcp-operator's generic controller. */
export const PROFILE_LABEL = "clusters.openmcp.cloud/profile";
/** The Kubernetes version a Cluster actually runs: its spec may hold only a minor version or none. */
export const K8S_VERSION_LABEL = "clusters.openmcp.cloud/k8sversion";
/** Free text for the `kubectl get clusters -o wide` column. */
export const PROVIDER_INFO_ANNOTATION = "clusters.openmcp.cloud/providerinfo";

export const OPERATION_ANNOTATION = "openmcp.cloud/operation";
export const OPERATION = {
  /** Reconcile now, skipping any shortcut, then remove the annotation. */
  Reconcile: "reconcile",
  /** Do not reconcile at all, not even `observedGeneration`. */
  Ignore: "ignore",
} as const;

/** On CRDs: which cluster openMCP installs them on. */
export const CLUSTER_LABEL = "openmcp.cloud/cluster";
export const PLATFORM_CLUSTER = "platform";

/** Well-known names in a Cluster's `status.endpoints`. */
export const APISERVER_ENDPOINT = {
  External: "apiserver-external",
  Internal: "apiserver-internal",
} as const;

/** `status.phase` of Clusters and provider configs (the common status). */
export const COMMON_PHASE = {
  Ready: "Ready",
  Progressing: "Progressing",
  Terminating: "Terminating",
} as const;
export type CommonPhase = (typeof COMMON_PHASE)[keyof typeof COMMON_PHASE];

/** `status.phase` of ClusterRequests and AccessRequests. */
export const REQUEST_PHASE = {
  Pending: "Pending",
  Granted: "Granted",
  Denied: "Denied",
} as const;
export type RequestPhase = (typeof REQUEST_PHASE)[keyof typeof REQUEST_PHASE];

/**
 * Keys of the Secret an AccessRequest's `status.secretRef` names. Only
 * `Kubeconfig` is required; the timestamps are set for expiring
 * credentials only, `ClientID` for OIDC only.
 */
export const SECRET_KEY = {
  Kubeconfig: "kubeconfig",
  ExpirationTimestamp: "expirationTimestamp",
  CreationTimestamp: "creationTimestamp",
  ClientID: "clientID",
  Host: "host",
  CA: "ca.crt",
  Token: "token",
} as const;

/** Condition reasons openMCP defines for every controller (`clusters/v1alpha1/constants/reasons.go`). */
export const REASON = {
  PlatformClusterInteractionProblem: "PlatformClusterInteractionProblem",
  InvalidReference: "InvalidReference",
  ConfigurationProblem: "ConfigurationProblem",
  InternalError: "InternalError",
} as const;
