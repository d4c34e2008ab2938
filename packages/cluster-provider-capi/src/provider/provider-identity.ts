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

/**
 * Field manager of what is shared by every ClusterProvider of this image on
 * a platform (Cluster API's operator objects, which several providers'
 * configs may declare; the CoreProvider init writes), and the value of the
 * managed-by label.
 */
export const FIELD_MANAGER = "cluster-provider-capi";

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/** The labels on the shared objects; selects them in watches. */
export const MANAGED_BY: Readonly<Record<string, string>> = { [MANAGED_BY_LABEL]: FIELD_MANAGER };

export const MANAGED_BY_SELECTOR = `${MANAGED_BY_LABEL}=${FIELD_MANAGER}`;

const GROUP = "capi.clusters.openmcp.cloud";

/** On everything one provider alone owns: which ClusterProvider made it (as openMCP's Gardener provider labels its Shoots). */
export const PROVIDER_NAME_LABEL = `${GROUP}/provider-name`;

/**
 * The keys one ClusterProvider marks what it alone owns with. Two providers
 * of this image on one platform (different `--provider-name`) see, own and
 * release only their own objects: their watches select by these labels,
 * their applies own fields as these managers, and their finalizers differ.
 */
export interface ProviderKeys {
  /** `cluster-provider-capi/<provider-name>`. */
  readonly fieldManager: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `labels` as a label selector. */
  readonly selector: string;
  /** One per controller: `<provider-name>.capi.clusters.openmcp.cloud/<controller>`. */
  readonly finalizers: { readonly providerConfig: string; readonly cluster: string; readonly accessRequest: string };
}

export function providerKeys({ providerName }: Pick<ProviderIdentity, "providerName">): ProviderKeys {
  // A DNS label (the flags check it), so it can lead the finalizers' domain and be a label value.
  const labels = { ...MANAGED_BY, [PROVIDER_NAME_LABEL]: providerName };
  return {
    fieldManager: `${FIELD_MANAGER}/${providerName}`,
    labels,
    selector: Object.entries(labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(","),
    finalizers: {
      providerConfig: `${providerName}.${GROUP}/providerconfig`,
      cluster: `${providerName}.${GROUP}/cluster`,
      accessRequest: `${providerName}.${GROUP}/accessrequest`,
    },
  };
}

/** Whether `obj` carries every label of `wanted`: the one test of "ours" for objects marked with a ProviderKeys' or a request's labels. */
export function carriesLabels(obj: { readonly metadata?: { readonly labels?: Readonly<Record<string, string>> | undefined } | undefined }, wanted: Readonly<Record<string, string>>): boolean {
  const labels = obj.metadata?.labels ?? {};
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

/** On Cluster API objects: the openMCP Cluster they were made for. */
export const OPENMCP_CLUSTER_NAME_LABEL = `${GROUP}/cluster-name`;
export const OPENMCP_CLUSTER_NAMESPACE_LABEL = `${GROUP}/cluster-namespace`;

/**
 * On an operator provider object: one label per ProviderConfig that declares
 * it (`config.capi.clusters.openmcp.cloud/<config-name>`), so a provider
 * several configs share stays until the last of them drops it.
 */
export const DECLARED_BY_PREFIX = `config.${GROUP}/`;
