/**
 * The command-line flags every controller binary shares, spelled as in
 * kubebuilder-generated Go managers so that existing Deployment manifests
 * carry over: --metrics-bind-address, --health-probe-bind-address,
 * --leader-elect and the Lease timings (--leader-elect-lease-duration,
 * -renew-deadline, -retry-period, as Kubernetes' component-base names them).
 * Everything else is passed back for the binary's own parser.
 */

import { DEFAULT_LEASE_TIMINGS } from "../leader/leader-elector.js";
import { FlagError, parseBoolean, parseDuration } from "./command-line.js";

/** Default of --metrics-bind-address. */
export const DEFAULT_METRICS_BIND_ADDRESS = ":8080";
/** Default of --health-probe-bind-address. */
export const DEFAULT_HEALTH_PROBE_BIND_ADDRESS = ":8081";

export interface RuntimeFlags {
  /** --metrics-bind-address; default ":8080" unless the binary's defaults say otherwise; "0" disables the metrics server. */
  metricsBindAddress: string;
  /** --health-probe-bind-address; default ":8081" unless the binary's defaults say otherwise; "0" disables the probe server. */
  healthProbeBindAddress: string;
  /** --leader-elect; default false unless the binary's defaults say otherwise. */
  leaderElect: boolean;
  /** --leader-elect-lease-duration: how long a Lease holds without renewal; default 15s (client-go's). */
  leaseDurationMs: number;
  /** --leader-elect-renew-deadline: how long a holder keeps trying to renew before it stops acting; default 10s, shorter than the lease duration. */
  renewDeadlineMs: number;
  /** --leader-elect-retry-period: the pause between attempts to acquire or renew; default 2s. */
  retryPeriodMs: number;
  /** The arguments not consumed here, in their original order. */
  rest: string[];
}

/** The Lease timings, as the leader elector and the shard coordinator take them. */
export type LeaseTimings = Pick<RuntimeFlags, "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs">;

/** The Lease timings out of a binary's flags, to spread into a Lease's options. */
export function leaseTimings(flags: LeaseTimings): LeaseTimings {
  return { leaseDurationMs: flags.leaseDurationMs, renewDeadlineMs: flags.renewDeadlineMs, retryPeriodMs: flags.retryPeriodMs };
}

/** What a binary may default differently (Kubernetes' CCM elects a leader unless told not to; a test process serves nothing unless asked). */
export type RuntimeFlagDefaults = Partial<Omit<RuntimeFlags, "rest">>;

type AddressFlag = "metricsBindAddress" | "healthProbeBindAddress";

const ADDRESS_FLAGS = new Map<string, AddressFlag>([
  ["--metrics-bind-address", "metricsBindAddress"],
  ["--health-probe-bind-address", "healthProbeBindAddress"],
]);

type DurationFlag = "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs";

const DURATION_FLAGS = new Map<string, DurationFlag>([
  ["--leader-elect-lease-duration", "leaseDurationMs"],
  ["--leader-elect-renew-deadline", "renewDeadlineMs"],
  ["--leader-elect-retry-period", "retryPeriodMs"],
]);

/** The Lease timing flags' lines of a binary's usage, their descriptions starting at `column` (or a space after a longer flag). */
export function leaseTimingUsage(column: number): string {
  const lines: [string, string][] = [
    ["--leader-elect-lease-duration=DURATION", "default 15s"],
    ["--leader-elect-renew-deadline=DURATION", "default 10s; shorter than the lease duration"],
    ["--leader-elect-retry-period=DURATION", "default 2s"],
  ];
  return lines.map(([flag, text]) => `  ${flag.padEnd(column - 3)} ${text}\n`).join("");
}

/**
 * Parses the shared flags out of `argv` (without the node and script paths).
 * Address flags take `--flag=value` or `--flag value`; --leader-elect is a
 * boolean that takes no separate value (as in Go, `--leader-elect false`
 * leaves "false" as a positional argument), only `--leader-elect=false`.
 * A "--" ends flag parsing; it and what follows are left in `rest`.
 * A flag not given takes its value from `defaults`, else the runtime's.
 * Throws on a missing or malformed value.
 */
export function parseRuntimeFlags(argv: readonly string[], defaults: RuntimeFlagDefaults = {}): RuntimeFlags {
  const flags: RuntimeFlags = {
    metricsBindAddress: defaults.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS,
    healthProbeBindAddress: defaults.healthProbeBindAddress ?? DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    leaderElect: defaults.leaderElect ?? false,
    leaseDurationMs: defaults.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs,
    renewDeadlineMs: defaults.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs,
    retryPeriodMs: defaults.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs,
    rest: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      flags.rest.push(...argv.slice(i));
      break;
    }
    const equals = arg.indexOf("=");
    const name = equals < 0 ? arg : arg.slice(0, equals);
    const inlineValue = equals < 0 ? undefined : arg.slice(equals + 1);

    const addressFlag = ADDRESS_FLAGS.get(name);
    const durationFlag = DURATION_FLAGS.get(name);
    if (addressFlag !== undefined) {
      const value = inlineValue ?? argv[++i];
      if (value === undefined) throw new Error(`flag ${name} needs a value`);
      flags[addressFlag] = value;
    } else if (durationFlag !== undefined) {
      const value = inlineValue ?? argv[++i];
      if (value === undefined) throw new FlagError(`${name} needs a value`);
      flags[durationFlag] = parseDuration(name, value);
    } else if (name === "--leader-elect") {
      flags.leaderElect = inlineValue === undefined ? true : parseBoolean(name, inlineValue);
    } else {
      flags.rest.push(arg);
    }
  }
  // A holder that renews after its Lease may have passed to another would act beside it.
  if (flags.renewDeadlineMs >= flags.leaseDurationMs) throw new FlagError("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration");
  return flags;
}
