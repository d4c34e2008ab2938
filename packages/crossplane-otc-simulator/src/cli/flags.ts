/**
 * The simulator's command line: the provider's own knobs (`--poll`, here
 * `--poll-interval`, and `--max-reconcile-rate`), the kubeconfig of the
 * infrastructure cluster, the runtime's metrics and probe addresses (off
 * unless given: test suites run several of these processes side by side),
 * and two test hooks: one OTC base URL for every service, and a single
 * namespace to watch.
 */
import { DISABLED_ADDRESS, FlagError, parseCommandLine, parseDuration, parseRuntimeFlags, positiveInteger, type RuntimeFlags } from "@edgeconnect/runtime";

export { FlagError };

export interface SimulatorFlags extends Pick<RuntimeFlags, "metricsBindAddress" | "healthProbeBindAddress"> {
  readonly kubeconfig?: string;
  readonly pollIntervalMs: number;
  readonly maxReconcileRate: number;
  /** One base URL for every OTC service; otherwise each credentials Secret's auth_url decides. */
  readonly otcEndpointOverride?: string;
  /** Watch this namespace only (test suites sharing one cluster); default all. */
  readonly namespace?: string;
  readonly help: boolean;
}

const VALUE_FLAGS: ReadonlySet<string> = new Set(["kubeconfig", "poll-interval", "poll", "max-reconcile-rate", "otc-endpoint-override", "namespace"]);

export const USAGE = `Usage: crossplane-otc-simulator [flags]

A simulator of Crossplane's OTC provider (provider-opentelekomcloud) for tests
and the local demo: reconciles its namespaced managed resources on a
kube-apiserver against the OTC API.

  --kubeconfig=PATH                   the infrastructure cluster; default: the in-cluster service account
  --poll-interval=DURATION            drift and status poll (alias --poll); default 10s
  --max-reconcile-rate=N              reconciles at once per kind and retries per second; default 10
  --otc-endpoint-override=URL         one base URL for every OTC service; default: derived from the Secret's auth_url
  --namespace=NS                      watch this namespace only; default all
  --metrics-bind-address=ADDR         default 0 (off)
  --health-probe-bind-address=ADDR    /healthz and /readyz; default 0 (off)
  --help
`;

export function parseSimulatorFlags(argv: readonly string[]): SimulatorFlags {
  // Off unless given: test suites run several of these processes side by side.
  const runtime = parseRuntimeFlags(argv, { metricsBindAddress: DISABLED_ADDRESS, healthProbeBindAddress: DISABLED_ADDRESS });
  if (runtime.leaderElect) throw new FlagError("--leader-elect: the simulator runs as a single process and has no leader election");
  const line = parseCommandLine(runtime.rest, VALUE_FLAGS);
  const poll = line.value("poll-interval") ?? line.value("poll");
  const endpoint = line.value("otc-endpoint-override");
  if (endpoint !== undefined && endpoint !== "") checkEndpoint(endpoint);
  return {
    metricsBindAddress: runtime.metricsBindAddress,
    healthProbeBindAddress: runtime.healthProbeBindAddress,
    ...line.optional("kubeconfig", "kubeconfig"),
    pollIntervalMs: parseDuration("--poll-interval", poll ?? "10s"),
    maxReconcileRate: positiveInteger("--max-reconcile-rate", line.value("max-reconcile-rate") ?? "10"),
    ...line.optional("otcEndpointOverride", "otc-endpoint-override"),
    ...line.optional("namespace", "namespace"),
    help: line.help,
  };
}

function checkEndpoint(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FlagError("--otc-endpoint-override is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FlagError(`--otc-endpoint-override must be http(s), not ${url.protocol}`);
}
