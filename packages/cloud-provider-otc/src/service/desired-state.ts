/**
 * From a Service, the cluster's nodes and cloud.conf to the load balancer the
 * Service should have, or to the reason it cannot have one. Pure: the
 * service controller does the reading and writing around it.
 *
 * Rules, as k8s.io/cloud-provider's service controller applies them:
 * - only `type: LoadBalancer` Services without a `loadBalancerClass` are ours;
 * - members are the nodes not being deleted, not labelled
 *   `node.kubernetes.io/exclude-from-external-load-balancers`, not tainted
 *   `ToBeDeletedByClusterAutoscaler`; readiness is not required (kube-proxy
 *   forwards from any node, and health monitors take broken ones out);
 * - `externalTrafficPolicy: Local` probes kube-proxy's health-check node port
 *   over HTTP at `/healthz`, so only nodes with endpoints get traffic (TCP
 *   ports only: OTC pairs UDP pools with UDP_CONNECT monitors alone);
 * - OTC ELB listeners speak TCP and UDP only: SCTP is refused, as the SCTP
 *   KEP asks of clouds that lack it.
 */
import type { DeepReadonly } from "@edgeconnect/runtime";
import type { LoadBalancerConfig } from "../config/cloud-config.js";
import {
  LABEL_EXCLUDE_FROM_LOAD_BALANCERS,
  TAINT_TO_BE_DELETED,
  type Node,
  type Service,
  type ServicePort,
} from "../kube/objects.js";
import type { DesiredLoadBalancer, HealthMonitorSpec, MemberSpec, PortSpec } from "./load-balancer.js";
import { loadBalancerIntent, loadBalancerName, ownershipDescription, type Rejection } from "./load-balancer-intent.js";

/** Why the desired state cannot be computed; the message tells the user what to change. */
export interface ServiceRejection {
  readonly reason: Rejection["reason"] | "UnsupportedProtocol" | "MissingNodePort" | "MissingHealthCheckNodePort" | "NoPorts";
  readonly message: string;
}

export interface DesiredStateInput {
  readonly service: Service;
  readonly nodes: readonly DeepReadonly<Node>[];
  readonly clusterName: string;
  readonly config: LoadBalancerConfig;
}

/** Probe timing: a dead node leaves the pool after about 3 × 5 s. */
const MONITOR_TIMING = { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } as const;

/** Whether the default cloud load balancer serves this Service. */
export function wantsLoadBalancer(service: DeepReadonly<Service>): boolean {
  return service.spec?.type === "LoadBalancer" && (service.spec.loadBalancerClass ?? "") === "";
}

export function desiredLoadBalancer(input: DesiredStateInput): { desired: DesiredLoadBalancer } | { rejected: ServiceRejection } {
  const { service, config } = input;
  const metadata = service.metadata ?? {};
  const spec = service.spec ?? {};
  const intent = loadBalancerIntent({
    annotations: metadata.annotations ?? {},
    ...(spec.loadBalancerIP ? { loadBalancerIP: spec.loadBalancerIP } : {}),
    defaultBandwidthMbit: config.bandwidthMbit,
    dedicatedAvailable: config.networkId !== undefined,
  });
  if ("rejected" in intent) return intent;

  const ports = spec.ports ?? [];
  if (ports.length === 0) return reject("NoPorts", "a LoadBalancer Service needs at least one port");
  const sctp = ports.filter((port) => port.protocol === "SCTP");
  if (sctp.length > 0) {
    return reject(
      "UnsupportedProtocol",
      `OTC ELB supports TCP and UDP only; remove the SCTP port(s) ${sctp.map(describePort).join(", ")} or use another Service type`,
    );
  }
  const unallocated = ports.filter((port) => port.nodePort === undefined);
  if (unallocated.length > 0) {
    return reject(
      "MissingNodePort",
      `port(s) ${unallocated.map(describePort).join(", ")} have no node port; OTC ELB forwards to node ports, so allocateLoadBalancerNodePorts must not be false`,
    );
  }
  const local = spec.externalTrafficPolicy === "Local";
  if (local && spec.healthCheckNodePort === undefined) {
    return reject("MissingHealthCheckNodePort", "externalTrafficPolicy Local needs spec.healthCheckNodePort, which the API server allocates; recreate the Service");
  }

  const uid = metadata.uid ?? "";
  return {
    desired: {
      name: loadBalancerName(input.clusterName, metadata.namespace ?? "", metadata.name ?? ""),
      description: ownershipDescription(uid),
      serviceUid: uid,
      elbClass: intent.intent.elbClass,
      eip: intent.intent.eip,
      subnetId: config.subnetId,
      ...(config.networkId === undefined ? {} : { networkId: config.networkId }),
      ports: ports.map((port) => portSpec(port, local ? spec.healthCheckNodePort : undefined, spec.sessionAffinity === "ClientIP")),
      members: loadBalancerMembers(input.nodes),
    },
  };
}

/** The nodes a load balancer forwards to, by InternalIP, sorted by name. */
export function loadBalancerMembers(nodes: readonly DeepReadonly<Node>[]): MemberSpec[] {
  const members: MemberSpec[] = [];
  for (const node of nodes) {
    if (!isLoadBalancerNode(node)) continue;
    const address = node.status?.addresses?.find((candidate) => candidate.type === "InternalIP")?.address;
    if (address !== undefined) members.push({ name: node.metadata?.name ?? "", address });
  }
  return members.sort((a, b) => a.name.localeCompare(b.name));
}

function isLoadBalancerNode(node: DeepReadonly<Node>): boolean {
  if (node.metadata?.deletionTimestamp !== undefined) return false;
  if (node.metadata?.labels?.[LABEL_EXCLUDE_FROM_LOAD_BALANCERS] !== undefined) return false;
  return !(node.spec?.taints ?? []).some((taint) => taint.key === TAINT_TO_BE_DELETED);
}

function portSpec(port: ServicePort, healthCheckNodePort: number | undefined, sessionAffinity: boolean): PortSpec {
  const protocol = port.protocol === "UDP" ? "UDP" : "TCP";
  // OTC allows only UDP_CONNECT monitors on UDP pools, so a UDP port cannot
  // probe kube-proxy's HTTP health check and falls back to its node port.
  const monitor: HealthMonitorSpec =
    protocol === "UDP"
      ? { type: "UDP_CONNECT", ...MONITOR_TIMING }
      : healthCheckNodePort !== undefined
        ? { type: "HTTP", port: healthCheckNodePort, urlPath: "/healthz", ...MONITOR_TIMING }
        : { type: "TCP", ...MONITOR_TIMING };
  return {
    protocol,
    port: port.port,
    nodePort: port.nodePort ?? 0,
    name: `${protocol.toLowerCase()}-${port.port}`,
    monitor,
    sessionAffinity,
  };
}

function describePort(port: ServicePort): string {
  return `${port.name ? `${port.name} ` : ""}${port.port}/${port.protocol ?? "TCP"}`;
}

function reject(reason: ServiceRejection["reason"], message: string): { rejected: ServiceRejection } {
  return { rejected: { reason, message } };
}
