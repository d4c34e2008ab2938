/**
 * Spec changes an existing cluster cannot take. Almost every CCE cluster
 * field forces a new cluster, and a changed node pool zone or disk size
 * would replace every node; the controller keeps the infrastructure as it
 * is and tells the tenant what to set back, instead of letting the provider
 * park the resource at an error or rebuilding it.
 */
import { normalizeKubernetesVersion, sameKubernetesVersion } from "../version/kubernetes-version.js";

/** The immutable part of a KubernetesCluster spec; `nodeDiskGiB` is `toGiB(spec.nodeDiskSize)`. */
export interface DesiredInfrastructure {
  kubernetesVersion: string;
  availableZone?: string;
  /** A zone or `random`. */
  nodeAvailableZone: string;
  nodeDiskGiB: number;
  vpcID?: string;
  subnetID?: string;
}

/**
 * What the existing infrastructure was created with, as in the applied
 * managed resources' `forProvider`. `undefined` means unknown (the resource
 * does not exist yet) and is never refused; `masterZone: null` means the
 * control plane was created without a zone.
 */
export interface ObservedInfrastructure {
  clusterVersion?: string;
  masterZone?: string | null;
  nodePoolZone?: string;
  nodeDiskGiB?: number;
  vpcId?: string;
  subnetId?: string;
}

/** One message per refused change, each saying what to set back; empty when the spec fits the infrastructure. */
export function refusedChanges(desired: DesiredInfrastructure, observed: ObservedInfrastructure): string[] {
  const refused: string[] = [];
  const refuse = (field: string, from: string, to: string): void => {
    refused.push(`${field} cannot change from ${from} to ${to} in place; set it back to ${from}`);
  };

  if (observed.clusterVersion !== undefined && !sameKubernetesVersion(desired.kubernetesVersion, observed.clusterVersion)) {
    refuse("kubernetes.version", displayVersion(observed.clusterVersion), displayVersion(desired.kubernetesVersion));
  }
  if (observed.masterZone !== undefined && (desired.availableZone ?? null) !== observed.masterZone) {
    if (observed.masterZone === null) refused.push("availableZone cannot be set in place; remove it");
    else if (desired.availableZone === undefined) refused.push(`availableZone cannot be removed in place; set it back to ${observed.masterZone}`);
    else refuse("availableZone", observed.masterZone, desired.availableZone);
  }
  if (observed.nodePoolZone !== undefined && desired.nodeAvailableZone !== observed.nodePoolZone) {
    refuse("nodeAvailableZone", observed.nodePoolZone, desired.nodeAvailableZone);
  }
  if (observed.nodeDiskGiB !== undefined && desired.nodeDiskGiB !== observed.nodeDiskGiB) {
    refuse("nodeDiskSize", `${observed.nodeDiskGiB}Gi`, `${desired.nodeDiskGiB}Gi`);
  }
  if (desired.vpcID !== undefined && observed.vpcId !== undefined && desired.vpcID !== observed.vpcId) refuse("vpcID", observed.vpcId, desired.vpcID);
  if (desired.subnetID !== undefined && observed.subnetId !== undefined && desired.subnetID !== observed.subnetId) {
    refuse("subnetID", observed.subnetId, desired.subnetID);
  }
  return refused;
}

function displayVersion(version: string): string {
  return normalizeKubernetesVersion(version) ?? version;
}
