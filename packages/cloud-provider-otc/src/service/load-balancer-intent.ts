/**
 * What a Service of type LoadBalancer asks for, read from its annotations and
 * spec, with the defaults and contradictions of the CCM's contract. Pure:
 * plain values in, an intent or a user-facing rejection out.
 *
 * | annotation                     | values            | default                |
 * |--------------------------------|-------------------|------------------------|
 * | otc.cloud/elb-class            | shared, dedicated | shared                 |
 * | otc.cloud/elb-internal         | true, false       | false                  |
 * | otc.cloud/elb-eip-id           | an EIP id         | (auto-created EIP)     |
 * | otc.cloud/elb-bandwidth-mbit   | positive integer  | cloud.conf's, else 100 |
 */

export const ANNOTATION_CLASS = "otc.cloud/elb-class";
export const ANNOTATION_INTERNAL = "otc.cloud/elb-internal";
export const ANNOTATION_EIP_ID = "otc.cloud/elb-eip-id";
export const ANNOTATION_BANDWIDTH = "otc.cloud/elb-bandwidth-mbit";

export type ElbClass = "shared" | "dedicated";

/** How the load balancer gets its public address. */
export type EipPlan =
  /** Internal: only the VIP; no EIP is allocated or bound. */
  | { readonly kind: "none" }
  /** Allocated and bound by the CCM, released with the Service. */
  | { readonly kind: "auto"; readonly bandwidthMbit: number }
  /** The operator's EIP, by id: bound, never released. */
  | { readonly kind: "byo-id"; readonly id: string }
  /** The operator's EIP, by address (spec.loadBalancerIP): bound, never released. */
  | { readonly kind: "byo-address"; readonly address: string };

export interface LoadBalancerIntent {
  readonly elbClass: ElbClass;
  readonly eip: EipPlan;
}

/** Why a Service cannot be served as asked; `message` tells the user what to change. */
export interface Rejection {
  readonly reason: "InvalidAnnotation" | "ContradictingAnnotations" | "DedicatedUnavailable";
  readonly message: string;
}

export interface IntentInput {
  readonly annotations: Readonly<Record<string, string>>;
  /** spec.loadBalancerIP, if set. */
  readonly loadBalancerIP?: string;
  /** cloud.conf's bandwidth-mbit. */
  readonly defaultBandwidthMbit: number;
  /** Whether cloud.conf has network-id, which dedicated ELBs need. */
  readonly dedicatedAvailable: boolean;
}

export function loadBalancerIntent(input: IntentInput): { intent: LoadBalancerIntent } | { rejected: Rejection } {
  const { annotations } = input;
  const elbClass = annotations[ANNOTATION_CLASS] ?? "shared";
  if (elbClass !== "shared" && elbClass !== "dedicated") {
    return invalid(`${ANNOTATION_CLASS} must be "shared" or "dedicated", not ${JSON.stringify(elbClass)}`);
  }
  if (elbClass === "dedicated" && !input.dedicatedAvailable) {
    return {
      rejected: {
        reason: "DedicatedUnavailable",
        message: `${ANNOTATION_CLASS}: dedicated needs network-id in the [LoadBalancer] section of cloud.conf; ask the cluster operator, or use shared`,
      },
    };
  }
  const internalValue = annotations[ANNOTATION_INTERNAL] ?? "false";
  if (internalValue !== "true" && internalValue !== "false") {
    return invalid(`${ANNOTATION_INTERNAL} must be "true" or "false", not ${JSON.stringify(internalValue)}`);
  }
  const internal = internalValue === "true";
  const eipId = annotations[ANNOTATION_EIP_ID];
  const bandwidthValue = annotations[ANNOTATION_BANDWIDTH];
  if (internal && eipId !== undefined) {
    return contradiction(`${ANNOTATION_INTERNAL}: "true" and ${ANNOTATION_EIP_ID} contradict each other; an internal load balancer has no EIP`);
  }
  if (internal && input.loadBalancerIP) {
    return contradiction(`${ANNOTATION_INTERNAL}: "true" and spec.loadBalancerIP contradict each other; remove one`);
  }
  if (eipId !== undefined && input.loadBalancerIP) {
    return contradiction(`${ANNOTATION_EIP_ID} and spec.loadBalancerIP both name an EIP; keep one`);
  }
  let bandwidthMbit = input.defaultBandwidthMbit;
  if (bandwidthValue !== undefined) {
    if (!/^[1-9][0-9]*$/.test(bandwidthValue)) {
      return invalid(`${ANNOTATION_BANDWIDTH} must be a positive integer (Mbit/s), not ${JSON.stringify(bandwidthValue)}`);
    }
    if (internal || eipId !== undefined || input.loadBalancerIP) {
      return contradiction(`${ANNOTATION_BANDWIDTH} applies only to an EIP the CCM creates; remove it, or the EIP choice`);
    }
    bandwidthMbit = Number(bandwidthValue);
  }
  if (eipId === "") return invalid(`${ANNOTATION_EIP_ID} is empty; give an EIP id or remove the annotation`);
  const eip: EipPlan = internal
    ? { kind: "none" }
    : eipId !== undefined
      ? { kind: "byo-id", id: eipId }
      : input.loadBalancerIP
        ? { kind: "byo-address", address: input.loadBalancerIP }
        : { kind: "auto", bandwidthMbit };
  return { intent: { elbClass, eip } };
}

function invalid(message: string): { rejected: Rejection } {
  return { rejected: { reason: "InvalidAnnotation", message } };
}

function contradiction(message: string): { rejected: Rejection } {
  return { rejected: { reason: "ContradictingAnnotations", message } };
}

/** `kube_<clusterName>_<namespace>_<service>`: deterministic, so a restart finds the same ELB. */
export function loadBalancerName(clusterName: string, namespace: string, service: string): string {
  return `kube_${clusterName}_${namespace}_${service}`;
}

/** The ELB description that marks a Service's ownership. */
export function ownershipDescription(serviceUid: string): string {
  return `kubernetes.io/service-uid=${serviceUid}`;
}

/**
 * Whether an ELB found under the Service's name belongs to it. One with our
 * name but another (or no) UID is foreign: never adopted, changed or deleted.
 */
export function ownedBy(description: string | undefined, serviceUid: string): boolean {
  return description === ownershipDescription(serviceUid);
}
