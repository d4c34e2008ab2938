/**
 * Prometheus' text exposition format (0.0.4), parsed into samples: the
 * console reads a handful of series from the provider-controller's
 * /metrics, which does not justify a client library. Comments, HELP and
 * TYPE lines are skipped; a line that does not parse is skipped too (one
 * odd series must not hide the rest), and counted.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface ParsedMetrics {
  readonly samples: readonly Sample[];
  readonly skippedLines: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parsePrometheusText(text: string): ParsedMetrics {
  const samples: Sample[] = [];
  let skippedLines = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const sample = parseLine(line);
    if (sample === undefined) skippedLines += 1;
    else samples.push(sample);
  }
  return { samples, skippedLines };
}

function parseLine(line: string): Sample | undefined {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    const parsed = parseLabels(rest.slice(1), labels);
    if (parsed === undefined) return undefined;
    rest = parsed;
  }
  // The value, then an optional timestamp the console has no use for.
  const [valueText] = rest.trim().split(/\s+/);
  const value = parseValue(valueText ?? "");
  return value === undefined ? undefined : { name, labels, value };
}

/** Reads `a="x",b="y"}` into `labels`; returns what follows the `}`. */
function parseLabels(text: string, labels: Record<string, string>): string | undefined {
  let rest = text;
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith("}")) return rest.slice(1);
    const labelName = LABEL_NAME.exec(rest)?.[0];
    if (labelName === undefined) return undefined;
    rest = rest.slice(labelName.length).trimStart();
    if (!rest.startsWith('="')) return undefined;
    rest = rest.slice(2);
    let value = "";
    let closed = false;
    for (let i = 0; i < rest.length; i++) {
      const char = rest[i];
      if (char === "\\") {
        const next = rest[i + 1];
        value += next === "n" ? "\n" : (next ?? "");
        i += 1;
      } else if (char === '"') {
        rest = rest.slice(i + 1);
        closed = true;
        break;
      } else {
        value += char;
      }
    }
    if (!closed) return undefined;
    labels[labelName] = value;
    rest = rest.trimStart();
    if (rest.startsWith(",")) rest = rest.slice(1);
  }
}

function parseValue(text: string): number | undefined {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** The sum of every sample named `name` whose labels include `match`. */
export function sumOf(samples: readonly Sample[], name: string, match: Readonly<Record<string, string>> = {}): number {
  let sum = 0;
  for (const sample of samples) {
    if (sample.name !== name) continue;
    if (Object.entries(match).every(([key, value]) => sample.labels[key] === value)) sum += sample.value;
  }
  return sum;
}

/** Sums of `name` grouped by the value of label `by` (a sample without it counts under ""). */
export function sumBy(samples: readonly Sample[], name: string, by: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const sample of samples) {
    if (sample.name !== name) continue;
    const key = sample.labels[by] ?? "";
    sums.set(key, (sums.get(key) ?? 0) + sample.value);
  }
  return sums;
}
