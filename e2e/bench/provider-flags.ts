/**
 * Command-line flags of the provider benchmark; read with the runtime
 * benchmark's rules (flags.ts): `--flag value` or `--flag=value`, unknown
 * flags fail. `--profile` is a switch as well: `--profile`,
 * `--profile=false` or `--no-profile`.
 */
import { flagValues, integerFlag } from "./flags.js";

export interface ProviderBenchFlags {
  /** Tenant workspaces, each with its own OTC account, each ordering one cluster. */
  readonly tenants: number;
  /** Seconds from the first order until the run stops waiting for Ready. */
  readonly timeoutS: number;
  /** JSON output path; undefined means `.cache/reports/bench-provider.json` under the repository. */
  readonly out: string | undefined;
  /** Run the provider-controller with `node --cpu-prof`. */
  readonly profile: boolean;
  /** Real kcp (tenant workspaces, one cluster each) or the kcp load simulator (seeded tenants, 1-3 clusters each, then a flood). */
  readonly kcp: "real" | "simulator";
  /** Simulator only: clusters the noisy tenant orders at once after the initial sync (0: no flood phase). */
  readonly flood: number;
  /** Simulator only: the controller's --max-concurrent-reconciles; 0: its default. */
  readonly workers: number;
}

export const PROVIDER_USAGE = `usage: pnpm bench:provider -- [--kcp real|simulator] [--tenants N] [--timeout-s S] [--flood N] [--workers N] [--out FILE] [--profile[=false] | --no-profile]
  --kcp        real: kcp with tenant workspaces, one cluster each, until Ready (default);
               simulator: the kcp load simulator with seeded tenants of 1-3 clusters each, until each is reconciled once, then a flood
  --tenants    tenants, each with its own OTC credentials (default 100)
  --timeout-s  seconds the run waits for each phase (default 900)
  --flood      simulator: clusters one tenant orders at once while a quiet tenant orders one (default 500; 0: no flood phase)
  --workers    simulator: the controller's --max-concurrent-reconciles (default 0: the controller's default)
  --out        JSON result path (default .cache/reports/bench-provider.json, bench-provider-simulator.json with --kcp simulator)
  --profile    run the provider-controller with node --cpu-prof and analyse the profile (default on)
A smoke run: --tenants 3 --timeout-s 300.`;

const DEFAULTS = { tenants: 100, "timeout-s": 900, flood: 500, workers: 0 } as const;

export function parseProviderFlags(argv: readonly string[]): ProviderBenchFlags {
  let profile = true;
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === "--profile" || arg === "--profile=true") profile = true;
    else if (arg === "--no-profile" || arg === "--profile=false") profile = false;
    else rest.push(arg);
  }
  const values = flagValues(rest, [...Object.keys(DEFAULTS), "out", "kcp"], PROVIDER_USAGE);
  const kcp = values.get("kcp") ?? "real";
  if (kcp !== "real" && kcp !== "simulator") throw new Error(`--kcp must be real or simulator, not ${JSON.stringify(kcp)}\n${PROVIDER_USAGE}`);
  return {
    tenants: integerFlag(values, "tenants", DEFAULTS.tenants, 1),
    timeoutS: integerFlag(values, "timeout-s", DEFAULTS["timeout-s"], 1),
    out: values.get("out"),
    profile,
    kcp,
    flood: integerFlag(values, "flood", DEFAULTS.flood, 0),
    workers: integerFlag(values, "workers", DEFAULTS.workers, 0),
  };
}
