/**
 * ELB v2 (shared load balancers), `/v2.0/lbaas/...`: no project in the path,
 * so the project is the signed X-Project-Id header's, or the token's when the
 * request carries one; the VIP subnet must be a
 * Neutron subnet id; the LB gets a VIP port that an EIP is bound to
 * separately; lists carry OpenStack-style `<key>_links`.
 */
import { ApiError, Fields, type ApiRequest, type ApiResponse } from "./api.js";
import { createLoadBalancer } from "./elb-model.js";
import { requireNeutronSubnet, routeElbResources, type ElbDialect } from "./elb-routes.js";
import { scopedProject } from "./iam.js";
import type { SimulatorState } from "./state.js";

export function routeElbV2(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, lbaas, ...rest] = request.segments;
  if (version !== "v2.0" || lbaas !== "lbaas") return undefined;
  const projectId = request.headers["x-project-id"] ?? request.token?.projectId;
  if (projectId === undefined) throw new ApiError(400, "ELB.0400", "the X-Project-Id header is required for ELB v2");
  const project = scopedProject(request, state, projectId);
  return routeElbResources(request, state, dialect(state), project.id, rest);
}

function dialect(state: SimulatorState): ElbDialect {
  return {
    api: "v2",
    memberSubnetField: "subnet_id",
    memberSubnetRequired: true,
    createLoadBalancer(body, projectId) {
      const fields = Fields.wrapped(body, "loadbalancer", "ELB.0400");
      const subnet = requireNeutronSubnet(state, fields.string("vip_subnet_id"), "loadbalancer.vip_subnet_id");
      return createLoadBalancer(state, "v2", projectId, {
        name: fields.optionalText("name", 255) ?? "",
        description: fields.optionalText("description", 255) ?? "",
        subnet,
        vipAddress: fields.optionalString("vip_address"),
        vpcId: undefined,
        availabilityZones: [],
        virsubnetIds: [],
        l4FlavorId: undefined,
      });
    },
    list(key, page, views) {
      const links = page.nextMarker === undefined ? [] : [{ rel: "next", href: `/v2.0/lbaas/${key}?marker=${page.nextMarker}` }];
      return { [key]: views, [`${key}_links`]: links };
    },
    envelope: (body) => body,
  };
}
