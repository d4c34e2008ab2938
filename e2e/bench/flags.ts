/**
 * Command-line flags of the runtime benchmark, and the argv reading every
 * benchmark shares. Parsed by hand because a benchmark has a few
 * numeric/path flags and no other CLI surface; both
 * `--flag value` and `--flag=value` work, and unknown flags fail loudly so a
 * typo never silently runs the default (long) scenario.
 */
export interface BenchFlags {
  readonly tenants: number;
  readonly objects: number;
  readonly flood: number;
  readonly workers: number;
  /** Tenants whose widgets fail slowly in the isolation phase. */
  readonly noisyTenants: number;
  /** Widgets of each noisy tenant in the isolation phase. */
  readonly noisy: number;
  /** How long each reconcile of a noisy widget takes before it fails. */
  readonly noisyMs: number;
  /** The quiet tenant's pace: a create during the flood, an update in the isolation phase, one every this many ms. */
  readonly quietIntervalMs: number;
  /** The quiet tenant's updates per isolation measurement (idle, then noisy). */
  readonly isolationUpdates: number;
  /** The controller's per-tenant cap; undefined keeps the Controller's default. */
  readonly maxInFlightPerTenant: number | undefined;
  /** JSON output path; undefined means `.cache/bench/runtime-<timestamp>.json` under the repository. */
  readonly out: string | undefined;
  /** Admin kubeconfig of an already running kcp; undefined starts one. */
  readonly kubeconfig: string | undefined;
  /** A peer controller to run after ours on the same kcp, compared figure by figure; undefined runs none. */
  readonly peer: Peer | undefined;
  /** With a peer: rounds of both, alternating which goes first; each figure is the median over the rounds. */
  readonly rounds: number;
}

/** `go`: scripts/binaries/widget-controller-go, on kcp's multicluster-provider. */
export type Peer = "go";
const PEERS: readonly Peer[] = ["go"];

export const USAGE = `usage: pnpm bench:runtime -- [--tenants N] [--objects N] [--flood N] [--workers N] [--noisy-tenants N] [--noisy N]
                            [--noisy-ms MS] [--quiet-interval-ms MS] [--isolation-updates N] [--max-in-flight-per-tenant N]
                            [--out FILE] [--kubeconfig FILE] [--peer go [--rounds N]]
  --tenants     tenant workspaces bound to the export (default 100, at least 2 and more than --noisy-tenants)
  --objects     widgets per tenant created before the controller starts (default 2)
  --flood       widgets one tenant creates at once in the fairness phase (default 5000)
  --workers     controller maxConcurrentReconciles, and the bare client's write concurrency (default 8)
  --noisy-tenants
                tenants that are noisy at once in the isolation phase (default 3)
  --noisy       widgets of each noisy tenant in the isolation phase, each failing slowly (default 1000)
  --noisy-ms    how long each noisy reconcile takes before it fails (default 200)
  --quiet-interval-ms
                the quiet tenant's pace: one create every MS during the flood, one update every MS in the
                isolation phase (default 200)
  --isolation-updates
                the quiet tenant's updates per isolation measurement, idle and then noisy (default 100: 20 s each)
  --max-in-flight-per-tenant
                the controller's cap on one tenant's reconciles in flight (default: the Controller's)
  --out         JSON result path (default .cache/bench/runtime-<ISO timestamp>.json)
  --kubeconfig  admin kubeconfig of a running kcp instead of starting one
  --peer go     also run the Go peer (multicluster-provider + controller-runtime) through the same phases
                after ours, from the same starting state, and compare each figure
  --rounds      with --peer: rounds of both controllers, ours first in odd rounds and the peer first in even
                ones; each figure is the median over the rounds (default 1)`;

const NUMERIC = {
  tenants: 100,
  objects: 2,
  flood: 5000,
  workers: 8,
  "noisy-tenants": 3,
  noisy: 1000,
  "noisy-ms": 200,
  "quiet-interval-ms": 200,
  "isolation-updates": 100,
  rounds: 1,
} as const;
type NumericFlag = keyof typeof NUMERIC;

export function parseFlags(argv: readonly string[]): BenchFlags {
  const values = flagValues(argv, [...Object.keys(NUMERIC), "max-in-flight-per-tenant", "out", "kubeconfig", "peer"], USAGE);
  const numeric = (name: NumericFlag, min: number): number => integerFlag(values, name, NUMERIC[name], min);
  const noisyTenants = numeric("noisy-tenants", 1);
  const peer = values.get("peer");
  if (peer !== undefined && !PEERS.includes(peer as Peer)) throw new Error(`--peer must be one of ${PEERS.join(", ")}, not ${JSON.stringify(peer)}\n${USAGE}`);
  const rounds = numeric("rounds", 1);
  if (rounds > 1 && peer === undefined) throw new Error(`--rounds alternates ours with a peer: give --peer too\n${USAGE}`);
  return {
    // The fairness and isolation phases need busy tenants and a quiet one besides.
    tenants: numeric("tenants", Math.max(2, noisyTenants + 1)),
    objects: numeric("objects", 0),
    flood: numeric("flood", 1),
    workers: numeric("workers", 1),
    noisyTenants,
    noisy: numeric("noisy", 1),
    noisyMs: numeric("noisy-ms", 0),
    quietIntervalMs: numeric("quiet-interval-ms", 1),
    isolationUpdates: numeric("isolation-updates", 1),
    maxInFlightPerTenant: values.has("max-in-flight-per-tenant") ? integerFlag(values, "max-in-flight-per-tenant", 1, 1) : undefined,
    out: values.get("out"),
    kubeconfig: values.get("kubeconfig"),
    peer: peer as Peer | undefined,
    rounds,
  };
}

/**
 * The benchmarks' shared argv reading: `--flag value` and `--flag=value`
 * pairs by flag name (the last one wins); a flag outside `known`, a bare
 * argument or a missing value fails with `usage`.
 */
export function flagValues(argv: readonly string[], known: readonly string[], usage: string): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    // pnpm forwards the `--` separator of e.g. `pnpm bench:runtime -- --tenants 10`.
    if (arg === "--") continue;
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(arg)}\n${usage}`);
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (!known.includes(name)) throw new Error(`unknown flag --${name}\n${usage}`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new Error(`--${name} needs a value\n${usage}`);
    values.set(name, value);
  }
  return values;
}

/** The integer value of `--name`, `fallback` when absent; fails below `min`. */
export function integerFlag(values: ReadonlyMap<string, string>, name: string, fallback: number, min: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}, not ${JSON.stringify(text)}`);
  return value;
}
