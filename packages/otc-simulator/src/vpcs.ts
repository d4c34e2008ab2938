/**
 * VPC v1 VPCs (`/v1/{project}/vpcs[/{id}]`): create (CREATING, then OK after
 * the transition delay), get, list, and delete, which VPC refuses (409)
 * while the VPC still has subnets. A VPC's CIDR must be a network address in
 * 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 with a prefix of at most /24.
 */
import { randomUUID } from "node:crypto";
import { ApiError, Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import { filterAndPage } from "./elb-model.js";
import { scopedProject } from "./iam.js";
import { contains, isNetworkAddress, parseCidr, type Cidr } from "./ipv4.js";
import { Vpc, type SimulatorState } from "./state.js";

const CODE = "VPC.0400";
const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"].map((range) => parseCidr(range) as Cidr);
const NAME = /^[A-Za-z0-9_.-]{0,64}$/;

export function routeVpcs(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, id, ...rest] = request.segments;
  if (version !== "v1" || projectId === undefined || collection !== "vpcs" || rest.length > 0) return undefined;
  const project = scopedProject(request, state, projectId);
  if (id === undefined) {
    if (request.method === "GET") {
      const vpcs = [...state.vpcs.values()].filter((vpc) => vpc.projectId === project.id);
      const page = filterAndPage(vpcs, request.query, { id: (vpc) => vpc.id, name: (vpc) => vpc.name });
      return json(200, { vpcs: page.items.map(render) });
    }
    if (request.method === "POST") return json(200, { vpc: render(create(state, project.id, request.body)) });
    return undefined;
  }
  const vpc = ownedVpc(state, id, project.id);
  if (vpc === undefined) throw new ApiError(404, "VPC.0404", `vpc ${id} could not be found`);
  switch (request.method) {
    case "GET":
      return json(200, { vpc: render(vpc) });
    case "DELETE": {
      const subnets = state.subnets.filter((subnet) => subnet.vpcId === vpc.id);
      if (subnets.length > 0) {
        throw new ApiError(409, "VPC.0409", `vpc ${id} still has subnets (${subnets.map((subnet) => subnet.vpcSubnetId).join(", ")}); delete them first`);
      }
      state.vpcs.delete(vpc.id);
      return json(204);
    }
    default:
      return undefined;
  }
}

/** The project's VPC with that id; undefined for unknown ids and other projects' VPCs. */
export function ownedVpc(state: SimulatorState, id: string, projectId: string): Vpc | undefined {
  const vpc = state.vpcs.get(id);
  return vpc?.projectId === projectId ? vpc : undefined;
}

function create(state: SimulatorState, projectId: string, body: unknown): Vpc {
  const fields = Fields.wrapped(body, "vpc", CODE);
  const name = fields.optionalString("name") ?? "";
  if (!NAME.test(name)) throw fields.invalid("name", "must be at most 64 characters of A-Z a-z 0-9 _ . -");
  const description = fields.optionalText("description", 255) ?? "";
  if (/[<>]/.test(description)) throw fields.invalid("description", "must not contain < or >");
  const cidrText = fields.string("cidr");
  const cidr = parseCidr(cidrText);
  if (cidr === undefined || !isNetworkAddress(cidr)) throw fields.invalid("cidr", `${cidrText} is not an IPv4 network in CIDR notation`);
  if (cidr.prefix > 24 || !PRIVATE_RANGES.some((range) => contains(range, cidr))) {
    throw fields.invalid("cidr", `${cidrText} must lie in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 with a prefix of at most /24`);
  }
  const vpc = new Vpc(state.clock, randomUUID(), projectId, name, description, cidrText, state.transitionDelayMs);
  state.vpcs.set(vpc.id, vpc);
  return vpc;
}

function render(vpc: Vpc): unknown {
  return {
    id: vpc.id,
    name: vpc.name,
    description: vpc.description,
    cidr: vpc.cidr,
    status: vpc.status,
    routes: [],
    enable_shared_snat: false,
    enterprise_project_id: "0",
    tenant_id: vpc.projectId,
  };
}
