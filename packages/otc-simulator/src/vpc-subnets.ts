/**
 * VPC v1 subnets: create (`POST /v1/{project}/subnets`, UNKNOWN, then ACTIVE
 * after the transition delay), get and list (`GET /v1/{project}/subnets[/{id}]`,
 * where a client finds the `neutron_subnet_id` and `neutron_network_id` that
 * ELB wants), and delete (`DELETE /v1/{project}/vpcs/{vpc}/subnets/{id}`),
 * refused (409) while a CCE cluster or a load balancer uses the subnet.
 *
 * A created subnet's id is its Neutron network id, as in OTC (the Neutron
 * subnet id differs); subnets seeded with `addSubnet` may have three distinct
 * ids, so clients that mix them up are caught. A subnet's CIDR lies inside
 * its VPC's, is at most a /28, overlaps no other subnet of the VPC, and
 * contains its gateway.
 */
import { randomUUID } from "node:crypto";
import { ApiError, Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import { filterAndPage } from "./elb-model.js";
import { scopedProject } from "./iam.js";
import { contains, isHostOf, isNetworkAddress, overlap, parseAddress, parseCidr, type Cidr } from "./ipv4.js";
import { DEFAULT_DNS, type SimulatorState, type StoredSubnet } from "./state.js";
import { ownedVpc } from "./vpcs.js";

const CODE = "VPC.0400";

export function routeSubnets(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, ...rest] = request.segments;
  if (version !== "v1" || projectId === undefined) return undefined;
  if (collection === "subnets" && rest.length <= 1) return subnets(request, state, projectId, rest[0]);
  const [vpcId, sub, id, ...extra] = rest;
  if (collection === "vpcs" && sub === "subnets" && vpcId !== undefined && id !== undefined && extra.length === 0 && request.method === "DELETE") {
    const project = scopedProject(request, state, projectId);
    const subnet = state.subnets.find((candidate) => candidate.vpcSubnetId === id && candidate.vpcId === vpcId && candidate.projectId === project.id);
    if (subnet === undefined) throw new ApiError(404, "VPC.0404", `subnet ${id} could not be found in vpc ${vpcId}`);
    remove(state, subnet);
    return json(204);
  }
  return undefined;
}

function subnets(request: ApiRequest, state: SimulatorState, projectId: string, id: string | undefined): ApiResponse | undefined {
  const project = scopedProject(request, state, projectId);
  const own = state.subnets.filter((subnet) => subnet.projectId === project.id).map((subnet) => ({ ...subnet, id: subnet.vpcSubnetId }));
  if (id === undefined) {
    if (request.method === "POST") return json(200, { subnet: render(state, create(state, project.id, request.body)) });
    if (request.method !== "GET") return undefined;
    const page = filterAndPage(own, request.query, { vpc_id: (subnet) => subnet.vpcId });
    return json(200, { subnets: page.items.map((subnet) => render(state, subnet)) });
  }
  if (request.method !== "GET") return undefined;
  const subnet = own.find((candidate) => candidate.id === id);
  if (subnet === undefined) throw new ApiError(404, "VPC.0404", `subnet ${id} could not be found`);
  return json(200, { subnet: render(state, subnet) });
}

function create(state: SimulatorState, projectId: string, body: unknown): StoredSubnet {
  const fields = Fields.wrapped(body, "subnet", CODE);
  const name = fields.string("name");
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw fields.invalid("name", "must be 1-64 characters of A-Z a-z 0-9 _ . -");
  const vpcId = fields.string("vpc_id");
  const vpc = ownedVpc(state, vpcId, projectId);
  if (vpc === undefined) throw fields.invalid("vpc_id", `${vpcId}: no such VPC in the project`);
  const cidrText = fields.string("cidr");
  const cidr = parseCidr(cidrText);
  if (cidr === undefined || !isNetworkAddress(cidr)) throw fields.invalid("cidr", `${cidrText} is not an IPv4 network in CIDR notation`);
  if (cidr.prefix > 28) throw fields.invalid("cidr", `${cidrText}: the prefix must be at most /28`);
  if (!contains(parseCidr(vpc.cidr) as Cidr, cidr)) throw fields.invalid("cidr", `${cidrText} is not inside the VPC's CIDR ${vpc.cidr}`);
  const clash = state.subnets.find((other) => other.vpcId === vpc.id && overlap(parseCidr(other.cidr) as Cidr, cidr));
  if (clash !== undefined) throw fields.invalid("cidr", `${cidrText} overlaps subnet ${clash.vpcSubnetId} (${clash.cidr}) of the VPC`);
  const gatewayIp = fields.string("gateway_ip");
  const gateway = parseAddress(gatewayIp);
  if (gateway === undefined || !isHostOf(cidr, gateway)) throw fields.invalid("gateway_ip", `${gatewayIp} is not a host address of ${cidrText}`);
  const availabilityZone = fields.optionalString("availability_zone");
  if (availabilityZone !== undefined && !state.zones.includes(availabilityZone)) {
    throw fields.invalid("availability_zone", `must be one of ${state.zones.join(", ")}`);
  }
  const dns = (key: string, fallback: string): string => {
    const value = fields.optionalString(key) ?? fallback;
    if (parseAddress(value) === undefined) throw fields.invalid(key, `${value} is not an IPv4 address`);
    return value;
  };
  const networkId = randomUUID();
  const subnet: StoredSubnet = {
    vpcSubnetId: networkId,
    neutronNetworkId: networkId,
    neutronSubnetId: randomUUID(),
    cidr: cidrText,
    vpcId: vpc.id,
    name,
    projectId,
    gatewayIp,
    availabilityZone,
    primaryDns: dns("primary_dns", DEFAULT_DNS.primary),
    secondaryDns: dns("secondary_dns", DEFAULT_DNS.secondary),
    dhcpEnable: fields.optionalBoolean("dhcp_enable") ?? true,
    activeAt: state.clock().getTime() + state.transitionDelayMs,
  };
  state.subnets.push(subnet);
  return subnet;
}

function remove(state: SimulatorState, subnet: StoredSubnet): void {
  const users = [
    ...[...state.cceClusters.values()].filter((cluster) => cluster.spec.subnetId === subnet.neutronNetworkId).map((cluster) => `CCE cluster ${cluster.id}`),
    ...[...state.loadbalancers.values()]
      .filter((lb) => lb.vipSubnetId === subnet.neutronSubnetId || lb.virsubnetIds.includes(subnet.neutronNetworkId))
      .map((lb) => `load balancer ${lb.id}`),
  ];
  if (users.length > 0) throw new ApiError(409, "VPC.0409", `subnet ${subnet.vpcSubnetId} is in use by ${users.join(", ")}`);
  state.subnets.splice(state.subnets.indexOf(subnet), 1);
}

function render(state: SimulatorState, subnet: StoredSubnet): unknown {
  return {
    id: subnet.vpcSubnetId,
    name: subnet.name,
    cidr: subnet.cidr,
    gateway_ip: subnet.gatewayIp,
    vpc_id: subnet.vpcId,
    neutron_network_id: subnet.neutronNetworkId,
    neutron_subnet_id: subnet.neutronSubnetId,
    status: state.clock().getTime() < subnet.activeAt ? "UNKNOWN" : "ACTIVE",
    dhcp_enable: subnet.dhcpEnable,
    primary_dns: subnet.primaryDns,
    secondary_dns: subnet.secondaryDns,
    dnsList: [subnet.primaryDns, subnet.secondaryDns],
    availability_zone: subnet.availabilityZone ?? "",
  };
}
