/**
 * @edgeconnect/provider-controller: tenants order OTC Kubernetes clusters
 * from their kcp workspaces; the controller provisions them through
 * Crossplane into `kcp-<fingerprint>` namespaces on the infrastructure
 * cluster and hands back a kubeconfig Secret.
 *
 * @module
 */
export { authUrlAllowed, DEFAULT_ALLOWED_AUTH_URL, parseProviderControllerFlags, USAGE, type ProviderControllerFlags } from "./cli/flags.js";
export { FINALIZER, KubernetesClusterReconciler } from "./kubernetes-cluster/kubernetes-cluster-reconciler.js";
export { ProviderConfigReconciler } from "./provider-config/provider-config-reconciler.js";
export { COMPONENT, runProviderManager, type ProviderManagerOptions } from "./manager/provider-manager.js";
export { OtcGateway, type CredentialVerdict, type OtcGatewayOptions } from "./otc/otc-gateway.js";
