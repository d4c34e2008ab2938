/**
 * Command-line flags of the cloud controller manager benchmark; read with
 * the runtime benchmark's rules (flags.ts): `--flag value` or `--flag=value`,
 * unknown flags fail.
 */
import { flagValues, integerFlag } from "./flags.js";

export interface CcmBenchFlags {
  readonly services: number;
  readonly nodes: number;
  /** The service controller's concurrentServiceSyncs. */
  readonly syncs: number;
  /** The simulator's PENDING_* spells of LBs and EIPs. */
  readonly transitionMs: number;
  /** The service controller's resync period, and the steady-state window. */
  readonly resyncMs: number;
  /** JSON output path; undefined means `.cache/bench/ccm-<timestamp>.json` under the repository. */
  readonly out: string | undefined;
}

export const CCM_USAGE = `usage: pnpm bench:ccm -- [--services N] [--nodes N] [--syncs N] [--transition-ms MS] [--resync-ms MS] [--out FILE]
  --services       LoadBalancer Services of the first burst, 2 ports each (default 100); the fault burst adds a fifth of that
  --nodes          Nodes before the node-churn phase adds one (default 20)
  --syncs          the service controller's concurrentServiceSyncs (default 1, as the product's --concurrent-service-syncs)
  --transition-ms  how long the simulator keeps LBs/EIPs PENDING_* (default 200; real OTC is slower, seconds)
  --resync-ms      the controller's resync period and the steady-state window (default 10000; the product's is 10 minutes)
  --out            JSON result path (default .cache/bench/ccm-<ISO timestamp>.json)
A smoke run: --services 10 --nodes 3 --transition-ms 0 (about 30 s).`;

const DEFAULTS = { services: 100, nodes: 20, syncs: 1, "transition-ms": 200, "resync-ms": 10_000 } as const;

export function parseCcmFlags(argv: readonly string[]): CcmBenchFlags {
  const values = flagValues(argv, [...Object.keys(DEFAULTS), "out"], CCM_USAGE);
  const numeric = (name: keyof typeof DEFAULTS, min: number): number => integerFlag(values, name, DEFAULTS[name], min);
  return {
    services: numeric("services", 1),
    nodes: numeric("nodes", 1),
    syncs: numeric("syncs", 1),
    transitionMs: numeric("transition-ms", 0),
    // Shorter would let resyncs of the first Services run into the burst they belong to.
    resyncMs: numeric("resync-ms", 1_000),
    out: values.get("out"),
  };
}
