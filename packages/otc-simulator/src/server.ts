/**
 * The loopback HTTP server: reads each request whole, verifies its AK/SK
 * signature, applies injected faults, routes it by path to the service
 * modules (one base URL serves IAM, ECS, VPC subnets/EIP and ELB), answers JSON, and
 * logs it.
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
import { Faults } from "./faults.js";
import { routeIam } from "./iam.js";
import { routeSubnets } from "./vpc-subnets.js";
import { verifySignature } from "./signature-check.js";
import { SimulatorState, type Clock, type Project, type Server, type ServerSeed, type Subnet } from "./state.js";

/** The API gateway's limit for AK/SK-signed bodies. */
const MAX_BODY_BYTES = 12 * 1024 * 1024;

export interface OtcSimulatorOptions {
  /** The AK/SK pairs the simulator accepts (the secret is only used to verify). */
  readonly credentials: readonly Credentials[];
  /** Projects that exist; the first is where seeded servers go by default. */
  readonly projects: readonly Project[];
  /** Default `eu-de`; used for default availability zones. */
  readonly region?: string;
  /**
   * The simulator's time: X-Sdk-Date skew is checked against it and the
   * timed status changes follow it. Default: the system clock.
   */
  readonly clock?: Clock;
  /** How long an LB stays PENDING_CREATE / PENDING_UPDATE and an EIP PENDING_CREATE; default 50 ms. */
  readonly transitionDelayMs?: number;
}

export interface OtcSimulator {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every service on the same base URL; requests are routed by path. */
  readonly endpoints: { readonly iam: string; readonly ecs: string; readonly vpc: string; readonly elb: string };
  readonly state: SimulatorState;
  readonly faults: Faults;
  addServer(seed: ServerSeed): Server;
  addSubnet(subnet: Subnet): Required<Subnet>;
  close(): Promise<void>;
}

export async function startOtcSimulator(options: OtcSimulatorOptions): Promise<OtcSimulator> {
  if (options.credentials.length === 0) throw new Error("the OTC simulator needs at least one AK/SK pair");
  const clock = options.clock ?? (() => new Date());
  const state = new SimulatorState(options.projects, options.region ?? "eu-de", clock, options.transitionDelayMs ?? 50);
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
    endpoints: { iam: url, ecs: url, vpc: url, elb: url },
    state,
    faults,
    addServer: (seed) => state.addServer(seed),
    addSubnet: (subnet) => state.addSubnet(subnet),
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
  try {
    answer = await answerRequest(context, method, url, request, requestId);
  } catch (error) {
    answer =
      error instanceof ApiError
        ? { status: error.status, body: errorBody(error, requestId) }
        : { status: 500, body: { error_msg: `simulator error: ${String(error)}`, error_code: "SIM.0500", request_id: requestId } };
  }
  context.faults.record({ method, path: url.pathname, query: url.search, status: answer.status });
  const headers = { "x-request-id": requestId, ...(answer.body === undefined ? {} : { "content-type": "application/json" }) };
  response.writeHead(answer.status, headers);
  response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
}

async function answerRequest(context: Context, method: string, url: URL, request: IncomingMessage, requestId: string): Promise<ApiResponse> {
  const body = await readBody(request);
  const headers = flattenHeaders(request);
  verifySignature({ method, url, headers, body }, context.credentials, context.state.clock());

  const wait = context.faults.delayFor(method, url.pathname);
  if (wait > 0) await sleep(wait);
  const failure = context.faults.takeFailure(method, url.pathname);
  if (failure !== undefined) return failure;

  const apiRequest: ApiRequest = { method, segments: segments(url), query: url.searchParams, headers, body: parseJson(body) };
  const { state } = context;
  const answer =
    routeIam(apiRequest, state) ??
    routeEcs(apiRequest, state) ??
    routeEip(apiRequest, state) ??
    routeSubnets(apiRequest, state) ??
    routeElbV2(apiRequest, state) ??
    routeElbV3(apiRequest, state, requestId);
  if (answer === undefined) throw new ApiError(404, "APIGW.0101", `The API does not exist or has not been published: ${method} ${url.pathname}`);
  return context.faults.takeFailure(method, url.pathname, "after") ?? answer;
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
