/** Command-line flags of `pnpm test:chaos`, read with the benchmarks' rules (bench/flags.ts). */
import { flagValues, integerFlag } from "../bench/flags.js";

export interface ChaosFlags {
  /** Tenant workspaces, each with its own OTC account, all ordering `default/my-cluster`. */
  readonly tenants: number;
  /** Generated KubernetesCluster / ProviderConfig / MachineCapabilities / Secret bundles sent through kcp. */
  readonly fuzz: number;
  /** Seeds the kill intervals, the faults and the generated input: a failing run can be repeated. */
  readonly seed: number;
  /** Seconds each phase may take (all Ready; everything torn down; generated input settled). */
  readonly timeoutS: number;
  /** Seconds between SIGKILLs of the provider-controller: uniformly from min to max. */
  readonly killMinS: number;
  readonly killMaxS: number;
  /** JSON result path; undefined: `.cache/reports/chaos.json` under the repository. */
  readonly out: string | undefined;
}

export const CHAOS_USAGE = `usage: pnpm test:chaos -- [--tenants N] [--fuzz N] [--seed N] [--timeout-s S] [--kill-min-s S] [--kill-max-s S] [--out FILE]
  --tenants     tenant workspaces with identical namespace and cluster names (default 24, at least 4: one per way to tear down)
  --fuzz        generated tenant input bundles sent through kcp (default 10000; 0: none)
  --seed        seed of the kill intervals and the generated input (default 1)
  --timeout-s   seconds each phase may take (default 900)
  --kill-min-s, --kill-max-s
                seconds between SIGKILLs of the provider-controller (default 5 and 20)
  --out         JSON result path (default .cache/reports/chaos.json)
The short variant .ci/run runs: --tenants 20 --fuzz 300.`;

const KNOWN = ["tenants", "fuzz", "seed", "timeout-s", "kill-min-s", "kill-max-s", "out"];

export function parseChaosFlags(argv: readonly string[]): ChaosFlags {
  const values = flagValues(argv, KNOWN, CHAOS_USAGE);
  const flags: ChaosFlags = {
    tenants: integerFlag(values, "tenants", 24, 4),
    fuzz: integerFlag(values, "fuzz", 10_000, 0),
    seed: integerFlag(values, "seed", 1, 0),
    timeoutS: integerFlag(values, "timeout-s", 900, 1),
    killMinS: integerFlag(values, "kill-min-s", 5, 1),
    killMaxS: integerFlag(values, "kill-max-s", 20, 1),
    out: values.get("out"),
  };
  if (flags.killMaxS < flags.killMinS) throw new Error(`--kill-max-s must not be below --kill-min-s\n${CHAOS_USAGE}`);
  return flags;
}
