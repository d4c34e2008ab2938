/**
 * @edgeconnect/otc: a dependency-free client for the Open Telekom Cloud APIs
 * a cloud-controller-manager and a Kubernetes-cluster provisioner need.
 *
 * - AK/SK signing in the API gateway's `SDK-HMAC-SHA256 Access=` form, with
 *   the pieces exposed separately so a simulator can verify signatures.
 * - IAM token authentication with an IAM user's password: a project-scoped
 *   token, renewed before it expires and on a 401, one request at a time.
 * - `OtcClient`: authenticated JSON requests per service endpoint,
 *   `X-Project-Id`, retries with jittered backoff on 409/429/5xx/network
 *   errors; endpoints per region, per override or from an `auth_url`.
 * - IAM project discovery by name (default: the region) and
 *   `validateCredentials`, which tells refused credentials from an
 *   unreachable IAM.
 * - The four paging styles as async iterators.
 * - `abortable`: waiting on shared work (a connect, a token request) that
 *   ends at once for the one caller whose signal aborts.
 * - ECS servers and keypairs, ELB v2 (shared) and v3 (dedicated) load
 *   balancers with listeners, pools, members and health monitors, EIPs,
 *   VPCs and subnets, and CCE clusters (master EIP, client certificates)
 *   with their node pools.
 *
 * @module
 */
export { abortable } from "./abort.js";
export { OtcApiError, OtcConfigError, isCredentialRejection, isRetryableStatus, parseErrorBody, type OtcErrorDetail } from "./errors.js";
export {
  canonicalRequest,
  parseAuthorization,
  sdkDate,
  signature,
  signRequest,
  stringToSign,
  type Credentials,
  type SignableRequest,
} from "./signing/signer.js";
export { SERVICES, endpointsFromAuthUrl, resolveEndpoints, serviceUrl, type Endpoints, type Service } from "./endpoints.js";
export {
  OtcClient,
  isPasswordCredentials,
  type AuthMode,
  type OtcCallOptions,
  type OtcClientOptions,
  type OtcRequestOptions,
  type QueryValue,
  type RetryOptions,
} from "./otc-client.js";
export type { PasswordCredentials } from "./iam-token.js";
export { connectOtcClient, discoverProjectId, validateCredentials, type Project, type ValidatedCredentials } from "./iam.js";
export { collect, listByLinks, listByMarker, listByPageInfo, listByPageNumber, type ListRequest } from "./pagination.js";
export type { Ref } from "./resource.js";
export { getServer, listServersByName, type Server, type ServerAddress, type ServerStatus } from "./ecs.js";
export { createKeypair, deleteKeypair, getKeypair, type CreateKeypair, type Keypair } from "./keypairs.js";
export {
  createSubnet,
  createVpc,
  deleteSubnet,
  deleteVpc,
  getSubnet,
  getVpc,
  type CreateSubnet,
  type CreateVpc,
  type Subnet,
  type SubnetStatus,
  type Vpc,
  type VpcStatus,
} from "./vpc.js";
export {
  bindCceMasterEip,
  createCceCluster,
  createCceNodePool,
  deleteCceCluster,
  deleteCceNodePool,
  getCceCluster,
  getCceClusterCert,
  type ClusterCertOptions,
  getCceNodePool,
  unbindCceMasterEip,
  updateCceNodePool,
  type CceCluster,
  type CceClusterDeletion,
  type CceClusterEndpoint,
  type CceClusterPhase,
  type CceClusterSpec,
  type CceDeleteChoice,
  type CceKubeconfig,
  type CceMetadata,
  type CceNodePool,
  type CceNodePoolPhase,
  type CceNodePoolSpec,
  type CceNodeTemplate,
  type CceVolume,
  type CreateCceCluster,
  type CreateCceNodePool,
  type NewCceMetadata,
} from "./cce.js";
export {
  createHealthMonitorV2,
  createListenerV2,
  createLoadBalancerV2,
  createMemberV2,
  createPoolV2,
  deleteHealthMonitorV2,
  deleteListenerV2,
  deleteLoadBalancerV2,
  deleteMemberV2,
  deletePoolV2,
  getHealthMonitorV2,
  getLoadBalancerV2,
  listListenersV2,
  listLoadBalancersV2,
  listMembersV2,
  listPoolsV2,
  updateHealthMonitorV2,
  updatePoolV2,
  type CreateHealthMonitorV2,
  type CreateListenerV2,
  type CreateLoadBalancerV2,
  type CreateMemberV2,
  type CreatePoolV2,
  type HealthMonitorSettingsV2,
  type HealthMonitorV2,
  type LbAlgorithmV2,
  type ListenerProtocolV2,
  type ListenerV2,
  type LoadBalancerV2,
  type MemberV2,
  type OperatingStatus,
  type PoolV2,
  type ProvisioningStatus,
  type SessionPersistence,
  type UpdateHealthMonitorV2,
  type UpdatePoolV2,
} from "./elb-v2.js";
export {
  createHealthMonitorV3,
  createListenerV3,
  createLoadBalancerV3,
  createMemberV3,
  createPoolV3,
  deleteHealthMonitorV3,
  deleteListenerV3,
  deleteLoadBalancerV3,
  deleteMemberV3,
  deletePoolV3,
  getHealthMonitorV3,
  getLoadBalancerV3,
  listListenersV3,
  listLoadBalancersV3,
  listMembersV3,
  listPoolsV3,
  updateHealthMonitorV3,
  updatePoolV3,
  type CreateHealthMonitorV3,
  type CreateListenerV3,
  type CreateLoadBalancerV3,
  type CreateMemberV3,
  type CreatePoolV3,
  type HealthMonitorSettingsV3,
  type HealthMonitorTypeV3,
  type HealthMonitorV3,
  type LbAlgorithmV3,
  type ListenerProtocolV3,
  type ListenerSettingsV3,
  type ListenerV3,
  type LoadBalancerV3,
  type MemberSettingsV3,
  type MemberV3,
  type NewPublicIpV3,
  type PoolProtocolV3,
  type PoolSettingsV3,
  type PoolV3,
} from "./elb-v3.js";
export {
  bindPublicIp,
  createPublicIp,
  getPublicIp,
  listPublicIps,
  releasePublicIp,
  unbindPublicIp,
  type CreatePublicIp,
  type PublicIp,
  type PublicIpStatus,
} from "./eip.js";
