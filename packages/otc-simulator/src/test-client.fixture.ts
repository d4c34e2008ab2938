/**
 * Test support for this package's tests: a simulator on a hand-driven clock
 * and a client that signs requests with `@edgeconnect/otc` the way a real
 * OTC client would (or sends an IAM token instead), with knobs to break the
 * signature in specific ways.
 */
import { signRequest, type Credentials } from "@edgeconnect/otc";
import { startOtcSimulator, type OtcSimulator, type OtcSimulatorOptions } from "./server.js";

export const PROJECT = { id: "0123456789abcdef0123456789abcdef", name: "eu-de_test" };
export const OTHER_PROJECT = { id: "fedcba9876543210fedcba9876543210", name: "eu-de_other" };
export const CREDENTIALS: Credentials = { accessKey: "TESTACCESSKEY0000001", secretKey: "test-secret-key-do-not-echo" };
export const SUBNET = {
  vpcSubnetId: "11111111-1111-4111-8111-111111111111",
  neutronSubnetId: "22222222-2222-4222-8222-222222222222",
  neutronNetworkId: "33333333-3333-4333-8333-333333333333",
  cidr: "192.168.0.0/24",
  vpcId: "44444444-4444-4444-8444-444444444444",
};
/** A password user for IAM tokens. */
export const USER = { domainName: "OTC00000000001000000001", userName: "ci-user", password: "ci-password-do-not-echo" };
/** Each transition takes this much simulated time; tests advance the clock past it. */
export const DELAY_MS = 1000;

export interface CallOptions {
  readonly body?: unknown;
  /** Sent as X-Project-Id (signed); omitted when undefined. */
  readonly project?: string;
  readonly credentials?: Credentials;
  /** The signing time; default the simulator's clock. */
  readonly signedAt?: Date;
  /** Replaces the body after signing. */
  readonly sendBody?: string;
  /** Headers added after signing. */
  readonly extraHeaders?: Record<string, string>;
  readonly unsigned?: boolean;
  /** Sent as X-Auth-Token in place of a signature. */
  readonly token?: string;
}

export interface CallResult {
  readonly status: number;
  /** The parsed JSON body; read it with `at`, `text` and `pluck`. */
  readonly body: unknown;
  /** IAM's X-Subject-Token header, when the answer has one. */
  readonly subjectToken?: string;
}

/** The value at a dotted path (`"loadbalancer.publicips.0.publicip_id"`); undefined where the path leads nowhere. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The string at `path`; throws (failing the test) if it is not one. */
export function text(value: unknown, path: string): string {
  const found = at(value, path);
  if (typeof found !== "string") throw new Error(`expected a string at ${path}, got ${JSON.stringify(found)}`);
  return found;
}

/** `key` of every element of the list at `path`. */
export function pluck(value: unknown, path: string, key: string): unknown[] {
  const found = at(value, path);
  if (!Array.isArray(found)) throw new Error(`expected a list at ${path}, got ${JSON.stringify(found)}`);
  return found.map((item) => at(item, key));
}

export interface TestSimulator {
  readonly sim: OtcSimulator;
  now(): Date;
  advance(ms: number): void;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

/** `options` add to or replace the defaults: two projects, `USER`, transitions of `DELAY_MS`. */
export async function startTestSimulator(options: Partial<OtcSimulatorOptions> = {}): Promise<TestSimulator> {
  let now = new Date("2026-03-01T12:00:00Z");
  const sim = await startOtcSimulator({
    credentials: [CREDENTIALS],
    projects: [PROJECT, OTHER_PROJECT],
    users: [USER],
    clock: () => now,
    transitionDelayMs: DELAY_MS,
    ...options,
  });
  sim.addSubnet(SUBNET);
  return {
    sim,
    now: () => now,
    advance: (ms) => {
      now = new Date(now.getTime() + ms);
    },
    async call(method, path, options = {}) {
      const url = new URL(path, sim.url);
      const body = options.body === undefined ? "" : JSON.stringify(options.body);
      const headers: Record<string, string> = {};
      if (options.body !== undefined) headers["Content-Type"] = "application/json";
      if (options.project !== undefined) headers["X-Project-Id"] = options.project;
      if (options.token !== undefined) headers["X-Auth-Token"] = options.token;
      const signed =
        options.unsigned || options.token !== undefined
          ? headers
          : signRequest({ method, url, headers, body }, options.credentials ?? CREDENTIALS, options.signedAt ?? now);
      const response = await fetch(url, {
        method,
        headers: { ...signed, ...options.extraHeaders },
        body: options.sendBody ?? (body === "" ? undefined : body),
      });
      const raw = await response.text();
      const subjectToken = response.headers.get("x-subject-token") ?? undefined;
      return {
        status: response.status,
        body: raw === "" ? undefined : (JSON.parse(raw) as unknown),
        ...(subjectToken === undefined ? {} : { subjectToken }),
      };
    },
  };
}
