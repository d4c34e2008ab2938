/**
 * @edgeconnect/otc-simulator: a simulator of Open Telekom Cloud for tests
 * and the local demo. Not a cloud client and not for production.
 *
 * `startOtcSimulator` serves, on one loopback URL, the parts of OTC the
 * control plane uses: IAM project lookup, ECS servers, ELB v2 (shared) and
 * v3 (dedicated) load balancers with listeners, pools, members and health
 * monitors, and EIPs. Every request must carry a valid AK/SK signature
 * (checked with `@edgeconnect/otc`'s signer). It keeps state, applies OTC's
 * status transitions (PENDING_CREATE → ACTIVE, 409 while an LB is busy, an
 * EIP binds once, Neutron subnet ids for ELB), and can inject faults.
 *
 * @module
 */
export { startOtcSimulator, type OtcSimulator, type OtcSimulatorOptions } from "./server.js";
export { Faults, type FaultPhase, type RequestLogEntry, type RequestMatch } from "./faults.js";
export { MAX_CLOCK_SKEW_MS } from "./signature-check.js";
export {
  Eip,
  LoadBalancer,
  SimulatorState,
  type AddressType,
  type Clock,
  type EipStatus,
  type ElbApi,
  type Listener,
  type Member,
  type Monitor,
  type Pool,
  type Project,
  type ProvisioningStatus,
  type ResourceCounts,
  type Server,
  type ServerAddress,
  type ServerSeed,
  type Subnet,
} from "./state.js";
