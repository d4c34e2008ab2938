/**
 * The ELB endpoints whose paths and bodies are the same in v2 and v3 below
 * their base path: GET/PUT/DELETE of load balancers and their status tree,
 * and the full CRUD of listeners, pools, members and health monitors. The two API modules supply
 * what differs (LB creation, member subnet field, list envelope).
 */
import { Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import {
  LB_ALGORITHMS,
  LISTENER_PROTOCOLS,
  MONITOR_TYPES,
  PERSISTENCE_TYPES,
  POOL_PROTOCOLS,
  badRequest,
  beginMutation,
  createListener,
  createMember,
  createMonitor,
  createPool,
  deleteListener,
  deleteLoadBalancer,
  deleteMember,
  deleteMonitor,
  deletePool,
  filterAndPage,
  lbOfListener,
  lbOfMonitor,
  lbOfPool,
  notFound,
  owned,
  renderListener,
  renderLoadBalancer,
  renderMember,
  renderMonitor,
  renderPool,
  renderStatusTree,
  type Filters,
  type Page,
} from "./elb-model.js";
import type { ElbApi, Listener, LoadBalancer, Member, Monitor, Pool, SessionPersistence, SimulatorState, Subnet } from "./state.js";

const CODE = "ELB.0400";

/** What v2 and v3 do differently. */
export interface ElbDialect {
  readonly api: ElbApi;
  /** Parses and validates a create body, then creates the LB. */
  createLoadBalancer(body: unknown, projectId: string): LoadBalancer;
  /** The member's subnet field and whether it is required. */
  readonly memberSubnetField: "subnet_id" | "subnet_cidr_id";
  readonly memberSubnetRequired: boolean;
  /** The list response for `key` ("loadbalancers", …). */
  list(key: string, page: Page<unknown>, views: unknown[]): unknown;
  /** Extra top-level fields of single-resource responses (v3's `request_id`). */
  envelope(body: Record<string, unknown>): Record<string, unknown>;
}

/** `rest` is the path below the API's base, e.g. `["pools", id, "members"]`. */
export function routeElbResources(
  request: ApiRequest,
  state: SimulatorState,
  dialect: ElbDialect,
  projectId: string,
  rest: readonly string[],
): ApiResponse | undefined {
  const [collection, id, sub, subId, ...extra] = rest;
  if (extra.length > 0) return undefined;
  const { method } = request;
  const one = (status: number, key: string, view: unknown): ApiResponse => json(status, dialect.envelope({ [key]: view }));
  const api = dialect.api;

  switch (collection) {
    case "loadbalancers": {
      if (sub === "statuses" && id !== undefined && subId === undefined && method === "GET") {
        return json(200, dialect.envelope({ statuses: renderStatusTree(state, ownedLb(state, id, projectId, api)) }));
      }
      if (sub !== undefined) return undefined;
      if (id === undefined) {
        if (method === "GET") {
          const lbs = [...state.loadbalancers.values()].filter((lb) => lb.projectId === projectId && lb.api === api);
          const page = filterAndPage(lbs, request.query, LB_FILTERS);
          return json(200, dialect.list("loadbalancers", page, page.items.map((lb) => renderLoadBalancer(state, lb))));
        }
        if (method === "POST") return one(201, "loadbalancer", renderLoadBalancer(state, dialect.createLoadBalancer(request.body, projectId)));
        return undefined;
      }
      const lb = ownedLb(state, id, projectId, api);
      if (method === "GET") return one(200, "loadbalancer", renderLoadBalancer(state, lb));
      if (method === "PUT") {
        const fields = Fields.wrapped(request.body, "loadbalancer", CODE);
        const name = fields.optionalText("name", 255);
        const description = fields.optionalText("description", 255);
        const adminStateUp = fields.optionalBoolean("admin_state_up");
        beginMutation(state, lb);
        if (name !== undefined) lb.name = name;
        if (description !== undefined) lb.description = description;
        if (adminStateUp !== undefined) lb.adminStateUp = adminStateUp;
        return one(200, "loadbalancer", renderLoadBalancer(state, lb));
      }
      if (method === "DELETE") {
        deleteLoadBalancer(state, lb);
        return json(204);
      }
      return undefined;
    }
    case "listeners": {
      if (sub !== undefined) return undefined;
      if (id === undefined) {
        if (method === "GET") {
          const listeners = [...state.listeners.values()].filter((listener) => listener.projectId === projectId && listener.api === api);
          const page = filterAndPage(listeners, request.query, LISTENER_FILTERS);
          return json(200, dialect.list("listeners", page, page.items.map(renderListener)));
        }
        if (method !== "POST") return undefined;
        const fields = Fields.wrapped(request.body, "listener", CODE);
        const lb = ownedLb(state, fields.string("loadbalancer_id"), projectId, api);
        const listener = createListener(state, api, lb, {
          name: fields.optionalText("name", 255) ?? "",
          description: fields.optionalText("description", 255) ?? "",
          protocol: fields.enumValue("protocol", LISTENER_PROTOCOLS),
          protocolPort: fields.integer("protocol_port", 1, 65535),
          adminStateUp: fields.optionalBoolean("admin_state_up") ?? true,
        });
        return one(201, "listener", renderListener(listener));
      }
      const listener = owned(state.listeners, id, projectId, "listener");
      if (method === "GET") return one(200, "listener", renderListener(listener));
      if (method === "PUT") {
        const fields = Fields.wrapped(request.body, "listener", CODE);
        const name = fields.optionalText("name", 255);
        const description = fields.optionalText("description", 255);
        const adminStateUp = fields.optionalBoolean("admin_state_up");
        beginMutation(state, lbOfListener(state, listener));
        if (name !== undefined) listener.name = name;
        if (description !== undefined) listener.description = description;
        if (adminStateUp !== undefined) listener.adminStateUp = adminStateUp;
        return one(200, "listener", renderListener(listener));
      }
      if (method === "DELETE") {
        deleteListener(state, listener);
        return json(204);
      }
      return undefined;
    }
    case "pools": {
      if (sub === "members") return routeMembers(request, state, dialect, projectId, id ?? "", subId);
      if (sub !== undefined) return undefined;
      if (id === undefined) {
        if (method === "GET") {
          const pools = [...state.pools.values()].filter((pool) => pool.projectId === projectId && pool.api === api);
          const page = filterAndPage(pools, request.query, POOL_FILTERS);
          return json(200, dialect.list("pools", page, page.items.map(renderPool)));
        }
        if (method !== "POST") return undefined;
        const fields = Fields.wrapped(request.body, "pool", CODE);
        const listenerId = fields.optionalString("listener_id");
        const lbId = fields.optionalString("loadbalancer_id");
        if (listenerId === undefined && lbId === undefined) throw fields.invalid("listener_id", "or loadbalancer_id is required");
        const parent =
          listenerId !== undefined ? owned(state.listeners, listenerId, projectId, "listener") : ownedLb(state, lbId ?? "", projectId, api);
        const pool = createPool(state, api, parent, {
          name: fields.optionalText("name", 255) ?? "",
          description: fields.optionalText("description", 255) ?? "",
          protocol: fields.enumValue("protocol", POOL_PROTOCOLS),
          lbAlgorithm: fields.enumValue("lb_algorithm", LB_ALGORITHMS),
          sessionPersistence: persistence(fields),
          adminStateUp: fields.optionalBoolean("admin_state_up") ?? true,
        });
        return one(201, "pool", renderPool(pool));
      }
      const pool = owned(state.pools, id, projectId, "pool");
      if (method === "GET") return one(200, "pool", renderPool(pool));
      if (method === "PUT") {
        const fields = Fields.wrapped(request.body, "pool", CODE);
        const name = fields.optionalText("name", 255);
        const description = fields.optionalText("description", 255);
        const lbAlgorithm = fields.optionalEnum("lb_algorithm", LB_ALGORITHMS);
        const newPersistence = persistence(fields);
        if (fields.isNull("session_persistence") && pool.sessionPersistence !== undefined) {
          throw badRequest("session_persistence cannot be cleared on an existing pool");
        }
        beginMutation(state, lbOfPool(state, pool));
        if (name !== undefined) pool.name = name;
        if (description !== undefined) pool.description = description;
        if (lbAlgorithm !== undefined) pool.lbAlgorithm = lbAlgorithm;
        if (newPersistence !== undefined) pool.sessionPersistence = newPersistence;
        return one(200, "pool", renderPool(pool));
      }
      if (method === "DELETE") {
        deletePool(state, pool);
        return json(204);
      }
      return undefined;
    }
    case "healthmonitors": {
      if (sub !== undefined) return undefined;
      if (id === undefined) {
        if (method === "GET") {
          const monitors = [...state.monitors.values()].filter(
            (monitor) => monitor.projectId === projectId && state.pools.get(monitor.poolId)?.api === api,
          );
          const page = filterAndPage(monitors, request.query, MONITOR_FILTERS);
          return json(200, dialect.list("healthmonitors", page, page.items.map((monitor) => renderMonitor(api, monitor))));
        }
        if (method !== "POST") return undefined;
        const fields = Fields.wrapped(request.body, "healthmonitor", CODE);
        const pool = owned(state.pools, fields.string("pool_id"), projectId, "pool");
        const monitor = createMonitor(state, pool, {
          name: fields.optionalText("name", 255) ?? "",
          type: fields.enumValue("type", MONITOR_TYPES),
          delay: fields.integer("delay", 1, 50),
          timeout: fields.integer("timeout", 1, 50),
          maxRetries: fields.integer("max_retries", 1, 10),
          maxRetriesDown: fields.optionalInteger("max_retries_down", 1, 10) ?? 3,
          monitorPort: fields.optionalInteger("monitor_port", 1, 65535),
          urlPath: fields.optionalText("url_path", 80) ?? "/",
          httpMethod: fields.optionalString("http_method") ?? "GET",
          expectedCodes: fields.optionalString("expected_codes") ?? "200",
          domainName: fields.optionalText("domain_name", 100),
          adminStateUp: fields.optionalBoolean("admin_state_up") ?? true,
        });
        return one(201, "healthmonitor", renderMonitor(api, monitor));
      }
      const monitor = owned(state.monitors, id, projectId, "health monitor");
      if (method === "GET") return one(200, "healthmonitor", renderMonitor(api, monitor));
      if (method === "PUT") {
        const fields = Fields.wrapped(request.body, "healthmonitor", CODE);
        if (fields.has("type")) throw fields.invalid("type", "cannot be changed; delete and recreate the health monitor");
        const update = {
          name: fields.optionalText("name", 255),
          delay: fields.optionalInteger("delay", 1, 50),
          timeout: fields.optionalInteger("timeout", 1, 50),
          maxRetries: fields.optionalInteger("max_retries", 1, 10),
          maxRetriesDown: fields.optionalInteger("max_retries_down", 1, 10),
          monitorPort: fields.optionalInteger("monitor_port", 1, 65535),
          urlPath: fields.optionalText("url_path", 80),
          httpMethod: fields.optionalString("http_method"),
          expectedCodes: fields.optionalString("expected_codes"),
          adminStateUp: fields.optionalBoolean("admin_state_up"),
        };
        beginMutation(state, lbOfMonitor(state, monitor));
        if (update.name !== undefined) monitor.name = update.name;
        if (update.delay !== undefined) monitor.delay = update.delay;
        if (update.timeout !== undefined) monitor.timeout = update.timeout;
        if (update.maxRetries !== undefined) monitor.maxRetries = update.maxRetries;
        if (update.maxRetriesDown !== undefined) monitor.maxRetriesDown = update.maxRetriesDown;
        if (update.monitorPort !== undefined) monitor.monitorPort = update.monitorPort;
        if (update.urlPath !== undefined) monitor.urlPath = update.urlPath;
        if (update.httpMethod !== undefined) monitor.httpMethod = update.httpMethod;
        if (update.expectedCodes !== undefined) monitor.expectedCodes = update.expectedCodes;
        if (update.adminStateUp !== undefined) monitor.adminStateUp = update.adminStateUp;
        return one(200, "healthmonitor", renderMonitor(api, monitor));
      }
      if (method === "DELETE") {
        deleteMonitor(state, monitor);
        return json(204);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function routeMembers(
  request: ApiRequest,
  state: SimulatorState,
  dialect: ElbDialect,
  projectId: string,
  poolId: string,
  memberId: string | undefined,
): ApiResponse | undefined {
  const pool = owned(state.pools, poolId, projectId, "pool");
  const { method } = request;
  const { api } = dialect;
  const one = (status: number, member: Member): ApiResponse => json(status, dialect.envelope({ member: renderMember(api, member) }));
  if (memberId === undefined) {
    if (method === "GET") {
      const members = pool.memberIds.flatMap((id) => state.members.get(id) ?? []);
      const page = filterAndPage(members, request.query, MEMBER_FILTERS);
      return json(200, dialect.list("members", page, page.items.map((member) => renderMember(api, member))));
    }
    if (method !== "POST") return undefined;
    const fields = Fields.wrapped(request.body, "member", CODE);
    const subnetId = dialect.memberSubnetRequired ? fields.string(dialect.memberSubnetField) : fields.optionalString(dialect.memberSubnetField);
    if (subnetId !== undefined) requireNeutronSubnet(state, subnetId, `member.${dialect.memberSubnetField}`);
    const member = createMember(state, pool, {
      name: fields.optionalText("name", 255) ?? "",
      address: fields.string("address"),
      protocolPort: fields.integer("protocol_port", 1, 65535),
      subnetId,
      weight: fields.optionalInteger("weight", 0, 100) ?? 1,
      adminStateUp: fields.optionalBoolean("admin_state_up") ?? true,
    });
    return one(201, member);
  }
  const member = owned(state.members, memberId, projectId, "member");
  if (member.poolId !== pool.id) throw badRequest(`member ${memberId} is not in pool ${pool.id}`);
  if (method === "GET") return one(200, member);
  if (method === "PUT") {
    const fields = Fields.wrapped(request.body, "member", CODE);
    const name = fields.optionalText("name", 255);
    const weight = fields.optionalInteger("weight", 0, 100);
    const adminStateUp = fields.optionalBoolean("admin_state_up");
    beginMutation(state, lbOfPool(state, pool));
    if (name !== undefined) member.name = name;
    if (weight !== undefined) member.weight = weight;
    if (adminStateUp !== undefined) member.adminStateUp = adminStateUp;
    return one(200, member);
  }
  if (method === "DELETE") {
    deleteMember(state, pool, member);
    return json(204);
  }
  return undefined;
}

/**
 * ELB takes Neutron subnet ids where OTC's VPC API shows three ids per
 * subnet; passing the VPC subnet id is the classic mistake, so it gets its
 * own message.
 */
export function requireNeutronSubnet(state: SimulatorState, id: string, field: string): Subnet {
  const found = state.subnetById(id);
  if (found === undefined) throw badRequest(`${field} ${id}: no such subnet`);
  if (found.kind !== "neutronSubnetId") {
    const kind = found.kind === "vpcSubnetId" ? "a VPC subnet id" : "a Neutron network id";
    throw badRequest(`${field} ${id} is ${kind}; ELB expects the Neutron subnet id (neutron_subnet_id ${found.subnet.neutronSubnetId})`);
  }
  return found.subnet;
}

export function ownedLb(state: SimulatorState, id: string, projectId: string, api: ElbApi): LoadBalancer {
  const lb = owned(state.loadbalancers, id, projectId, "load balancer");
  // A shared LB does not exist for the dedicated API and vice versa.
  if (lb.api !== api) throw notFound("load balancer", id);
  return lb;
}

function persistence(fields: Fields): SessionPersistence | undefined {
  const nested = fields.optionalObject("session_persistence");
  if (nested === undefined) return undefined;
  return {
    type: nested.enumValue("type", PERSISTENCE_TYPES),
    cookieName: nested.optionalString("cookie_name"),
    persistenceTimeout: nested.optionalInteger("persistence_timeout", 1, 1440),
  };
}

const LB_FILTERS: Filters<LoadBalancer> = {
  id: (lb) => lb.id,
  name: (lb) => lb.name,
  description: (lb) => lb.description,
  vip_address: (lb) => lb.vipAddress,
  vip_port_id: (lb) => lb.vipPortId,
  provisioning_status: (lb) => lb.provisioningStatus,
};

const LISTENER_FILTERS: Filters<Listener> = {
  id: (listener) => listener.id,
  name: (listener) => listener.name,
  description: (listener) => listener.description,
  loadbalancer_id: (listener) => listener.loadbalancerId,
  protocol: (listener) => listener.protocol,
  protocol_port: (listener) => listener.protocolPort,
  default_pool_id: (listener) => listener.defaultPoolId,
};

const POOL_FILTERS: Filters<Pool> = {
  id: (pool) => pool.id,
  name: (pool) => pool.name,
  description: (pool) => pool.description,
  loadbalancer_id: (pool) => pool.loadbalancerId,
  listener_id: (pool) => pool.listenerId,
  protocol: (pool) => pool.protocol,
  healthmonitor_id: (pool) => pool.healthmonitorId,
};

const MEMBER_FILTERS: Filters<Member> = {
  id: (member) => member.id,
  name: (member) => member.name,
  address: (member) => member.address,
  protocol_port: (member) => member.protocolPort,
};

const MONITOR_FILTERS: Filters<Monitor> = {
  id: (monitor) => monitor.id,
  name: (monitor) => monitor.name,
  type: (monitor) => monitor.type,
  pool_id: (monitor) => monitor.poolId,
};
