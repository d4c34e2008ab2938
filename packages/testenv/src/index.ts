/**
 * @edgeconnect/testenv: real kcp, kube-apiserver, kube-controller-manager and
 * etcd processes for tests and the local demo, plus the fixtures to use them
 * (workspaces, bindings, manifests, polling with reasons), the helm CLI the
 * chart tests render with, the real Cluster API managers and operator
 * (`ClusterApiStack`), their components as clusterctl installs them, a
 * stand-in for the kubelet of chosen Deployments' Pods, openMCP's CRDs,
 * the Crossplane OTC provider simulator (`CrossplaneOtcSimulator`), and an
 * OpenID Connect issuer whose tokens a kube-apiserver can be set to trust
 * (`OidcIssuer`).
 *
 * Servers run on free loopback ports in temporary directories, each in its own
 * process group; a reaper process removes them if the owner dies. Binaries come
 * from KCP_BIN / KUBE_APISERVER_BIN / KUBE_CONTROLLER_MANAGER_BIN / ETCD_BIN /
 * HELM_BIN / CROSSPLANE_OTC_SIMULATOR_BIN, PATH, the repository cache, or a build from the Go module proxy
 * (see `binaries.ts`).
 *
 * @module
 */
export { freePort } from "./ports.js";
export { applyCrds, applyManifests, objectPath, parseManifests, TESTENV_FIELD_MANAGER, type ApplyCrdsOptions } from "./apply.js";
export { BINARIES, moduleSource, REPO_ROOT, resolveBinary, type BinaryName, type ResolvedBinary } from "./binaries.js";
export {
  CLUSTER_API_PROVIDERS,
  ClusterApiStack,
  type ClusterApiManager,
  type ClusterApiProvider,
  type ClusterApiStackOptions,
} from "./cluster-api.js";
export {
  fetchConfigMap,
  providerComponents,
  type Components,
  type ComponentsOptions,
  type FetchConfigMapOptions,
  type ProviderComponents,
} from "./cluster-api-components.js";
export { CrossplaneOtcSimulator, type CrossplaneOtcSimulatorOptions } from "./crossplane-otc-simulator.js";
export { SUITE_STARTUP_DURATION, withInMemoryStartup } from "./in-memory-startup.js";
export { DeploymentStandIn, type DeploymentStandInOptions, type StandInDeployment } from "./deployment-stand-in.js";
export {
  connect,
  connectFromEnv,
  infraModeFromEnv,
  loadState,
  saveState,
  STATE_ENV_VAR,
  TestEnvironment,
  workerStatePath,
  type Connection,
  type EnvironmentOptions,
  type EnvironmentState,
  type InfraMode,
} from "./environment.js";
export { httpStatus, waitForObject, waitUntilGone } from "./object-waits.js";
export { BinaryUnavailableError, FatalError, ServerExitedError, TimeoutError } from "./errors.js";
export { E2E_LOG_DIR_ENV_VAR, e2eCredentialsDir, e2eLogStream, keepE2eLog, recordE2eCredentials, recordedE2eCredentials, type RecordedCredential } from "./e2e-logs.js";
export { eventually, holds, type Check, type EventuallyOptions } from "./eventually.js";
export { KCP_TEST_USERS, KCP_TOKEN_FILE, KcpServer, kcpUserKubeconfig, type KcpServerOptions, type KcpStaticUser } from "./kcp-server.js";
export { KindCluster, kindAvailability, type Availability } from "./kind.js";
export {
  KubeApiServer,
  resolveControlPlaneBinaries,
  type AuthenticationConfiguration,
  type ControlPlaneBinaries,
  type KubeApiServerOptions,
} from "./kube-apiserver.js";
export { readKubeconfig, renderKubeconfig, writeKubeconfig, type KubeconfigSpec } from "./kubeconfig.js";
export { OidcIssuer, type JwtAuthenticator, type JwtAuthenticatorOptions, type MintOptions, type OidcIssuerOptions } from "./oidc-issuer.js";
export { installOpenMcpCrds, openMcpApiSource, type InstallOpenMcpCrdsOptions, type OpenMcpApiSource } from "./openmcp-crds.js";
export { provided } from "./provided.js";
export { Reaper } from "./reaper.js";
export { ServerProcess, type ExitStatus, type ServerProcessOptions } from "./server-process.js";
export { StallingProxy, type StallingProxyOptions } from "./stalling-proxy.js";
export {
  apiExportEndpoints,
  bindApiExport,
  createWorkspace,
  deleteWorkspace,
  type PermissionClaim,
  type Workspace,
} from "./workspaces.js";
