/**
 * VPC v1 subnets (`GET /v1/{project}/subnets[/{id}]`), read-only: where a
 * client finds the `neutron_subnet_id` and `neutron_network_id` that ELB
 * wants, given the VPC subnet id it was configured with. Subnets are seeded
 * with `addSubnet`.
 */
import { ApiError, json, type ApiRequest, type ApiResponse } from "./api.js";
import { filterAndPage } from "./elb-model.js";
import { scopedProject } from "./iam.js";
import type { SimulatorState, Subnet } from "./state.js";

export function routeSubnets(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, id, ...rest] = request.segments;
  if (version !== "v1" || projectId === undefined || collection !== "subnets" || rest.length > 0 || request.method !== "GET") return undefined;
  const project = scopedProject(request, state, projectId);
  const subnets = state.subnets.filter((subnet) => subnet.projectId === project.id).map((subnet) => ({ ...subnet, id: subnet.vpcSubnetId }));
  if (id === undefined) {
    const page = filterAndPage(subnets, request.query, { vpc_id: (subnet) => subnet.vpcId });
    return json(200, { subnets: page.items.map(render) });
  }
  const subnet = subnets.find((candidate) => candidate.id === id);
  if (subnet === undefined) throw new ApiError(404, "VPC.0404", `subnet ${id} could not be found`);
  return json(200, { subnet: render(subnet) });
}

function render(subnet: Required<Subnet>): unknown {
  const [base] = subnet.cidr.split("/");
  return {
    id: subnet.vpcSubnetId,
    name: subnet.name,
    cidr: subnet.cidr,
    // OTC's default: the network's first host address.
    gateway_ip: (base ?? "").replace(/\.\d+$/, ".1"),
    vpc_id: subnet.vpcId,
    neutron_network_id: subnet.neutronNetworkId,
    neutron_subnet_id: subnet.neutronSubnetId,
    status: "ACTIVE",
    dhcp_enable: true,
  };
}
