/**
 * The Makefile's variables, as the targets read them from the environment
 * (the Makefile exports each one). A missing or malformed one is an error
 * that names the variable and shows how to set it; values are never echoed,
 * since several of them are credentials.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export type Environment = Readonly<Record<string, string | undefined>>;

/** A user's mistake in how a target was called: printed without a stack, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** kcp workspace paths: `root`, then `:`-separated DNS labels. */
const WORKSPACE_PATH = /^root(?::[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*$/;

export class Variables {
  constructor(
    private readonly env: Environment,
    /** The target, for the examples in error messages. */
    private readonly target: string,
  ) {}

  /** A value that must be set; `example` is what to put after `NAME=`. */
  required(name: string, example: string): string {
    const value = this.optional(name);
    if (value === undefined) throw new UsageError(`${name} is not set: make ${name}=${example} ${this.target}`);
    return value;
  }

  /** Unset and empty are alike, as make has them. */
  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  withDefault(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  /** A kcp workspace path such as `root:orgs`. */
  workspace(name: string, fallback?: string): string {
    const value = fallback === undefined ? this.required(name, "root:orgs") : this.withDefault(name, fallback);
    if (!WORKSPACE_PATH.test(value)) throw new UsageError(`${name} must be a kcp workspace path such as root:orgs (lowercase DNS labels joined by ':')`);
    return value;
  }

  /** The kcp kubeconfig: the first file of KUBECONFIG, as kubectl reads it, else ~/.kube/config. */
  kcpKubeconfig(): string {
    return this.optional("KUBECONFIG")?.split(":").find((path) => path !== "") ?? join(homedir(), ".kube", "config");
  }

  /** A duration such as `45m`, `90s` or `1h`, in milliseconds. */
  duration(name: string, fallback: string): number {
    const value = this.withDefault(name, fallback);
    const match = /^(\d+)(ms|s|m|h)$/.exec(value);
    if (match === null) throw new UsageError(`${name} must be a duration such as 90s, 45m or 1h`);
    const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
    return Number(match[1]) * unit;
  }
}
