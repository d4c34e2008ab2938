/**
 * @edgeconnect/cluster-provider-capi: an openMCP cluster provider on Cluster
 * API and the Cluster API Operator.
 *
 * - `init/`: installs our CRDs, the operator and the core provider.
 * - `config/`: ProviderConfig → operator provider objects and a ClusterProfile.
 * - `cluster/`: openMCP Cluster → Cluster API Cluster, status, deletion.
 * - `access-request/`: AccessRequest → ServiceAccount, RBAC and a token kubeconfig Secret.
 * - `openmcp/`, `access/`: the openMCP contract as pure functions.
 * - `manager/`, `cli/`: `run`'s wiring and the command line.
 *
 * @module
 */
export { parseProviderFlags, USAGE, type InitFlags, type ProviderFlags, type RunFlags } from "./cli/flags.js";
export { DEFAULT_INIT_CONFIGURATION, parseInitConfiguration, type InitConfiguration, type ManifestSource } from "./init/init-configuration.js";
export { install, InstallTimeoutError, type InstallOptions } from "./init/install.js";
export { runProviderManager, type ProviderManagerOptions } from "./manager/provider-manager.js";
export type { WorkloadCluster, WorkloadClusters } from "./access-request/workload-cluster.js";
export { FIELD_MANAGER, providerKeys, type ProviderIdentity, type ProviderKeys } from "./provider/provider-identity.js";
