/**
 * @edgeconnect/otc-simulator: a simulator of Open Telekom Cloud for tests
 * and the local demo. Not a cloud client and not for production.
 *
 * `startOtcSimulator` serves, on one loopback URL, the parts of OTC the
 * control plane uses: IAM password tokens and project lookup, ECS servers,
 * VPCs and subnets, ELB v2 (shared) and v3 (dedicated) load balancers with
 * listeners, pools, members and health monitors, EIPs, Nova key pairs, and
 * CCE clusters (master EIP, kubeconfig) with node pools. Every request must
 * carry a valid AK/SK signature (checked with `@edgeconnect/otc`'s signer)
 * or a live IAM token of the path's project. It keeps state, applies OTC's
 * status transitions (PENDING_CREATE → ACTIVE, 409 while an LB is busy, an
 * EIP binds once, Neutron subnet ids for ELB and network ids for CCE, only
 * the cluster versions CCE offers (`DEFAULT_CCE_VERSIONS`), CCE
 * Creating → Available, node pools Synchronizing → "" or SoldOut by the
 * configured flavor capacity per zone), and can inject faults.
 *
 * `createCertificateAuthority` and `issueClientCertificate` make the
 * certificates of the workload kube-apiserver that a simulated CCE
 * cluster's kubeconfig reaches.
 *
 * @module
 */
export { startOtcSimulator, type OtcSimulator, type OtcSimulatorOptions } from "./server.js";
export {
  createCertificateAuthority,
  issueClientCertificate,
  type CertificateAndKey,
  type ClientCertificateRequest,
} from "./workload-certificates.js";
export { Faults, requestMatches, type Caller, type FaultPhase, type RequestLogEntry, type RequestMatch } from "./faults.js";
export { MAX_CLOCK_SKEW_MS } from "./signature-check.js";
export {
  DEFAULT_CCE_VERSIONS,
  DEFAULT_FLAVORS,
  Eip,
  LoadBalancer,
  SimulatorState,
  Vpc,
  type AddressType,
  type CceCluster,
  type CceClusterSpec,
  type Clock,
  type CloudSettings,
  type EipStatus,
  type ElbApi,
  type Keypair,
  type Listener,
  type LiveObjects,
  type Member,
  type Monitor,
  type NodePool,
  type NodePoolVolume,
  type PasswordUser,
  type Pool,
  type Project,
  type ProvisioningStatus,
  type ResourceCounts,
  type Server,
  type ServerAddress,
  type ServerSeed,
  type StoredSubnet,
  type Subnet,
  type VpcStatus,
  type WorkloadCluster,
} from "./state.js";
