/**
 * The provider-controller's command line. The runtime's
 * `--metrics-bind-address`, `--health-probe-bind-address` and
 * `--leader-elect` come first, as in the seed's Go manager; then the two API
 * servers it talks to (kcp, through the provider workspace that holds the
 * APIExport, and the infrastructure cluster where Crossplane runs), the
 * limits that keep one tenant's cloud from holding the others', and whether
 * the platform offers Cluster API clusters.
 */
import { API_EXPORT_NAME } from "@edgeconnect/api";
import { DEFAULT_MAX_CLUSTERS_PER_WORKSPACE } from "../tenant/cluster-quota.js";
import { FlagError, leaseTimings, leaseTimingUsage, parseCommandLine, parseDuration, parseRuntimeFlags, positiveInteger, type RuntimeFlags } from "@edgeconnect/runtime";

export interface ProviderControllerFlags extends Pick<RuntimeFlags, "metricsBindAddress" | "healthProbeBindAddress" | "leaderElect" | "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs"> {
  /** Kubeconfig whose current context points at the provider workspace (`/clusters/<path>`). */
  readonly kcpKubeconfig: string;
  readonly apiExportEndpointSlice: string;
  /** The infrastructure cluster; undefined: the in-cluster service account. */
  readonly infraKubeconfig?: string;
  readonly maxConcurrentReconciles: number;
  /** IAM URLs tenants' credentials may name, as URL prefixes. */
  readonly allowedAuthUrls: readonly string[];
  readonly otcConcurrencyPerCredentials: number;
  readonly otcTimeoutMs: number;
  readonly credentialCacheTtlMs: number;
  readonly kubeconfigValidityDays: number;
  readonly leaderElectNamespace: string;
  readonly leaderElectName: string;
  /**
   * Every replica reconciles a share of the tenants, by slot Leases in the
   * leader-elect namespace named after the leader-elect name, instead of one
   * leader reconciling all.
   */
  readonly sharded: boolean;
  /** Slots the tenants are spread over; every replica must agree. */
  readonly shardSlots: number;
  /** ClusterAPI KubernetesClusters, from the template sets on the infrastructure cluster. */
  readonly clusterApi: boolean;
  /** How often the leader looks for infrastructure whose KubernetesCluster is gone; 0: never. */
  readonly orphanAuditIntervalMs: number;
  /** Whether the audit deletes what it finds, or only reports it. */
  readonly orphanTeardown: boolean;
  /** The most KubernetesClusters the controller makes infrastructure for in one workspace. */
  readonly maxClustersPerWorkspace: number;
  /** The deadline of one reconcile, every call in it included. */
  readonly reconcileTimeoutMs: number;
  readonly help: boolean;
}

/** OTC's public IAM endpoints, one per region. */
export const DEFAULT_ALLOWED_AUTH_URL = "https://iam.*.otc.t-systems.com/";

const BOOLEAN_FLAGS = new Set(["cluster-api", "orphan-teardown", "sharded"]);

const VALUE_FLAGS = new Set([
  "kcp-kubeconfig",
  "apiexport-endpoint-slice",
  "infra-kubeconfig",
  "max-concurrent-reconciles",
  "allowed-otc-auth-url",
  "otc-concurrency-per-credentials",
  "otc-timeout",
  "credential-cache-ttl",
  "kubeconfig-validity-days",
  "leader-elect-resource-namespace",
  "leader-elect-resource-name",
  "shard-slots",
  "orphan-audit-interval",
  "max-clusters-per-workspace",
  "reconcile-timeout",
]);

export const USAGE = `Usage: provider-controller [flags]

  --kcp-kubeconfig=PATH                    kcp, current context on the provider workspace that holds the APIExport (required)
  --apiexport-endpoint-slice=NAME          default ${API_EXPORT_NAME}
  --infra-kubeconfig=PATH                  the infrastructure cluster running Crossplane; default: the in-cluster service account
  --max-concurrent-reconciles=N            default 8
  --allowed-otc-auth-url=PREFIX            IAM URL prefix tenants' credentials may use (repeatable; * matches one DNS label);
                                           default ${DEFAULT_ALLOWED_AUTH_URL}
  --otc-concurrency-per-credentials=N      OTC calls in flight per credential set; default 2
  --otc-timeout=DURATION                   per OTC call; default 20s
  --credential-cache-ttl=DURATION          how long an IAM verdict on a credential set holds; default 10m
  --kubeconfig-validity-days=N             lifetime of the kubeconfigs handed to tenants, 1 to 1825; default 365
  --leader-elect[=BOOL]                    default false
  --leader-elect-resource-namespace=NS     Lease namespace in the provider workspace on kcp; default kube-system
  --leader-elect-resource-name=NAME        default provider-controller; with --sharded, the prefix of the shard Leases
${leaseTimingUsage(43)}  --sharded[=BOOL]                         every replica reconciles a share of the tenants, by slot Leases in the
                                           leader-elect namespace; instead of --leader-elect; default false
  --shard-slots=N                          slots the tenants are spread over, the same on every replica; default 32
  --cluster-api[=BOOL]                     offer ClusterAPI clusters from the template sets (capi.clusters.openmcp.cloud
                                           ProviderConfigs) on the infrastructure cluster; true or false, default false
  --orphan-audit-interval=DURATION         how often the leader reports infrastructure whose KubernetesCluster is gone;
                                           default 10m; 0 disables
  --orphan-teardown[=BOOL]                 also delete what the audit finds; default false
  --max-clusters-per-workspace=N           KubernetesClusters made per workspace; newer ones wait; default ${DEFAULT_MAX_CLUSTERS_PER_WORKSPACE}
  --reconcile-timeout=DURATION             deadline of one reconcile; default 5m
  --metrics-bind-address=ADDR              default :8080; 0 disables
  --health-probe-bind-address=ADDR         /healthz and /readyz; default :8081; 0 disables
  --help
`;

export function parseProviderControllerFlags(argv: readonly string[]): ProviderControllerFlags {
  const runtime = parseRuntimeFlags(argv);
  const line = parseCommandLine(runtime.rest, VALUE_FLAGS, BOOLEAN_FLAGS);
  const kcpKubeconfig = line.value("kcp-kubeconfig");
  if (kcpKubeconfig === undefined && !line.help) throw new FlagError("--kcp-kubeconfig is required");
  const allowed = line.values("allowed-otc-auth-url");
  for (const prefix of allowed) {
    if (!/^https?:\/\/[^/]+\//.test(prefix)) throw new FlagError(`--allowed-otc-auth-url: ${JSON.stringify(prefix)} must be a URL prefix ending in a path, e.g. https://iam.eu-de.otc.t-systems.com/`);
  }
  const infraKubeconfig = line.value("infra-kubeconfig");
  const sharded = line.flag("sharded") ?? false;
  if (sharded && runtime.leaderElect) throw new FlagError("--sharded and --leader-elect exclude each other: sharded replicas each lead their own share of the tenants");
  return {
    metricsBindAddress: runtime.metricsBindAddress,
    healthProbeBindAddress: runtime.healthProbeBindAddress,
    leaderElect: runtime.leaderElect,
    ...leaseTimings(runtime),
    kcpKubeconfig: kcpKubeconfig ?? "",
    apiExportEndpointSlice: line.value("apiexport-endpoint-slice") ?? API_EXPORT_NAME,
    ...(infraKubeconfig === undefined ? {} : { infraKubeconfig }),
    maxConcurrentReconciles: positiveInteger("--max-concurrent-reconciles", line.value("max-concurrent-reconciles") ?? "8"),
    allowedAuthUrls: allowed.length > 0 ? allowed : [DEFAULT_ALLOWED_AUTH_URL],
    otcConcurrencyPerCredentials: positiveInteger("--otc-concurrency-per-credentials", line.value("otc-concurrency-per-credentials") ?? "2"),
    otcTimeoutMs: parseDuration("--otc-timeout", line.value("otc-timeout") ?? "20s"),
    credentialCacheTtlMs: parseDuration("--credential-cache-ttl", line.value("credential-cache-ttl") ?? "10m"),
    kubeconfigValidityDays: validityDays(line.value("kubeconfig-validity-days") ?? "365"),
    leaderElectNamespace: line.value("leader-elect-resource-namespace") ?? "kube-system",
    leaderElectName: line.value("leader-elect-resource-name") ?? "provider-controller",
    sharded,
    shardSlots: positiveInteger("--shard-slots", line.value("shard-slots") ?? "32"),
    clusterApi: line.flag("cluster-api") ?? false,
    orphanAuditIntervalMs: auditInterval(line.value("orphan-audit-interval") ?? "10m"),
    orphanTeardown: line.flag("orphan-teardown") ?? false,
    maxClustersPerWorkspace: positiveInteger("--max-clusters-per-workspace", line.value("max-clusters-per-workspace") ?? String(DEFAULT_MAX_CLUSTERS_PER_WORKSPACE)),
    reconcileTimeoutMs: parseDuration("--reconcile-timeout", line.value("reconcile-timeout") ?? "5m"),
    help: line.help,
  };
}

/** Kubeconfigs live at most five years: a leaked one is a key to a tenant's cluster until it expires. */
const MAX_KUBECONFIG_VALIDITY_DAYS = 1825;

function validityDays(text: string): number {
  const days = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 1 && days <= MAX_KUBECONFIG_VALIDITY_DAYS)) {
    throw new FlagError(`--kubeconfig-validity-days must be a whole number of days from 1 to ${MAX_KUBECONFIG_VALIDITY_DAYS}, not ${JSON.stringify(text)}`);
  }
  return days;
}

/** A duration, or 0 to switch the audit off. */
function auditInterval(text: string): number {
  return text === "0" ? 0 : parseDuration("--orphan-audit-interval", text);
}

/**
 * Whether `authUrl` starts with one of the allowed prefixes. A tenant names
 * the IAM URL in its own credentials; without this check the controller
 * would send signed requests wherever a tenant points it, inside the
 * platform's network too.
 */
export function authUrlAllowed(authUrl: string, allowed: readonly string[]): boolean {
  return allowed.some((prefix) => {
    const pattern = prefix
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[a-z0-9-]+");
    return new RegExp(`^${pattern}`).test(authUrl.endsWith("/") ? authUrl : `${authUrl}/`);
  });
}
