/**
 * Values the controller reads back from managed resources it applied, to
 * write them as literals into the resources that depend on them.
 */

/** The part of a managed resource, as read from the API server, that this package looks at. */
export interface ObservedManagedResource {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    generation?: number;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
  };
  spec?: {
    forProvider?: Record<string, unknown>;
  };
  status?: {
    observedGeneration?: number;
    conditions?: readonly ManagedResourceCondition[];
    atProvider?: Record<string, unknown>;
  };
}

export interface ManagedResourceCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** Crossplane's record of the external resource's id (for a key pair: its name). */
export const EXTERNAL_NAME_ANNOTATION = "crossplane.io/external-name";

/** The OTC id: `status.atProvider.id`, else the external-name annotation. */
export function observedId(resource: ObservedManagedResource | undefined): string | undefined {
  return nonEmpty(resource?.status?.atProvider?.["id"]) ?? nonEmpty(resource?.metadata?.annotations?.[EXTERNAL_NAME_ANNOTATION]);
}

/** A SubnetV1's network id, the one CCE wants as `subnetId` (equal to its `id`). */
export function subnetNetworkId(subnet: ObservedManagedResource | undefined): string | undefined {
  return nonEmpty(subnet?.status?.atProvider?.["networkId"]) ?? observedId(subnet);
}

/** An EIPV1's public address: `atProvider.publicip[0].ipAddress`, the only place the provider reports it. */
export function eipAddress(eip: ObservedManagedResource | undefined): string | undefined {
  const publicip = eip?.status?.atProvider?.["publicip"];
  const first: unknown = Array.isArray(publicip) ? publicip[0] : undefined;
  return nonEmpty(typeof first === "object" && first !== null ? (first as Record<string, unknown>)["ipAddress"] : undefined);
}

/** `status.atProvider.status`: the OTC status of the external resource. */
export function externalStatus(resource: ObservedManagedResource | undefined): string | undefined {
  const status = resource?.status?.atProvider?.["status"];
  return typeof status === "string" ? status : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
