/**
 * What every binary's own flags share once `parseRuntimeFlags` has taken
 * the runtime's: `--name=value` / `--name value` pairs from a known set
 * (repeatable ones collect every value), booleans, `--help`, Go-style
 * durations and positive integers, and one error type whose message names
 * the flag.
 */

/** The command line cannot be used; the message says which flag and why. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

export interface CommandLine {
  readonly help: boolean;
  /** The last value given for `name` (without the leading dashes). */
  value(name: string): string | undefined;
  /** Every value given for `name`, in order. */
  values(name: string): readonly string[];
  /**
   * `{ [key]: value }` when `name` was given a non-empty value, else `{}`:
   * spread into a binary's flags so that an optional field is absent rather
   * than "", and `--kubeconfig=` means the default, not a file named "".
   */
  optional<K extends string>(key: K, name: string): Partial<Record<K, string>>;
  /** The last setting of the boolean flag `name`, undefined when it was not given. */
  flag(name: string): boolean | undefined;
}

/** The spellings Go's strconv.ParseBool accepts, which is what boolean flags take in Go. */
const BOOLEANS = new Map<string, boolean>([
  ...["1", "t", "T", "true", "TRUE", "True"].map((text) => [text, true] as const),
  ...["0", "f", "F", "false", "FALSE", "False"].map((text) => [text, false] as const),
]);

/** `--flag=<text>` of a boolean flag, as Go reads it; a FlagError naming the flag for anything else. */
export function parseBoolean(flag: string, text: string): boolean {
  const value = BOOLEANS.get(text);
  if (value === undefined) throw new FlagError(`${flag}: invalid boolean ${JSON.stringify(text)}, use true or false`);
  return value;
}

/**
 * Parses `args` (what `parseRuntimeFlags` left) against the value and
 * boolean flags a binary knows; anything else is a FlagError, so a typo
 * cannot silently fall back to a default. A boolean flag takes no separate
 * value, as in Go: `--flag` or `--flag=false`.
 */
export function parseCommandLine(args: readonly string[], valueFlags: ReadonlySet<string>, booleanFlags: ReadonlySet<string> = new Set()): CommandLine {
  const values = new Map<string, string[]>();
  const booleans = new Map<string, boolean>();
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1];
    if (name !== undefined && booleanFlags.has(name)) {
      booleans.set(name, match?.[2] === undefined ? true : parseBoolean(`--${name}`, match[2]));
      continue;
    }
    if (name === undefined || !valueFlags.has(name)) throw new FlagError(`unknown argument ${JSON.stringify(arg)}; see --help`);
    const value = match?.[2] ?? args[++i];
    if (value === undefined) throw new FlagError(`flag --${name} needs a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const value = (name: string): string | undefined => values.get(name)?.at(-1);
  return {
    help,
    value,
    values: (name) => values.get(name) ?? [],
    optional: <K extends string>(key: K, name: string) => {
      const given = value(name);
      return (given === undefined || given === "" ? {} : { [key]: given }) as Partial<Record<K, string>>;
    },
    flag: (name) => booleans.get(name),
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration for the units a controller period uses: `300ms`, `5s`, `1m30s`, `2h`. */
export function parseDuration(flag: string, text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== text) {
    throw new FlagError(`${flag}: ${JSON.stringify(text)} is not a duration such as 500ms, 5s, 1m30s`);
  }
  const ms = parts.reduce((sum, part) => sum + Number(part[1]) * (UNIT_MS[part[2] as string] ?? 0), 0);
  if (ms <= 0) throw new FlagError(`${flag} must be positive`);
  return ms;
}

export function positiveInteger(flag: string, text: string): number {
  if (!/^[1-9][0-9]*$/.test(text)) throw new FlagError(`${flag} must be a positive integer, not ${JSON.stringify(text)}`);
  return Number(text);
}
