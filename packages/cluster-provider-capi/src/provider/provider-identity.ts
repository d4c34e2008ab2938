/**
 * Who this provider is on the platform cluster: the environment and the
 * ClusterProvider name openMCP passes to both `init` and `run`, and the keys
 * every controller of it marks its objects with.
 */
export interface ProviderIdentity {
  /** `--environment`: names the landscape; the first part of every ClusterProfile name. */
  readonly environment: string;
  /** `--provider-name`: the ClusterProvider's name; ClusterProfiles' providerRef. */
  readonly providerName: string;
}

/** Field manager of every server-side apply, and the value of the managed-by label. */
export const FIELD_MANAGER = "cluster-provider-capi";

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/** The labels on everything we create; selects our objects in watches and cleanups. */
export const MANAGED_BY: Readonly<Record<string, string>> = { [MANAGED_BY_LABEL]: FIELD_MANAGER };

export const MANAGED_BY_SELECTOR = `${MANAGED_BY_LABEL}=${FIELD_MANAGER}`;

const GROUP = "capi.clusters.edgeconnect.eu";

/** One finalizer per controller, in our API group. */
export const FINALIZERS = {
  providerConfig: `${GROUP}/providerconfig`,
  cluster: `${GROUP}/cluster`,
  accessRequest: `${GROUP}/accessrequest`,
} as const;

/** On Cluster API objects: the openMCP Cluster they were made for. */
export const OPENMCP_CLUSTER_NAME_LABEL = `${GROUP}/cluster-name`;
export const OPENMCP_CLUSTER_NAMESPACE_LABEL = `${GROUP}/cluster-namespace`;

/**
 * On an operator provider object: one label per ProviderConfig that declares
 * it (`config.capi.clusters.edgeconnect.eu/<config-name>`), so a provider
 * several configs share stays until the last of them drops it.
 */
export const DECLARED_BY_PREFIX = `config.${GROUP}/`;
