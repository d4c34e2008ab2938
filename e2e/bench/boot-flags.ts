/**
 * Command-line flags of the boot benchmark; read with the runtime
 * benchmark's rules (flags.ts): `--flag value` or `--flag=value`, unknown
 * flags fail. `--crash-loop` is a switch.
 */
import { flagValues, integerFlag } from "./flags.js";
import { OTC_DELAY_MS } from "./platform-run.js";

export interface BootBenchFlags {
  /** Restarts of the provider-controller measured (each a SIGTERM, then a new process). */
  readonly runs: number;
  /** Tenant workspaces with one Ready cluster each while the restarts are measured. */
  readonly tenants: number;
  /** Runs of each program's module-load probe (`node <main> --help`). */
  readonly loadRuns: number;
  /** Also run the crash loop: clusters ordered while the controller is SIGKILLed every `crashIntervalS`. */
  readonly crashLoop: boolean;
  readonly crashTenants: number;
  /** Clusters ordered in the crash loop, spread evenly over `crashTenants`. */
  readonly crashClusters: number;
  readonly crashIntervalS: number;
  /** Seconds from the first order until the crash loop counts the Ready clusters and stops. */
  readonly crashTimeoutS: number;
  /** How long the simulated cloud keeps a resource in each transitional state. */
  readonly otcDelayMs: number;
  /** A running kcp (its admin kubeconfig, from testenv's KcpServer) and infrastructure cluster; undefined starts both. */
  readonly running: { readonly kcpKubeconfig: string; readonly infraKubeconfig: string } | undefined;
  /** JSON output path; undefined means `.cache/bench/boot-<timestamp>.json` under the repository. */
  readonly out: string | undefined;
}

export const BOOT_USAGE = `usage: pnpm bench:boot -- [--runs N] [--tenants N] [--load-runs N] [--crash-loop] [--crash-tenants N]
                        [--crash-clusters N] [--crash-interval-s S] [--crash-timeout-s S] [--otc-delay-ms MS]
                        [--kcp-kubeconfig FILE --infra-kubeconfig FILE] [--out FILE]
  --runs             provider-controller restarts measured, each process start to first reconcile (default 5)
  --tenants          tenant workspaces with one Ready cluster each during those restarts (default 1)
  --load-runs        runs of each program's module-load probe, node <main> --help (default 5)
  --crash-loop       then order --crash-clusters clusters in --crash-tenants tenants while the controller is
                     SIGKILLed every --crash-interval-s seconds and restarted at once, until all are Ready
                     or --crash-timeout-s seconds after the first order (defaults 32, 8, 3, 300)
  --otc-delay-ms     how long the simulated cloud keeps a resource in each transitional state (default 200)
  --kcp-kubeconfig, --infra-kubeconfig
                     a running kcp (admin kubeconfig of one testenv started, for its static users) and
                     infrastructure cluster instead of starting both; what the run makes there is named
                     after the run and its workspaces are deleted at the end
  --out              JSON result path (default .cache/bench/boot-<timestamp>.json)
A smoke run: --runs 2 --load-runs 2.`;

const DEFAULTS = { runs: 5, tenants: 1, "load-runs": 5, "crash-tenants": 8, "crash-clusters": 32, "crash-interval-s": 3, "crash-timeout-s": 300, "otc-delay-ms": OTC_DELAY_MS } as const;

export function parseBootFlags(argv: readonly string[]): BootBenchFlags {
  const crashLoop = argv.includes("--crash-loop");
  const values = flagValues(
    argv.filter((arg) => arg !== "--crash-loop"),
    [...Object.keys(DEFAULTS), "kcp-kubeconfig", "infra-kubeconfig", "out"],
    BOOT_USAGE,
  );
  const crashTenants = integerFlag(values, "crash-tenants", DEFAULTS["crash-tenants"], 1);
  const crashClusters = integerFlag(values, "crash-clusters", DEFAULTS["crash-clusters"], 1);
  if (crashClusters < crashTenants) throw new Error(`--crash-clusters (${crashClusters}) must be at least --crash-tenants (${crashTenants})\n${BOOT_USAGE}`);
  const kcpKubeconfig = values.get("kcp-kubeconfig");
  const infraKubeconfig = values.get("infra-kubeconfig");
  if ((kcpKubeconfig === undefined) !== (infraKubeconfig === undefined)) throw new Error(`--kcp-kubeconfig and --infra-kubeconfig go together\n${BOOT_USAGE}`);
  return {
    runs: integerFlag(values, "runs", DEFAULTS.runs, 1),
    tenants: integerFlag(values, "tenants", DEFAULTS.tenants, 1),
    loadRuns: integerFlag(values, "load-runs", DEFAULTS["load-runs"], 1),
    crashLoop,
    crashTenants,
    crashClusters,
    crashIntervalS: integerFlag(values, "crash-interval-s", DEFAULTS["crash-interval-s"], 1),
    crashTimeoutS: integerFlag(values, "crash-timeout-s", DEFAULTS["crash-timeout-s"], 1),
    otcDelayMs: integerFlag(values, "otc-delay-ms", DEFAULTS["otc-delay-ms"], 0),
    running: kcpKubeconfig === undefined || infraKubeconfig === undefined ? undefined : { kcpKubeconfig, infraKubeconfig },
    out: values.get("out"),
  };
}
