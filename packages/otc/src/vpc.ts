/**
 * VPC v1: virtual private clouds and their subnets, the host network of a
 * CCE cluster. Both are created asynchronously: a VPC turns from CREATING
 * to OK, a subnet from UNKNOWN to ACTIVE. A subnet has three IDs: `id`,
 * which equals the Neutron network ID `neutron_network_id` (what CCE's
 * `hostNetwork.subnet` takes), and the Neutron subnet ID
 * `neutron_subnet_id` (what ELB VIPs take).
 */
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { createResource, deleteResource, getResource, type ResourceType } from "./resource.js";

export type VpcStatus = "CREATING" | "OK" | "DOWN" | "PENDING_UPDATE" | "PENDING_DELETE" | "ERROR";

export interface Vpc {
  readonly id: string;
  readonly name: string;
  readonly cidr: string;
  /** Unknown values are possible in newer API versions. */
  readonly status: VpcStatus | (string & {});
  readonly description?: string;
  readonly routes?: readonly { readonly destination: string; readonly nexthop: string }[];
  readonly enterprise_project_id?: string;
}

export interface CreateVpc {
  readonly name: string;
  /** Within 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16, at most /24 as the VPC's range. */
  readonly cidr: string;
  readonly description?: string;
}

export type SubnetStatus = "ACTIVE" | "UNKNOWN" | "DOWN" | "ERROR";

export interface Subnet {
  /** Equal to `neutron_network_id`. */
  readonly id: string;
  readonly name: string;
  readonly cidr: string;
  readonly gateway_ip: string;
  readonly vpc_id: string;
  readonly neutron_network_id: string;
  readonly neutron_subnet_id: string;
  /** Unknown values are possible in newer API versions. */
  readonly status: SubnetStatus | (string & {});
  readonly availability_zone?: string;
  readonly primary_dns?: string;
  readonly secondary_dns?: string;
  readonly dnsList?: readonly string[];
  readonly dhcp_enable?: boolean;
  readonly description?: string;
}

export interface CreateSubnet {
  readonly name: string;
  /** Inside the VPC's range, at most /28. */
  readonly cidr: string;
  /** An address of `cidr`, conventionally its first. */
  readonly gatewayIp: string;
  readonly vpcId: string;
  readonly availabilityZone?: string;
  /** OTC's default 100.125.4.25. */
  readonly primaryDns?: string;
  /** OTC's default 100.125.129.199. */
  readonly secondaryDns?: string;
  /** Default true. */
  readonly dhcpEnable?: boolean;
}

function vpcs(client: OtcClient): ResourceType {
  return { service: "vpc", key: "vpc", collectionPath: `/v1/${client.projectId}/vpcs` };
}

/** Created and read at `/subnets`, deleted under their VPC. */
function subnets(client: OtcClient, vpcId?: string): ResourceType {
  const project = client.projectId;
  return { service: "vpc", key: "subnet", collectionPath: vpcId === undefined ? `/v1/${project}/subnets` : `/v1/${project}/vpcs/${encodeURIComponent(vpcId)}/subnets` };
}

/** Creates a VPC; it starts CREATING and turns OK. */
export function createVpc(client: OtcClient, spec: CreateVpc, options: OtcCallOptions = {}): Promise<Vpc> {
  return createResource(client, vpcs(client), spec, {}, options);
}

/** Undefined if it does not exist. */
export function getVpc(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<Vpc | undefined> {
  return getResource(client, vpcs(client), id, options);
}

/** Deletes the VPC; false if it was already gone. OTC refuses (409) while it has subnets. */
export function deleteVpc(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<boolean> {
  return deleteResource(client, vpcs(client), id, options);
}

/** Creates a subnet; it starts UNKNOWN and turns ACTIVE. */
export function createSubnet(client: OtcClient, spec: CreateSubnet, options: OtcCallOptions = {}): Promise<Subnet> {
  const body = {
    name: spec.name,
    cidr: spec.cidr,
    gateway_ip: spec.gatewayIp,
    vpc_id: spec.vpcId,
    availability_zone: spec.availabilityZone,
    primary_dns: spec.primaryDns,
    secondary_dns: spec.secondaryDns,
    dhcp_enable: spec.dhcpEnable,
  };
  return createResource(client, subnets(client), body, {}, options);
}

/** Undefined if it does not exist. `id` is the subnet's (network) ID. */
export function getSubnet(client: OtcClient, id: string, options: OtcCallOptions = {}): Promise<Subnet | undefined> {
  return getResource(client, subnets(client), id, options);
}

/** Deletes the subnet of `vpcId`; false if it was already gone. OTC refuses (409) while a CCE cluster or a server uses it. */
export function deleteSubnet(client: OtcClient, vpcId: string, id: string, options: OtcCallOptions = {}): Promise<boolean> {
  return deleteResource(client, subnets(client, vpcId), id, options);
}
