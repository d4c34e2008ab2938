/**
 * The command line openMCP's ClusterProvider runs, one image twice: the init
 * Job as `<initCommand> --environment=<env> --verbosity=<v>
 * --provider-name=<name>`, the Deployment as `<runCommand>` with the same
 * three flags (plus `--metrics-bind-address=:<port> --metrics-secure=false`
 * when metrics are on, and `--leader-elect=true` for several replicas).
 * Configuration beyond that lives in ProviderConfigs, and for init in an
 * optional file (`--config`) the ClusterProvider mounts.
 */
import { FlagError, leaseTimings, leaseTimingUsage, parseCommandLine, parseDuration, parseRuntimeFlags, positiveInteger, type RuntimeFlags } from "@edgeconnect/runtime";
import { isDnsLabel } from "@edgeconnect/provisioning";
import { DEFAULT_ACCESS_NAMESPACE } from "../access/token-access.js";
import { configNameRoom, MAX_PROFILE_NAME } from "../openmcp/profile-naming.js";
import type { ProviderIdentity } from "../provider/provider-identity.js";

export type Verbosity = "DEBUG" | "INFO" | "ERROR";

interface CommonFlags extends ProviderIdentity {
  readonly verbosity: Verbosity;
  /** The platform cluster; undefined: the pod's service account. */
  readonly kubeconfig?: string;
  readonly help: boolean;
}

export interface InitFlags extends CommonFlags {
  readonly command: "init";
  /** The init configuration file; undefined: the pinned defaults. */
  readonly config?: string;
  readonly timeoutMs: number;
}

export interface RunFlags extends CommonFlags, Pick<RuntimeFlags, "metricsBindAddress" | "healthProbeBindAddress" | "leaderElect" | "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs"> {
  readonly command: "run";
  readonly maxConcurrentReconciles: number;
  /** The namespace in workload clusters that holds the ServiceAccounts of granted AccessRequests. */
  readonly accessNamespace: string;
  readonly leaderElectNamespace: string;
}

export type ProviderFlags = InitFlags | RunFlags | { readonly command: "help"; readonly help: true };

export const USAGE = `Usage: cluster-provider-capi init|run [flags]

  init   installs our CRDs, the Cluster API Operator and the core provider, and waits until they are ready
  run    runs the config, cluster and access-request controllers

Flags of both:
  --environment=NAME                   the openMCP environment; first part of every ClusterProfile name (required)
  --provider-name=NAME                 the ClusterProvider's name (required)
  --verbosity=DEBUG|INFO|ERROR         default INFO
  --kubeconfig=PATH                    the platform cluster; default: the pod's service account
init:
  --config=PATH                        init configuration (operator and core provider sources); default: pinned releases
  --timeout=DURATION                   how long init waits for everything to be ready; default 10m
run:
  --max-concurrent-reconciles=N        per controller; default 4
  --access-namespace=NS                namespace in workload clusters for AccessRequests' ServiceAccounts; default ${DEFAULT_ACCESS_NAMESPACE}
  --leader-elect[=BOOL]                default false
  --leader-elect-resource-namespace=NS default: $POD_NAMESPACE, else kube-system
${leaseTimingUsage(39)}  --metrics-bind-address=ADDR          default :8080; 0 disables
  --metrics-secure=false               accepted as openMCP passes it; metrics are served over plain HTTP
  --health-probe-bind-address=ADDR     /healthz and /readyz; default :8081; 0 disables
  --help
`;

const COMMON = ["environment", "provider-name", "verbosity", "kubeconfig"];
const INIT = new Set([...COMMON, "config", "timeout"]);
const RUN = new Set([...COMMON, "max-concurrent-reconciles", "access-namespace", "leader-elect-resource-namespace", "metrics-secure"]);

export function parseProviderFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): ProviderFlags {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h") return { command: "help", help: true };
  if (command !== "init" && command !== "run") throw new FlagError(`unknown command ${JSON.stringify(command)}; the first argument is init or run`);
  const runtime = command === "run" ? parseRuntimeFlags(rest) : undefined;
  const line = parseCommandLine(runtime?.rest ?? rest, command === "init" ? INIT : RUN);
  if (line.help) return { command: "help", help: true };
  const common = commonFlags(line.value.bind(line));
  // The runtime's flags are run's alone.
  if (runtime === undefined) {
    const config = line.value("config");
    return { ...common, command: "init", ...(config === undefined ? {} : { config }), timeoutMs: parseDuration("--timeout", line.value("timeout") ?? "10m") };
  }
  const secure = line.value("metrics-secure");
  if (secure !== undefined && !["false", "0", "f", "F", "FALSE", "False"].includes(secure)) {
    throw new FlagError("--metrics-secure: only false is supported; serve /metrics behind an authenticating proxy if it must be protected");
  }
  const accessNamespace = line.value("access-namespace") ?? DEFAULT_ACCESS_NAMESPACE;
  if (!isDnsLabel(accessNamespace)) throw new FlagError(`--access-namespace: ${JSON.stringify(accessNamespace)} is not a namespace name`);
  return {
    ...common,
    command: "run",
    metricsBindAddress: runtime.metricsBindAddress,
    healthProbeBindAddress: runtime.healthProbeBindAddress,
    leaderElect: runtime.leaderElect,
    ...leaseTimings(runtime),
    maxConcurrentReconciles: positiveInteger("--max-concurrent-reconciles", line.value("max-concurrent-reconciles") ?? "4"),
    accessNamespace,
    leaderElectNamespace: line.value("leader-elect-resource-namespace") ?? (env.POD_NAMESPACE || "kube-system"),
  };
}

function commonFlags(value: (name: string) => string | undefined): CommonFlags {
  const environment = value("environment") ?? "";
  const providerName = value("provider-name") ?? "";
  if (!isDnsLabel(environment)) throw new FlagError(`--environment is required and must be a DNS label, got ${JSON.stringify(environment)}`);
  if (!isDnsLabel(providerName)) throw new FlagError(`--provider-name is required and must be a DNS label, got ${JSON.stringify(providerName)}`);
  if (configNameRoom(environment, providerName) < 1) {
    throw new FlagError(
      `--environment and --provider-name together may have at most ${MAX_PROFILE_NAME - 3} characters: every ClusterProfile name is <environment>.<provider-name>.<config-name>, and openMCP writes it into a label value of at most ${MAX_PROFILE_NAME}`,
    );
  }
  const verbosity = (value("verbosity") ?? "INFO").toUpperCase();
  if (verbosity !== "DEBUG" && verbosity !== "INFO" && verbosity !== "ERROR") throw new FlagError(`--verbosity must be DEBUG, INFO or ERROR, got ${JSON.stringify(verbosity)}`);
  const kubeconfig = value("kubeconfig");
  return { environment, providerName, verbosity, ...(kubeconfig === undefined ? {} : { kubeconfig }), help: false };
}

/** The pino level of an openMCP verbosity. */
export function logLevel(verbosity: Verbosity): string {
  return verbosity === "DEBUG" ? "debug" : verbosity === "ERROR" ? "error" : "info";
}
