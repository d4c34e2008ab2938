/**
 * What every controller binary does around its manager: read its flags
 * (usage and exit code 2 when they cannot be used), name itself for Leases
 * and Events, turn SIGTERM/SIGINT into the signal that stops it, and end at
 * once when it lost its Lease.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { LeadershipLostError } from "./manager.js";

/**
 * The parsed flags, or undefined when the process should end now: after
 * `--help` (usage on stdout), or when `parse` threw (the reason and the
 * usage on stderr, exit code 2).
 */
export function readFlags<F extends { readonly help: boolean }>(name: string, usage: string, parse: (argv: readonly string[]) => F, argv: readonly string[] = process.argv.slice(2)): F | undefined {
  try {
    const flags = parse(argv);
    if (flags.help) {
      process.stdout.write(usage);
      return undefined;
    }
    return flags;
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
    process.exitCode = 2;
    return undefined;
  }
}

/** Lease holder identity and Event reporting instance: the host name and a random suffix, so replicas on one host differ. */
export function instanceIdentity(): string {
  return `${hostname()}_${randomBytes(8).toString("hex")}`;
}

/** Aborts on the first SIGTERM or SIGINT, saying which. */
export function shutdownSignal(logger: { info(obj: object, msg: string): void }): AbortSignal {
  const shutdown = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      shutdown.abort();
    });
  }
  return shutdown.signal;
}

export interface ExitOnLeadershipLostOptions {
  readonly log: { warn(obj: object, msg: string): void };
  /**
   * How long work in flight may wind down (reconciles whose signal aborted,
   * log lines) before the exit. Default 1 000: it must stay well below the
   * lease duration minus the renew deadline (5 s by default), the least time
   * before another replica may lead.
   */
  readonly graceMs?: number;
  /** Default process.exit; tests pass a fake. */
  readonly exit?: (code: number) => void;
}

/**
 * For a binary's top-level catch: when `err` is a LeadershipLostError, exits
 * with code 1 after `graceMs`, whatever is still running, since a reconcile
 * that ignores its aborted signal would go on acting while another replica
 * leads; returns true. Any other error: does nothing and returns false.
 */
export function exitOnLeadershipLost(err: unknown, options: ExitOnLeadershipLostOptions): boolean {
  if (!(err instanceof LeadershipLostError)) return false;
  const graceMs = options.graceMs ?? 1_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  options.log.warn({ graceMs }, "lost the leader Lease: exiting, whatever is still in flight");
  setTimeout(() => exit(1), graceMs);
  return true;
}

