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
}

export const PROVIDER_USAGE = `usage: pnpm bench:provider -- [--tenants N] [--timeout-s S] [--out FILE] [--profile[=false] | --no-profile]
  --tenants    tenant workspaces, each with its own OTC credentials and one cluster order (default 100)
  --timeout-s  seconds from the first order until the run stops waiting and counts the Ready clusters (default 900)
  --out        JSON result path (default .cache/reports/bench-provider.json)
  --profile    run the provider-controller with node --cpu-prof and analyse the profile (default on)
A smoke run: --tenants 3 --timeout-s 300.`;

const DEFAULTS = { tenants: 100, "timeout-s": 900 } as const;

export function parseProviderFlags(argv: readonly string[]): ProviderBenchFlags {
  let profile = true;
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === "--profile" || arg === "--profile=true") profile = true;
    else if (arg === "--no-profile" || arg === "--profile=false") profile = false;
    else rest.push(arg);
  }
  const values = flagValues(rest, [...Object.keys(DEFAULTS), "out"], PROVIDER_USAGE);
  return {
    tenants: integerFlag(values, "tenants", DEFAULTS.tenants, 1),
    timeoutS: integerFlag(values, "timeout-s", DEFAULTS["timeout-s"], 1),
    out: values.get("out"),
    profile,
  };
}
