/**
 * Fault injection and the request log: canned error responses for the next
 * matching requests, added latency, forced "load balancer busy" spells, and
 * the record of what was asked and answered, for assertions.
 *
 * Faults apply after the signature check, so an injected 500 is answered
 * only to requests the real cloud would have accepted.
 */
import type { SimulatorState } from "./state.js";

/** Which requests a fault applies to; an empty match applies to all. */
export interface RequestMatch {
  /** Upper-case HTTP method; default any. */
  readonly method?: string;
  /** Path prefix, e.g. `/v2.0/lbaas/listeners`; default any. */
  readonly pathPrefix?: string;
  /** Path suffix, for a call below ids, e.g. `/clustercert`; default any. */
  readonly pathSuffix?: string;
  /** The client's User-Agent, exactly: faults for one client, when several share the cloud; default any. */
  readonly agent?: string;
}

export interface RequestLogEntry {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  readonly query: string;
  readonly status: number;
  /** Who asked, where the request said: checks that no tenant acts in another's project. */
  readonly caller?: Caller;
  /** The client's User-Agent, when it sent one: which program asked. */
  readonly agent?: string;
  /** Set when the answer was an injected fault (`failNext`: "before", `failNextAfterEffect`: "after"), not the cloud's. */
  readonly fault?: FaultPhase;
}

/**
 * The identity a request acted with: an IAM token's user (`domain/user`) and
 * project, the user and project of a token being issued, or an AK/SK-signed
 * request's access key and X-Project-Id.
 */
export interface Caller {
  readonly user?: string;
  readonly project?: string;
}

interface Failure {
  readonly match: RequestMatch;
  /** "after": the request takes effect and only its answer is replaced, as when a response is lost. */
  readonly phase: FaultPhase;
  readonly status: number;
  readonly body: unknown;
  /** Matching requests still to answer with it; Infinity for a share. */
  remaining: number;
  /** For a share of the matching requests: each one is answered with it when `random()` falls below `probability`. */
  readonly share?: { readonly probability: number; readonly random: () => number };
}

interface Delay {
  readonly match: RequestMatch;
  readonly ms: number;
}

/** Whether a fault answers instead of the cloud ("before") or after the request took effect ("after"). */
export type FaultPhase = "before" | "after";

export class Faults {
  private failures: Failure[] = [];
  private delays: Delay[] = [];
  private readonly log: RequestLogEntry[] = [];

  constructor(private readonly state: SimulatorState) {}

  /** Answers the next `count` matching requests with `status` and `body` (default an OTC-style error body). */
  failNext(match: RequestMatch, status: number, count = 1, body?: unknown): void {
    this.failures.push({ match, phase: "before", status, body: body ?? injectedFaultBody(status, "before"), remaining: count });
  }

  /**
   * Lets the next `count` matching requests take effect, then answers them
   * with `status` instead: the lost answer that makes a retried POST create a
   * second resource. Requests the cloud refuses are answered as usual.
   */
  failNextAfterEffect(match: RequestMatch, status: number, count = 1, body?: unknown): void {
    this.failures.push({ match, phase: "after", status, body: body ?? injectedFaultBody(status, "after"), remaining: count });
  }

  /**
   * Answers a share of the matching requests (each with `probability`, drawn
   * from `random`) with `status`, until `clear()`; phase "after" lets them
   * take effect first, as `failNextAfterEffect`. Unlike a count, a share
   * falls on every caller alike: the last caller left meets the same odds
   * as the first of many, not every fault armed for all of them.
   */
  failShare(match: RequestMatch, status: number, probability: number, options: { readonly random: () => number; readonly phase?: FaultPhase; readonly body?: unknown }): void {
    if (!(probability > 0 && probability <= 1)) throw new Error(`failShare: the probability must be in (0, 1], not ${probability}`);
    const phase = options.phase ?? "before";
    this.failures.push({ match, phase, status, body: options.body ?? injectedFaultBody(status, phase), remaining: Infinity, share: { probability, random: options.random } });
  }

  /** Delays every matching request by `ms` before it is answered, until `clear()`. */
  delay(match: RequestMatch, ms: number): void {
    this.delays.push({ match, ms });
  }

  /** Keeps the LB in PENDING_UPDATE for `ms` of simulator clock, so its mutations answer 409. */
  busy(lbId: string, ms: number): void {
    const lb = this.state.loadbalancers.get(lbId);
    if (lb === undefined) throw new Error(`busy: unknown load balancer ${lbId}`);
    lb.markPending(ms);
  }

  /** Drops pending failures and delays (not the request log, nor busy spells already started). */
  clear(): void {
    this.failures = [];
    this.delays = [];
  }

  /** Every request answered so far, oldest first. */
  get requests(): readonly RequestLogEntry[] {
    return this.log;
  }

  /** @internal the server's hooks */
  takeFailure(method: string, path: string, agent: string | undefined, phase: FaultPhase = "before"): { status: number; body: unknown } | undefined {
    const failure = this.failures.find(
      (candidate) =>
        candidate.remaining > 0 &&
        candidate.phase === phase &&
        requestMatches(candidate.match, method, path, agent) &&
        (candidate.share === undefined || candidate.share.random() < candidate.share.probability),
    );
    if (failure === undefined) return undefined;
    failure.remaining -= 1;
    this.failures = this.failures.filter((candidate) => candidate.remaining > 0);
    return { status: failure.status, body: failure.body };
  }

  /** @internal */
  delayFor(method: string, path: string, agent: string | undefined): number {
    return this.delays.filter((delay) => requestMatches(delay.match, method, path, agent)).reduce((sum, delay) => sum + delay.ms, 0);
  }

  /** @internal */
  record(entry: RequestLogEntry): void {
    this.log.push(entry);
  }
}

/** The OTC-style error body of an injected fault that names no body of its own. */
function injectedFaultBody(status: number, phase: FaultPhase): { error_msg: string; error_code: string } {
  return { error_msg: `injected fault${phase === "after" ? " after the request took effect" : ""}: HTTP ${status}`, error_code: "SIM.FAULT" };
}

/** Whether a request of `method` on `path`, from a client with User-Agent `agent`, is one `match` names. */
export function requestMatches(match: RequestMatch, method: string, path: string, agent?: string): boolean {
  if (match.method !== undefined && match.method.toUpperCase() !== method) return false;
  if (match.agent !== undefined && match.agent !== agent) return false;
  return (match.pathPrefix === undefined || path.startsWith(match.pathPrefix)) && (match.pathSuffix === undefined || path.endsWith(match.pathSuffix));
}
