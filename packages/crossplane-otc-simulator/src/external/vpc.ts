/**
 * VpcV1 (opentelekomcloud_vpc_v1, reference §1.4) and SubnetV1
 * (opentelekomcloud_vpc_subnet_v1, §1.5). Terraform waits for a VPC to be
 * OK and a subnet to be ACTIVE; a subnet's external name is its network ID,
 * and its deletion goes through its VPC.
 */
import { createSubnet, createVpc, deleteSubnet, deleteVpc, getSubnet, getVpc } from "@edgeconnect/otc";
import type { ExternalPhase } from "../managed/conditions.js";
import { booleanParameter, defined, requiredString, stringParameter, type ExternalKind } from "../managed/external.js";

const GROUP = "vpc.opentelekomcloud.m.crossplane.io";
const VERSION = "v1alpha1";

/** Terraform's create waits from `pending` to `target`; any other status fails it. */
function waitPhase(status: string, pending: readonly string[], target: string): ExternalPhase {
  if (status === target) return { kind: "settled" };
  if (pending.includes(status)) return { kind: "settling" };
  if (status === "PENDING_DELETE") return { kind: "deleting" };
  return { kind: "failed", message: `unexpected state '${status}', wanted target '${target}'` };
}

export const VPC_V1: ExternalKind = {
  group: GROUP,
  version: VERSION,
  kind: "VpcV1",
  plural: "vpcv1s",
  scope: "Namespaced",
  // name, cidr and description change in place in Terraform; the simulator does not do that.
  forceNew: new Set(["region"]),
  async create({ otc, signal }, parameters) {
    const description = stringParameter(parameters, "description");
    const vpc = await createVpc(
      otc,
      { name: requiredString(parameters, "name", "name"), cidr: requiredString(parameters, "cidr", "cidr"), ...(description === undefined ? {} : { description }) },
      { signal },
    );
    return vpc.id;
  },
  async observe({ otc, signal }, id, parameters) {
    const vpc = await getVpc(otc, id, { signal });
    if (vpc === undefined) return undefined;
    const reported = defined({ name: vpc.name, cidr: vpc.cidr, description: vpc.description, region: otc.region });
    return {
      phase: waitPhase(vpc.status, ["CREATING"], "OK"),
      atProvider: { ...parameters, ...reported, id: vpc.id, status: vpc.status },
      reported,
    };
  },
  async delete({ otc, signal }, id) {
    await deleteVpc(otc, id, { signal });
  },
};

export const SUBNET_V1: ExternalKind = {
  group: GROUP,
  version: VERSION,
  kind: "SubnetV1",
  plural: "subnetv1s",
  scope: "Namespaced",
  forceNew: new Set(["cidr", "gateway_ip", "vpc_id", "availability_zone", "region"]),
  async create({ otc, signal }, parameters) {
    const optional = defined({
      availabilityZone: stringParameter(parameters, "availabilityZone"),
      primaryDns: stringParameter(parameters, "primaryDns"),
      secondaryDns: stringParameter(parameters, "secondaryDns"),
      dhcpEnable: booleanParameter(parameters, "dhcpEnable"),
    });
    const subnet = await createSubnet(
      otc,
      {
        name: requiredString(parameters, "name", "name"),
        cidr: requiredString(parameters, "cidr", "cidr"),
        gatewayIp: requiredString(parameters, "gatewayIp", "gateway_ip"),
        vpcId: requiredString(parameters, "vpcId", "vpc_id"),
        ...optional,
      },
      { signal },
    );
    return subnet.id;
  },
  async observe({ otc, signal }, id, parameters) {
    const subnet = await getSubnet(otc, id, { signal });
    if (subnet === undefined) return undefined;
    const reported = defined({
      name: subnet.name,
      cidr: subnet.cidr,
      gatewayIp: subnet.gateway_ip,
      vpcId: subnet.vpc_id,
      availabilityZone: subnet.availability_zone,
      primaryDns: subnet.primary_dns,
      secondaryDns: subnet.secondary_dns,
      dhcpEnable: subnet.dhcp_enable,
      description: subnet.description,
      region: otc.region,
    });
    return {
      phase: waitPhase(subnet.status, ["UNKNOWN"], "ACTIVE"),
      atProvider: {
        ...parameters,
        ...reported,
        id: subnet.id,
        networkId: subnet.neutron_network_id,
        subnetId: subnet.neutron_subnet_id,
        status: subnet.status,
      },
      reported,
    };
  },
  async delete({ otc, signal }, id, parameters, observation) {
    const vpcId = stringParameter(observation.atProvider, "vpcId") ?? requiredString(parameters, "vpcId", "vpc_id");
    await deleteSubnet(otc, vpcId, id, { signal });
  },
};
