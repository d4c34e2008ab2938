/**
 * The controller manager's command line, spelled as Kubernetes'
 * cloud-controller-manager spells it, so that manifests written for a Go CCM
 * carry over: `--cloud-provider`, `--cloud-config`, `--cluster-name`,
 * `--controllers`, `--kubeconfig`, the `--leader-elect*` family, the node
 * controller periods and `--concurrent-service-syncs`. The runtime's
 * `--metrics-bind-address` and `--health-probe-bind-address` serve /metrics,
 * /healthz and /readyz.
 *
 * As in Kubernetes, leader election is on unless `--leader-elect=false`, and
 * `--controllers` takes `*` (every controller on by default), names, and
 * `-name` to turn one off. Routes are not implemented (the CNI owns them):
 * naming the route controller is accepted and reported, not an error.
 */
import { FlagError, leaseTimings, leaseTimingUsage, parseCommandLine, parseDuration, parseRuntimeFlags, positiveInteger, type RuntimeFlags } from "@edgeconnect/runtime";
import { PROVIDER_NAME } from "../instances/provider-id.js";

export { FlagError };

export type ControllerName = "cloud-node" | "cloud-node-lifecycle" | "service";

/** Current names and the `*-controller` aliases newer Kubernetes versions print. */
const CONTROLLER_ALIASES: ReadonlyMap<string, ControllerName | "route"> = new Map([
  ["cloud-node", "cloud-node"],
  ["cloud-node-controller", "cloud-node"],
  ["cloud-node-lifecycle", "cloud-node-lifecycle"],
  ["cloud-node-lifecycle-controller", "cloud-node-lifecycle"],
  ["service", "service"],
  ["service-lb-controller", "service"],
  ["route", "route"],
  ["node-route-controller", "route"],
]);

export interface CcmFlags extends Pick<RuntimeFlags, "metricsBindAddress" | "healthProbeBindAddress" | "leaderElect" | "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs"> {
  readonly cloudConfig?: string;
  readonly clusterName?: string;
  readonly kubeconfig?: string;
  readonly controllers: ReadonlySet<ControllerName>;
  /** Set when --controllers named the route controller, which this provider does not have. */
  readonly routeRequested: boolean;
  readonly leaderElectNamespace: string;
  readonly leaderElectName: string;
  readonly nodeMonitorPeriodMs: number;
  readonly nodeStatusUpdateFrequencyMs: number;
  readonly concurrentServiceSyncs: number;
  readonly help: boolean;
}

type ValueFlag =
  | "cloud-provider"
  | "cloud-config"
  | "cluster-name"
  | "kubeconfig"
  | "controllers"
  | "leader-elect-resource-namespace"
  | "leader-elect-resource-name"
  | "node-monitor-period"
  | "node-status-update-frequency"
  | "concurrent-service-syncs";

const VALUE_FLAGS: ReadonlySet<string> = new Set<ValueFlag>([
  "cloud-provider",
  "cloud-config",
  "cluster-name",
  "kubeconfig",
  "controllers",
  "leader-elect-resource-namespace",
  "leader-elect-resource-name",
  "node-monitor-period",
  "node-status-update-frequency",
  "concurrent-service-syncs",
]);

export const USAGE = `Usage: otc-cloud-controller-manager [flags]

  --cloud-provider=otc                     must be otc when given
  --cloud-config=PATH                      cloud.conf ([Global], [LoadBalancer], [Endpoints]); OS_* variables fill unset [Global] keys
  --cluster-name=NAME                      names ELBs kube_<NAME>_<namespace>_<service> (cloud.conf cluster-name wins); default kubernetes
  --controllers=LIST                       *, cloud-node, cloud-node-lifecycle, service; -NAME disables; default *
  --kubeconfig=PATH                        default: the in-cluster service account
  --leader-elect[=BOOL]                    default true
  --leader-elect-resource-namespace=NS     default kube-system
  --leader-elect-resource-name=NAME        default cloud-controller-manager
${leaseTimingUsage(43)}  --node-monitor-period=DURATION           node lifecycle checks; default 5s
  --node-status-update-frequency=DURATION  node address refresh; default 5m
  --concurrent-service-syncs=N             default 1
  --metrics-bind-address=ADDR              default :8080; 0 disables
  --health-probe-bind-address=ADDR         /healthz and /readyz; default :8081; 0 disables
  --help
`;

export function parseCcmFlags(argv: readonly string[]): CcmFlags {
  // Kubernetes' cloud-controller-manager elects a leader unless --leader-elect=false.
  const runtime = parseRuntimeFlags(argv, { leaderElect: true });
  const line = parseCommandLine(runtime.rest, VALUE_FLAGS);
  const help = line.help;

  const provider = line.value("cloud-provider");
  if (provider !== undefined && provider !== PROVIDER_NAME) {
    throw new FlagError(`--cloud-provider=${provider}: this controller manager is the ${PROVIDER_NAME} provider`);
  }
  const { controllers, routeRequested } = parseControllers(line.value("controllers") ?? "*");
  const duration = (flag: ValueFlag, fallback: string): number => parseDuration(`--${flag}`, line.value(flag) ?? fallback);
  return {
    metricsBindAddress: runtime.metricsBindAddress,
    healthProbeBindAddress: runtime.healthProbeBindAddress,
    leaderElect: runtime.leaderElect,
    ...line.optional("cloudConfig", "cloud-config"),
    ...line.optional("clusterName", "cluster-name"),
    ...line.optional("kubeconfig", "kubeconfig"),
    controllers,
    routeRequested,
    leaderElectNamespace: line.value("leader-elect-resource-namespace") ?? "kube-system",
    leaderElectName: line.value("leader-elect-resource-name") ?? "cloud-controller-manager",
    ...leaseTimings(runtime),
    nodeMonitorPeriodMs: duration("node-monitor-period", "5s"),
    nodeStatusUpdateFrequencyMs: duration("node-status-update-frequency", "5m"),
    concurrentServiceSyncs: positiveInteger("--concurrent-service-syncs", line.value("concurrent-service-syncs") ?? "1"),
    help,
  };
}

function parseControllers(list: string): { controllers: Set<ControllerName>; routeRequested: boolean } {
  const enabled = new Set<ControllerName>();
  const disabled = new Set<ControllerName>();
  let all = false;
  let routeRequested = false;
  for (const raw of list.split(",").map((entry) => entry.trim())) {
    if (raw === "") continue;
    if (raw === "*") {
      all = true;
      continue;
    }
    const negated = raw.startsWith("-");
    const name = CONTROLLER_ALIASES.get(negated ? raw.slice(1) : raw);
    if (name === undefined) {
      throw new FlagError(`--controllers: unknown controller ${JSON.stringify(raw)}; known: ${[...new Set(CONTROLLER_ALIASES.values())].join(", ")}`);
    }
    if (name === "route") {
      routeRequested ||= !negated;
      continue;
    }
    (negated ? disabled : enabled).add(name);
  }
  const controllers = new Set<ControllerName>(all ? ["cloud-node", "cloud-node-lifecycle", "service"] : []);
  for (const name of enabled) controllers.add(name);
  for (const name of disabled) controllers.delete(name);
  return { controllers, routeRequested };
}
