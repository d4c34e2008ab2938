/**
 * @edgeconnect/cloud-provider-otc: a cloud controller manager for Open
 * Telekom Cloud. So far its configuration (`cloud.conf`) and the rules that
 * turn a Service's annotations into a load-balancer intent; the node and
 * Service controllers build on these.
 *
 * @module
 */
export {
  CloudConfigError,
  DEFAULT_BANDWIDTH_MBIT,
  DEFAULT_CLUSTER_NAME,
  effectiveClusterName,
  parseCloudConfig,
  parseIni,
  type CloudConfig,
  type GlobalConfig,
  type LoadBalancerConfig,
} from "./config/cloud-config.js";
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
