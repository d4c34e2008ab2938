/**
 * Command-line flags of the runtime benchmark. Parsed by hand because the
 * benchmark has six numeric/path flags and no other CLI surface; both
 * `--flag value` and `--flag=value` work, and unknown flags fail loudly so a
 * typo never silently runs the default (long) scenario.
 */
export interface BenchFlags {
  readonly tenants: number;
  readonly objects: number;
  readonly flood: number;
  readonly workers: number;
  /** JSON output path; undefined means `.cache/bench/runtime-<timestamp>.json` under the repository. */
  readonly out: string | undefined;
  /** Admin kubeconfig of an already running kcp; undefined starts one. */
  readonly kubeconfig: string | undefined;
}

export const USAGE = `usage: pnpm bench:runtime -- [--tenants N] [--objects N] [--flood N] [--workers N] [--out FILE] [--kubeconfig FILE]
  --tenants     tenant workspaces bound to the export (default 100, at least 2)
  --objects     widgets per tenant created before the controller starts (default 2)
  --flood       widgets one tenant creates at once in the fairness phase (default 5000)
  --workers     controller maxConcurrentReconciles, and the bare client's write concurrency (default 8)
  --out         JSON result path (default .cache/bench/runtime-<ISO timestamp>.json)
  --kubeconfig  admin kubeconfig of a running kcp instead of starting one`;

const NUMERIC = { tenants: 100, objects: 2, flood: 5000, workers: 8 } as const;
type NumericFlag = keyof typeof NUMERIC;

export function parseFlags(argv: readonly string[]): BenchFlags {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    // pnpm forwards the `--` separator of `pnpm bench:runtime -- --tenants 10`.
    if (arg === "--") continue;
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`);
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (!(name in NUMERIC) && name !== "out" && name !== "kubeconfig") throw new Error(`unknown flag --${name}\n${USAGE}`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new Error(`--${name} needs a value\n${USAGE}`);
    values.set(name, value);
  }
  const numeric = (name: NumericFlag, min: number): number => {
    const text = values.get(name);
    if (text === undefined) return NUMERIC[name];
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}, not ${JSON.stringify(text)}`);
    return value;
  };
  return {
    // Two tenants at least: the fairness phase needs a flooding and a quiet one.
    tenants: numeric("tenants", 2),
    objects: numeric("objects", 0),
    flood: numeric("flood", 1),
    workers: numeric("workers", 1),
    out: values.get("out"),
    kubeconfig: values.get("kubeconfig"),
  };
}
