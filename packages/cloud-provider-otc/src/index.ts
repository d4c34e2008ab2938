/**
 * @edgeconnect/cloud-provider-otc: a cloud controller manager for Open
 * Telekom Cloud. The process is `main.ts`; this entry point exposes its parts
 * for benchmarks and embedding: configuration, the node and service
 * controllers, the ELB drivers and the assembled controller manager.
 *
 * @module
 */
export { FlagError, parseCcmFlags, USAGE, type CcmFlags, type ControllerName } from "./cli/flags.js";
export {
  CloudConfigError,
  DEFAULT_BANDWIDTH_MBIT,
  DEFAULT_CLUSTER_NAME,
  effectiveClusterName,
  parseCloudConfig,
  parseIni,
  type CloudConfig,
  type EndpointService,
  type GlobalConfig,
  type LoadBalancerConfig,
} from "./config/cloud-config.js";
export { AmbiguousInstanceError, OtcInstances, type InstanceMetadata, type InstancesV2 } from "./instances/instances.js";
export { formatProviderId, InvalidProviderIdError, parseProviderId, PROVIDER_NAME } from "./instances/provider-id.js";
export * from "./kube/objects.js";
export { COMPONENT, runControllerManager, type ControllerManagerOptions } from "./manager/controller-manager.js";
export { CLOUD_NODE_CONTROLLER, cloudNodeController } from "./node/cloud-node-controller.js";
export { CLOUD_NODE_LIFECYCLE_CONTROLLER, cloudNodeLifecycleController } from "./node/cloud-node-lifecycle-controller.js";
export type { NodeControllersOptions } from "./node/node-controllers-options.js";
export { desiredLoadBalancer, loadBalancerMembers, wantsLoadBalancer, type DesiredStateInput, type ServiceRejection } from "./service/desired-state.js";
export { DedicatedLoadBalancerDriver, type DedicatedLoadBalancerDriverOptions } from "./service/elb/dedicated-driver.js";
export { eipAlias } from "./service/elb/eips.js";
export { EipPlanChangeError } from "./service/elb/errors.js";
export { SharedLoadBalancerDriver } from "./service/elb/shared-driver.js";
export {
  EipUnavailableError,
  ForeignLoadBalancerError,
  type DesiredLoadBalancer,
  type HealthMonitorSpec,
  type LoadBalancerDriver,
  type LoadBalancerStatus,
  type Lookup,
  type MemberSpec,
  type PortSpec,
} from "./service/load-balancer.js";
export {
  ANNOTATION_BANDWIDTH,
  ANNOTATION_CLASS,
  ANNOTATION_EIP_ID,
  ANNOTATION_INTERNAL,
  loadBalancerIntent,
  loadBalancerName,
  ownedBy,
  ownershipDescription,
  type EipPlan,
  type ElbClass,
  type IntentInput,
  type LoadBalancerIntent,
  type Rejection,
} from "./service/load-balancer-intent.js";
export { SERVICE_CONTROLLER_NAME, serviceController, type ServiceControllerOptions, type ServiceControllerParts } from "./service/service-controller.js";
