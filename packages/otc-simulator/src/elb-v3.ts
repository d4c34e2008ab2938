/**
 * ELB v3 (dedicated load balancers), `/v3/{project}/elb/...`: AZs are
 * required, the VIP subnet is a Neutron subnet id and `elb_virsubnet_ids`
 * are Neutron network ids, EIPs are attached at creation (`publicip_ids`, or
 * a new one via `publicip`), responses carry `request_id` and lists
 * `page_info`.
 */
import { randomUUID } from "node:crypto";
import { Fields, type ApiRequest, type ApiResponse } from "./api.js";
import { badRequest, conflict, createLoadBalancer, owned } from "./elb-model.js";
import { requireNeutronSubnet, routeElbResources, type ElbDialect } from "./elb-routes.js";
import { createEip } from "./eip.js";
import { scopedProject } from "./iam.js";
import type { Eip, SimulatorState } from "./state.js";

export function routeElbV3(request: ApiRequest, state: SimulatorState, requestId: string): ApiResponse | undefined {
  const [version, projectId, elb, ...rest] = request.segments;
  if (version !== "v3" || projectId === undefined || elb !== "elb") return undefined;
  const project = scopedProject(request, state, projectId);
  return routeElbResources(request, state, dialect(state, requestId), project.id, rest);
}

function dialect(state: SimulatorState, requestId: string): ElbDialect {
  return {
    api: "v3",
    memberSubnetField: "subnet_cidr_id",
    memberSubnetRequired: false,
    createLoadBalancer(body, projectId) {
      const fields = Fields.wrapped(body, "loadbalancer", "ELB.0400");
      const zones = fields.optionalStringList("availability_zone_list");
      if (zones === undefined || zones.length === 0) throw fields.invalid("availability_zone_list", "is required");
      const subnetId = fields.optionalString("vip_subnet_cidr_id");
      const vpcId = fields.optionalString("vpc_id");
      if (subnetId === undefined && vpcId === undefined) throw badRequest("vpc_id and vip_subnet_cidr_id cannot both be empty");
      const subnet = subnetId === undefined ? undefined : requireNeutronSubnet(state, subnetId, "loadbalancer.vip_subnet_cidr_id");
      const virsubnetIds = fields.optionalStringList("elb_virsubnet_ids") ?? [];
      for (const id of virsubnetIds) requireNeutronNetwork(state, id);
      const eips = attachableEips(state, fields, projectId);
      const lb = createLoadBalancer(state, "v3", projectId, {
        name: fields.optionalText("name", 255) ?? "",
        description: fields.optionalText("description", 255) ?? "",
        subnet,
        vipAddress: fields.optionalString("vip_address"),
        vpcId,
        availabilityZones: zones,
        virsubnetIds,
        l4FlavorId: fields.optionalString("l4_flavor_id"),
      });
      for (const eip of eips()) eip.portId = lb.vipPortId;
      return lb;
    },
    list(key, page, views) {
      return {
        [key]: views,
        page_info: { previous_marker: page.previousMarker ?? null, next_marker: page.nextMarker ?? null, current_count: views.length },
        request_id: requestId,
      };
    },
    envelope: (body) => ({ ...body, request_id: requestId }),
  };
}

/**
 * Validates `publicip_ids` / `publicip` up front and returns the step that
 * yields the EIPs to bind, so a rejected request allocates nothing.
 */
function attachableEips(state: SimulatorState, fields: Fields, projectId: string): () => Eip[] {
  const ids = fields.optionalStringList("publicip_ids") ?? [];
  const nested = fields.optionalObject("publicip");
  if (ids.length > 0 && nested !== undefined) throw badRequest("publicip_ids and publicip cannot both be given");
  const existing = ids.map((id) => {
    const eip = owned(state.eips, id, projectId, "EIP");
    if (eip.status !== "DOWN") throw conflict(`EIP ${id} is ${eip.status}; only an unbound (DOWN) EIP can be attached`);
    return eip;
  });
  if (nested === undefined) return () => existing;
  const networkType = nested.string("network_type");
  const bandwidth = nested.optionalObject("bandwidth");
  if (bandwidth === undefined) throw nested.invalid("bandwidth", "is required");
  const size = bandwidth.integer("size", 1, 2000);
  const name = bandwidth.optionalText("name", 64) ?? `bandwidth-${randomUUID().slice(0, 8)}`;
  const shareType = bandwidth.optionalString("share_type") ?? "PER";
  return () => [createEip(state, projectId, { type: networkType, bandwidthName: name, bandwidthSize: size, shareType, alias: undefined })];
}

function requireNeutronNetwork(state: SimulatorState, id: string): void {
  const found = state.subnetById(id);
  if (found === undefined) throw badRequest(`loadbalancer.elb_virsubnet_ids ${id}: no such network`);
  if (found.kind !== "neutronNetworkId") {
    throw badRequest(
      `loadbalancer.elb_virsubnet_ids ${id} is not a Neutron network id; ELB expects neutron_network_id ${found.subnet.neutronNetworkId}`,
    );
  }
}
