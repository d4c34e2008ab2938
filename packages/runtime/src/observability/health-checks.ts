/**
 * The named checks behind /healthz (liveness) and /readyz (readiness). The
 * probe server only renders their results; what "ready" means (caches
 * synced, leader elected, credentials valid) is registered here by the
 * parts that know.
 */

/**
 * A check passes by returning `true`. It fails by returning `false`, by
 * returning a string (the reason), or by throwing or rejecting (the error's
 * message is the reason).
 */
export type HealthCheck = () => boolean | string | Promise<boolean | string>;

/** The outcome of one check. */
export interface CheckResult {
  name: string;
  ok: boolean;
  /** Why it failed; undefined when it passed. */
  reason: string | undefined;
}

export type CheckKind = "liveness" | "readiness";

/** How long a check may take by default before it counts as failed. */
export const DEFAULT_CHECK_TIMEOUT_MS = 5000;

export interface HealthChecksOptions {
  /**
   * A check that has not settled after this many milliseconds fails with
   * "timed out": one hung dependency would otherwise hold every probe open
   * until the kubelet gives up, without saying which check hung. Default 5000.
   */
  timeoutMs?: number;
}

export class HealthChecks {
  readonly #checks: Record<CheckKind, Map<string, HealthCheck>> = { liveness: new Map(), readiness: new Map() };
  readonly #timeoutMs: number;

  constructor(options: HealthChecksOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  }

  /** Adds a check to /readyz. Names are unique per kind; they appear in the output. */
  addReadiness(name: string, check: HealthCheck): void {
    this.#add("readiness", name, check);
  }

  /** Adds a check to /healthz, which otherwise passes while the process serves requests. */
  addLiveness(name: string, check: HealthCheck): void {
    this.#add("liveness", name, check);
  }

  /** Runs every check of one kind concurrently; results keep registration order. */
  async run(kind: CheckKind): Promise<CheckResult[]> {
    return Promise.all([...this.#checks[kind]].map(([name, check]) => this.#runOne(name, check)));
  }

  #add(kind: CheckKind, name: string, check: HealthCheck): void {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      // Names go into the plain-text output line by line; keep them one word.
      throw new Error(`invalid ${kind} check name ${JSON.stringify(name)}`);
    }
    if (this.#checks[kind].has(name)) throw new Error(`${kind} check ${JSON.stringify(name)} already registered`);
    this.#checks[kind].set(name, check);
  }

  async #runOne(name: string, check: HealthCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve("timed out"), this.#timeoutMs);
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(check), timeout]);
      if (outcome === true) return { name, ok: true, reason: undefined };
      return { name, ok: false, reason: outcome === false ? "returned false" : outcome || "no reason given" };
    } catch (err) {
      return { name, ok: false, reason: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}
