/**
 * Where Cluster API keeps a cluster's admin kubeconfig: the Secret its
 * control plane provider writes in the Cluster's namespace, by Cluster API's
 * naming contract. One place for it, so that the provider-controller, which
 * hands it to the tenant, and the Cluster API cluster provider, which
 * connects to the workload cluster with it, cannot drift apart.
 */

export interface ClusterApiKubeconfigSecret {
  /** `<cluster>-kubeconfig`. */
  readonly name: string;
  /** The data key holding the kubeconfig (base64, as all Secret data). */
  readonly key: "value";
}

/** The kubeconfig Secret of the Cluster API Cluster named `cluster`, in that Cluster's namespace. */
export function clusterApiKubeconfigSecret(cluster: string): ClusterApiKubeconfigSecret {
  return { name: `${cluster}-kubeconfig`, key: "value" };
}
