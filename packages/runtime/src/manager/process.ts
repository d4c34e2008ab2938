/**
 * What every controller binary does around its manager: read its flags
 * (usage and exit code 2 when they cannot be used), name itself for Leases
 * and Events, and turn SIGTERM/SIGINT into the signal that stops it.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

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
