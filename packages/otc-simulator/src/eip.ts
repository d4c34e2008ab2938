/**
 * EIPs (VPC v1 `/v1/{project}/publicips`): assignment (PENDING_CREATE, then
 * DOWN after the transition delay), binding to a port (ACTIVE), unbinding
 * with a null or empty `port_id` (DOWN), and release. An EIP binds once:
 * binding a bound EIP, or to a port that already has one, is a 409, and a
 * bound EIP cannot be released. Besides LB VIPs and server NICs, a CCE
 * cluster's master binds EIPs (through CCE's `mastereip`).
 */
import { randomUUID } from "node:crypto";
import { ApiError, Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import { filterAndPage } from "./elb-model.js";
import { scopedProject } from "./iam.js";
import { Eip, type SimulatorState } from "./state.js";

const CODE = "VPC.0400";

export interface EipInput {
  readonly type: string;
  readonly bandwidthName: string;
  readonly bandwidthSize: number;
  readonly shareType: string;
  readonly alias: string | undefined;
}

export function createEip(state: SimulatorState, projectId: string, input: EipInput): Eip {
  const eip = new Eip(
    state.clock,
    randomUUID(),
    projectId,
    input.type,
    state.allocatePublicIp(),
    { id: randomUUID(), name: input.bandwidthName, size: input.bandwidthSize, shareType: input.shareType },
    input.alias,
    state.transitionDelayMs,
  );
  state.eips.set(eip.id, eip);
  return eip;
}

/** `POST|GET /v1/{project}/publicips`, `GET|PUT|DELETE /v1/{project}/publicips/{id}`. */
export function routeEip(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, id, ...rest] = request.segments;
  if (version !== "v1" || projectId === undefined || collection !== "publicips" || rest.length > 0) return undefined;
  const project = scopedProject(request, state, projectId);
  if (id === undefined) {
    if (request.method === "GET") {
      const eips = [...state.eips.values()].filter((eip) => eip.projectId === project.id);
      const page = filterAndPage(eips, request.query, {});
      return json(200, { publicips: page.items.map((eip) => render(state, eip)) });
    }
    if (request.method === "POST") return json(200, { publicip: render(state, assign(state, project.id, request.body)) });
    return undefined;
  }
  const eip = state.eips.get(id);
  if (eip === undefined || eip.projectId !== project.id) throw new ApiError(404, "VPC.0404", `publicip ${id} could not be found`);
  switch (request.method) {
    case "GET":
      return json(200, { publicip: render(state, eip) });
    case "PUT":
      update(state, eip, request.body);
      return json(200, { publicip: render(state, eip) });
    case "DELETE":
      if (eip.portId !== undefined) throw new ApiError(409, "VPC.0409", `publicip ${id} is bound to port ${eip.portId}; unbind it first`);
      state.eips.delete(id);
      return json(204);
    default:
      return undefined;
  }
}

function assign(state: SimulatorState, projectId: string, body: unknown): Eip {
  const publicip = Fields.wrapped(body, "publicip", CODE);
  const bandwidth = Fields.wrapped(body, "bandwidth", CODE);
  const ipVersion = publicip.optionalInteger("ip_version", 4, 6);
  if (ipVersion !== undefined && ipVersion !== 4) throw publicip.invalid("ip_version", "must be 4 (IPv6 is not simulated)");
  const name = bandwidth.string("name");
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw bandwidth.invalid("name", "must be 1-64 characters of A-Z a-z 0-9 _ . -");
  return createEip(state, projectId, {
    type: publicip.string("type"),
    bandwidthName: name,
    bandwidthSize: bandwidth.integer("size", 1, 2000),
    shareType: bandwidth.enumValue("share_type", ["PER", "WHOLE"]),
    alias: publicip.optionalText("alias", 64),
  });
}

/** A non-empty `port_id` binds; a null, empty or missing one unbinds. */
function update(state: SimulatorState, eip: Eip, body: unknown): void {
  const fields = Fields.wrapped(body, "publicip", CODE);
  const portId = fields.optionalString("port_id");
  if (portId === undefined || portId === "") {
    eip.portId = undefined;
    return;
  }
  if (eip.portId !== undefined) throw new ApiError(409, "VPC.0409", `publicip ${eip.id} is already bound to port ${eip.portId}`);
  if (eip.status !== "DOWN") throw new ApiError(409, "VPC.0409", `publicip ${eip.id} is ${eip.status}; retry when it is DOWN`);
  if (!state.portExists(portId)) throw new ApiError(404, "VPC.0404", `port ${portId} could not be found`);
  const holder = [...state.eips.values()].find((other) => other.portId === portId);
  if (holder !== undefined) throw new ApiError(409, "VPC.0409", `port ${portId} already has publicip ${holder.id}`);
  eip.portId = portId;
}

function render(state: SimulatorState, eip: Eip): unknown {
  return {
    id: eip.id,
    status: eip.status,
    type: eip.type,
    public_ip_address: eip.publicIpAddress,
    private_ip_address: eip.portId === undefined ? null : privateAddress(state, eip.portId),
    port_id: eip.portId ?? null,
    tenant_id: eip.projectId,
    create_time: eip.createTime,
    bandwidth_id: eip.bandwidth.id,
    bandwidth_name: eip.bandwidth.name,
    bandwidth_size: eip.bandwidth.size,
    bandwidth_share_type: eip.bandwidth.shareType,
    ip_version: 4,
    alias: eip.alias ?? null,
  };
}

function privateAddress(state: SimulatorState, portId: string): string | null {
  for (const lb of state.loadbalancers.values()) if (lb.vipPortId === portId) return lb.vipAddress;
  for (const cluster of state.cceClusters.values()) if (cluster.masterPortId === portId) return cluster.internalAddress;
  for (const server of state.servers.values()) {
    for (const list of Object.values(server.addresses)) {
      const address = list.find((candidate) => candidate.portId === portId);
      if (address !== undefined) return address.addr;
    }
  }
  return null;
}
