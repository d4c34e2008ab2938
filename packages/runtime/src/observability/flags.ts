/**
 * The command-line flags every controller binary shares, spelled as in
 * kubebuilder-generated Go managers so that existing Deployment manifests
 * carry over: --metrics-bind-address, --health-probe-bind-address and
 * --leader-elect. Everything else is passed back for the binary's own parser.
 */

import { parseBoolean } from "./command-line.js";

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
  /** The arguments not consumed here, in their original order. */
  rest: string[];
}

/** What a binary may default differently (Kubernetes' CCM elects a leader unless told not to; a test process serves nothing unless asked). */
export type RuntimeFlagDefaults = Partial<Omit<RuntimeFlags, "rest">>;

type AddressFlag = "metricsBindAddress" | "healthProbeBindAddress";

const ADDRESS_FLAGS = new Map<string, AddressFlag>([
  ["--metrics-bind-address", "metricsBindAddress"],
  ["--health-probe-bind-address", "healthProbeBindAddress"],
]);

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
    if (addressFlag !== undefined) {
      const value = inlineValue ?? argv[++i];
      if (value === undefined) throw new Error(`flag ${name} needs a value`);
      flags[addressFlag] = value;
    } else if (name === "--leader-elect") {
      flags.leaderElect = inlineValue === undefined ? true : parseBoolean(name, inlineValue);
    } else {
      flags.rest.push(arg);
    }
  }
  return flags;
}
