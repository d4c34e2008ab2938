/**
 * @edgeconnect/provider-controller: tenants order Kubernetes clusters from
 * their kcp workspaces; the controller provisions them into
 * `kcp-<fingerprint>` namespaces on the infrastructure cluster, through
 * Crossplane on OTC or, with `--cluster-api`, through Cluster API from a
 * template set, and hands back a kubeconfig Secret.
 *
 * @module
 */
export { authUrlAllowed, DEFAULT_ALLOWED_AUTH_URL, parseProviderControllerFlags, USAGE, type ProviderControllerFlags } from "./cli/flags.js";
export { FINALIZER, KubernetesClusterReconciler } from "./kubernetes-cluster/kubernetes-cluster-reconciler.js";
export { ProviderConfigReconciler } from "./provider-config/provider-config-reconciler.js";
export { COMPONENT, runProviderManager, type ProviderManagerOptions } from "./manager/provider-manager.js";
export { OtcGateway, type CredentialVerdict, type OtcGatewayOptions } from "./otc/otc-gateway.js";
