/**
 * The loopback HTTP server: reads each request whole, authenticates it (an
 * AK/SK signature, or an X-Auth-Token from `POST /v3/auth/tokens`, which
 * itself needs neither), applies the cloud's due changes and injected faults,
 * routes it by path to the service modules (one base URL serves IAM, ECS,
 * VPC/subnets/EIP, ELB, Nova key pairs and CCE), answers JSON, and logs it.
 * The log holds method, path, query and status only, never a token.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { Credentials } from "@edgeconnect/otc";
import { ApiError, errorBody, type ApiRequest, type ApiResponse } from "./api.js";
import { routeEcs } from "./ecs.js";
import { routeEip } from "./eip.js";
import { routeElbV2 } from "./elb-v2.js";
import { routeElbV3 } from "./elb-v3.js";
import { Faults, type Caller, type FaultPhase } from "./faults.js";
import { routeCce } from "./cce.js";
import { authenticateToken, isTokenRequest, routeIam } from "./iam.js";
import { routeKeypairs } from "./keypairs.js";
import { routeSubnets } from "./vpc-subnets.js";
import { routeVpcs } from "./vpcs.js";
import { verifySignature } from "./signature-check.js";
import {
  SimulatorState,
  type Clock,
  type LiveObjects,
  type PasswordUser,
  type Project,
  type Server,
  type ServerSeed,
  type StoredSubnet,
  type Subnet,
  type WorkloadCluster,
} from "./state.js";

/** The API gateway's limit for AK/SK-signed bodies. */
const MAX_BODY_BYTES = 12 * 1024 * 1024;

export interface OtcSimulatorOptions {
  /** The AK/SK pairs the simulator accepts (the secret is only used to verify); may be empty when `users` are given. */
  readonly credentials: readonly Credentials[];
  /** IAM users that may get password tokens, for any of the projects. */
  readonly users?: readonly PasswordUser[];
  /** How long an IAM token is valid; default 24 h, as IAM's. */
  readonly tokenTtlMs?: number;
  /** Projects that exist; the first is where seeded servers go by default. */
  readonly projects: readonly Project[];
  /** Default `eu-de`; used for default availability zones. */
  readonly region?: string;
  /**
   * The simulator's time: X-Sdk-Date skew is checked against it and the
   * timed status changes follow it. Default: the system clock.
   */
  readonly clock?: Clock;
  /**
   * How long an LB stays PENDING_CREATE / PENDING_UPDATE, an EIP
   * PENDING_CREATE, a VPC CREATING and a subnet UNKNOWN; default 50 ms.
   */
  readonly transitionDelayMs?: number;
  /** How long a CCE cluster is Creating; default 200 ms. */
  readonly cceClusterCreateMs?: number;
  /** How long a CCE cluster is Deleting before it is gone; default 200 ms. */
  readonly cceClusterDeleteMs?: number;
  /** How long a node pool is Synchronizing (or Deleting), and how often a SoldOut one retries; default 200 ms. */
  readonly nodePoolSyncMs?: number;
  /** The ECS flavors node pools may use; default `DEFAULT_FLAVORS`. */
  readonly flavors?: readonly string[];
  /**
   * The CCE cluster versions (`vX.Y`, oldest first) clusters may be created
   * with; an omitted `spec.version` gets the last. Default `DEFAULT_CCE_VERSIONS`.
   */
  readonly cceVersions?: readonly string[];
  /**
   * flavor → zone → the most servers of that flavor the zone holds; a flavor
   * not listed is unlimited, a listed flavor holds none in zones it omits.
   */
  readonly capacity?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** The kube-apiserver a CCE cluster's kubeconfig reaches; without it `clustercert` answers 400. */
  readonly workloadCluster?: WorkloadCluster;
}

export interface OtcSimulator {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every service on the same base URL; requests are routed by path. */
  readonly endpoints: {
    readonly iam: string;
    readonly ecs: string;
    readonly vpc: string;
    readonly elb: string;
    readonly cce: string;
  };
  readonly state: SimulatorState;
  readonly faults: Faults;
  addServer(seed: ServerSeed): Server;
  addSubnet(subnet: Subnet): StoredSubnet;
  /** Limits `flavor` in `zone` to `servers` servers, existing ones included; see `capacity`. */
  setCapacity(flavor: string, zone: string, servers: number): void;
  /** How many objects of each kind exist after the due changes; 0 everywhere once a test cleaned up. */
  liveObjects(projectId?: string): LiveObjects;
  close(): Promise<void>;
}

export async function startOtcSimulator(options: OtcSimulatorOptions): Promise<OtcSimulator> {
  if (options.credentials.length === 0 && (options.users ?? []).length === 0) {
    throw new Error("the OTC simulator needs at least one AK/SK pair or password user");
  }
  const clock = options.clock ?? (() => new Date());
  const state = new SimulatorState(options.projects, options.region ?? "eu-de", clock, options.transitionDelayMs ?? 50, {
    users: options.users,
    tokenTtlMs: options.tokenTtlMs,
    flavors: options.flavors,
    cceVersions: options.cceVersions,
    cceClusterCreateMs: options.cceClusterCreateMs,
    cceClusterDeleteMs: options.cceClusterDeleteMs,
    nodePoolSyncMs: options.nodePoolSyncMs,
    workloadCluster: options.workloadCluster,
  });
  for (const [flavor, zones] of Object.entries(options.capacity ?? {})) {
    for (const [zone, servers] of Object.entries(zones)) state.setCapacity(flavor, zone, servers);
  }
  const faults = new Faults(state);
  const context: Context = { credentials: options.credentials, state, faults };

  const server = createServer((request, response) => {
    handle(context, request, response).catch((error: unknown) => {
      // Only reachable if writing the response itself failed; the client sees a reset connection.
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    endpoints: { iam: url, ecs: url, vpc: url, elb: url, cce: url },
    state,
    faults,
    addServer: (seed) => state.addServer(seed),
    addSubnet: (subnet) => state.addSubnet(subnet),
    setCapacity: (flavor, zone, servers) => state.setCapacity(flavor, zone, servers),
    liveObjects: (projectId) => state.liveObjects(projectId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

interface Context {
  readonly credentials: readonly Credentials[];
  readonly state: SimulatorState;
  readonly faults: Faults;
}

async function handle(context: Context, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = randomUUID().replaceAll("-", "");
  const method = (request.method ?? "GET").toUpperCase();
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "127.0.0.1"}`);
  let answer: ApiResponse;
  const caller: { value?: Caller } = {};
  const agent = request.headers["user-agent"];
  let fault: FaultPhase | undefined;
  try {
    answer = await answerRequest(context, method, url, request, requestId, caller, (phase) => (fault = phase));
  } catch (error) {
    answer =
      error instanceof ApiError
        ? { status: error.status, body: errorBody(error, requestId) }
        : { status: 500, body: { error_msg: `simulator error: ${String(error)}`, error_code: "SIM.0500", request_id: requestId } };
  }
  context.faults.record({
    method,
    path: url.pathname,
    query: url.search,
    status: answer.status,
    ...(caller.value === undefined ? {} : { caller: caller.value }),
    ...(agent === undefined ? {} : { agent }),
    ...(fault === undefined ? {} : { fault }),
  });
  const headers = {
    ...answer.headers,
    "x-request-id": requestId,
    ...(answer.body === undefined ? {} : { "content-type": "application/json" }),
  };
  response.writeHead(answer.status, headers);
  response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
}

/** `injected` hears when the answer is an injected fault, and of which phase. */
async function answerRequest(
  context: Context,
  method: string,
  url: URL,
  request: IncomingMessage,
  requestId: string,
  caller: { value?: Caller },
  injected: (phase: FaultPhase) => void,
): Promise<ApiResponse> {
  const body = await readBody(request);
  const headers = flattenHeaders(request);
  const path = segments(url);
  const { state } = context;
  const token = headers["x-auth-token"];
  const scope = token === undefined ? undefined : authenticateToken(state, token);
  if (token === undefined && !isTokenRequest(method, path)) verifySignature({ method, url, headers, body }, context.credentials, state.clock());
  caller.value = token === undefined ? signedCaller(headers) : tokenCaller(state, token);

  const agent = headers["user-agent"];
  const wait = context.faults.delayFor(method, url.pathname, agent);
  if (wait > 0) await sleep(wait);
  const failure = context.faults.takeFailure(method, url.pathname, agent);
  if (failure !== undefined) {
    injected("before");
    return failure;
  }

  state.settle();
  const apiRequest: ApiRequest = {
    method,
    segments: path,
    query: url.searchParams,
    headers,
    body: parseJson(body),
    token: scope,
  };
  const answer =
    routeIam(apiRequest, state) ??
    routeEcs(apiRequest, state) ??
    routeEip(apiRequest, state) ??
    routeSubnets(apiRequest, state) ??
    routeVpcs(apiRequest, state) ??
    routeKeypairs(apiRequest, state) ??
    routeCce(apiRequest, state) ??
    routeElbV2(apiRequest, state) ??
    routeElbV3(apiRequest, state, requestId);
  if (answer === undefined) throw new ApiError(404, "APIGW.0101", `The API does not exist or has not been published: ${method} ${url.pathname}`);
  const issued = answer.headers?.["x-subject-token"];
  if (issued !== undefined) caller.value = tokenCaller(state, issued);
  const lost = context.faults.takeFailure(method, url.pathname, agent, "after");
  if (lost === undefined) return answer;
  injected("after");
  return lost;
}

function tokenCaller(state: SimulatorState, token: string): Caller | undefined {
  const issued = state.liveToken(token);
  return issued === undefined ? undefined : { user: `${issued.user.domainName}/${issued.user.userName}`, project: issued.projectId };
}

function signedCaller(headers: Readonly<Record<string, string>>): Caller | undefined {
  const key = /Access=([^,\s]+)/.exec(headers["authorization"] ?? "")?.[1];
  const project = headers["x-project-id"];
  if (key === undefined && project === undefined) return undefined;
  return { ...(key === undefined ? {} : { user: `access-key:${key}` }), ...(project === undefined ? {} : { project }) };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, "APIGW.0413", "the request body exceeds 12 MB");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function segments(url: URL): string[] {
  return url.pathname
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    throw new ApiError(400, "APIGW.0400", "the request body is not valid JSON");
  }
}
