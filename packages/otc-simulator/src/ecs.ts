/**
 * ECS v1: server detail and the detailed server list, with OTC's paging
 * (`offset` is a page number) and its fuzzy `name` filter, so that clients
 * have to match names exactly themselves.
 */
import { ApiError, json, type ApiRequest, type ApiResponse } from "./api.js";
import { scopedProject } from "./iam.js";
import type { Server, SimulatorState } from "./state.js";

/** `GET /v1/{project}/cloudservers/detail` and `GET /v1/{project}/cloudservers/{id}`. */
export function routeEcs(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, id, ...rest] = request.segments;
  if (version !== "v1" || projectId === undefined || collection !== "cloudservers" || id === undefined || rest.length > 0) return undefined;
  if (request.method !== "GET") throw new ApiError(405, "Ecs.0005", `${request.method} is not simulated on cloudservers`, "ecs");
  const project = scopedProject(request, state, projectId, "ecs");
  const servers = [...state.servers.values()].filter((server) => server.projectId === project.id);
  if (id === "detail") return list(request.query, servers);
  const server = servers.find((candidate) => candidate.id === id);
  if (server === undefined) throw new ApiError(404, "Ecs.0114", `Instance [${id}] could not be found.`, "ecs");
  return json(200, { server: render(server) });
}

function list(query: URLSearchParams, servers: readonly Server[]): ApiResponse {
  const limit = integerParam(query, "limit", 25);
  if (limit < 1 || limit > 1000) throw new ApiError(400, "Ecs.0005", "limit must be from 1 to 1000", "ecs");
  // A page number; OTC treats 0 like 1.
  const page = Math.max(integerParam(query, "offset", 1), 1);
  const name = query.get("name");
  const status = query.get("status");
  const flavor = query.get("flavor");
  const matching = servers.filter(
    (server) =>
      (name === null || fuzzyName(name).test(server.name)) &&
      (status === null || server.status === status) &&
      (flavor === null || server.flavor === flavor),
  );
  const pageItems = matching.slice((page - 1) * limit, page * limit);
  return json(200, { count: matching.length, servers: pageItems.map(render) });
}

/** ECS matches `name` as an unanchored pattern (`.` matches any character); an invalid pattern matches literally. */
function fuzzyName(name: string): RegExp {
  try {
    return new RegExp(name);
  } catch {
    return new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
}

function integerParam(query: URLSearchParams, key: string, fallback: number): number {
  const raw = query.get(key);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ApiError(400, "Ecs.0005", `${key} must be a non-negative integer`, "ecs");
  return Number(raw);
}

function render(server: Server): unknown {
  const addresses: Record<string, unknown[]> = {};
  for (const [vpc, list] of Object.entries(server.addresses)) {
    addresses[vpc] = list.map((address) => ({
      version: String(address.version ?? 4),
      addr: address.addr,
      "OS-EXT-IPS:type": address.type,
      "OS-EXT-IPS-MAC:mac_addr": address.macAddr ?? "fa:16:3e:00:00:01",
      "OS-EXT-IPS:port_id": address.portId,
    }));
  }
  return {
    id: server.id,
    name: server.name,
    status: server.status,
    tenant_id: server.projectId,
    flavor: { id: server.flavor, name: server.flavor },
    "OS-EXT-AZ:availability_zone": server.az,
    "OS-EXT-SRV-ATTR:hostname": server.name,
    "OS-EXT-STS:vm_state": server.status === "SHUTOFF" ? "stopped" : server.status === "ACTIVE" ? "active" : server.status.toLowerCase(),
    metadata: server.metadata,
    tags: server.tags,
    addresses,
    created: server.created,
  };
}
