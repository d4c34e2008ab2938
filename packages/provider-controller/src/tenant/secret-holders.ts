/**
 * Who holds a tenant's credentials in the redaction registry
 * (`@edgeconnect/redaction`): each value is held by the tenant object it
 * came from, and let go once that object is gone or holds another value.
 * A controller serving thousands of tenants thus searches its log lines,
 * errors and Events for what its tenants hold now, not for everything it
 * has seen since it started. A tenant that leaves this controller's view
 * (its shard gone) lets go of everything at once (`releaseTenantSecrets`).
 */
import { releaseSecrets, type Request, type SecretHolder } from "@edgeconnect/runtime";

/** The credentials file a ProviderConfig's Secret holds, and the values parsed from it. */
export function providerConfigSecrets(cluster: string, namespace: string, name: string): SecretHolder {
  return { tenant: cluster, name: `providerconfig/${namespace}/${name}` };
}

/**
 * What one KubernetesCluster brings: the kubeconfig handed to the tenant,
 * CCE's certificate it was made from, Cluster API's admin kubeconfig it was
 * copied from, the node login key.
 */
const CLUSTER_SECRETS = ["kubeconfig", "clustercert", "capi-kubeconfig", "login-key"] as const;

export function clusterSecrets(request: Request, what: (typeof CLUSTER_SECRETS)[number]): SecretHolder {
  return { tenant: request.cluster, name: `${what}/${request.namespace}/${request.name}` };
}

/** Lets go of everything the KubernetesCluster `request` names brought: it is gone. */
export function releaseClusterSecrets(request: Request): void {
  for (const what of CLUSTER_SECRETS) releaseSecrets(clusterSecrets(request, what));
}
