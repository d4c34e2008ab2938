/**
 * The parts of core/v1 Nodes and Services the controller manager reads and
 * writes, and the well-known keys of k8s.io/cloud-provider it must use
 * verbatim so that kubelets started with `--cloud-provider=external` and the
 * rest of Kubernetes understand it. Plain types: pure logic imports these,
 * not @kubernetes/client-node.
 */
import type { KubeObject, ObjectMeta } from "@edgeconnect/kcp-ts";

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
  readonly timeAdded?: string;
}

export type NodeAddressType = "Hostname" | "InternalIP" | "ExternalIP" | "InternalDNS" | "ExternalDNS";

export interface NodeAddress {
  readonly type: NodeAddressType;
  readonly address: string;
}

export interface NodeCondition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
}

export interface Node extends KubeObject {
  metadata?: ObjectMeta;
  spec?: { providerID?: string; taints?: Taint[]; unschedulable?: boolean };
  status?: { addresses?: NodeAddress[]; conditions?: NodeCondition[] };
}

export type ServiceProtocol = "TCP" | "UDP" | "SCTP";

export interface ServicePort {
  readonly name?: string;
  readonly protocol?: ServiceProtocol;
  readonly port: number;
  readonly nodePort?: number;
}

export interface LoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
}

export interface Service extends KubeObject {
  metadata?: ObjectMeta;
  spec?: {
    type?: string;
    ports?: ServicePort[];
    loadBalancerClass?: string;
    loadBalancerIP?: string;
    externalTrafficPolicy?: "Cluster" | "Local";
    healthCheckNodePort?: number;
    sessionAffinity?: "None" | "ClientIP";
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

/** kubelet --cloud-provider=external registers nodes with this taint until the CCM initialises them. */
export const TAINT_UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized";
/** Set by the node lifecycle controller on nodes whose instance is shut down. */
export const TAINT_SHUTDOWN = "node.cloudprovider.kubernetes.io/shutdown";
/** The Service finalizer the service controller adds before it creates a load balancer. */
export const FINALIZER_LOAD_BALANCER_CLEANUP = "service.kubernetes.io/load-balancer-cleanup";
/** Nodes carrying this label, whatever its value, stay out of load balancers (as in k8s.io/cloud-provider). */
export const LABEL_EXCLUDE_FROM_LOAD_BALANCERS = "node.kubernetes.io/exclude-from-external-load-balancers";
/** The cluster autoscaler's taint on nodes it is about to remove. */
export const TAINT_TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler";

export const LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type";
export const LABEL_INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type";
export const LABEL_ZONE = "topology.kubernetes.io/zone";
export const LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone";
export const LABEL_REGION = "topology.kubernetes.io/region";
export const LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region";
/** Set by kubelet --node-ip; the CCM keeps that address first. */
export const ANNOTATION_PROVIDED_NODE_IP = "alpha.kubernetes.io/provided-node-ip";

export const NODES_PATH = "/api/v1/nodes";
export const SERVICES_PATH = "/api/v1/services";

export function nodePath(name: string): string {
  return `${NODES_PATH}/${encodeURIComponent(name)}`;
}

export function servicePath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`;
}
