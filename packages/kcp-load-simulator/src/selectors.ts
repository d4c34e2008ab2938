/**
 * Label and field selectors as the API server parses them, the subset that
 * list and watch requests use: `k=v`, `k==v`, `k!=v`, `k`, `!k`,
 * `k in (a,b)`, `k notin (a,b)` joined by commas; field selectors on
 * `metadata.name` and `metadata.namespace` with `=`, `==` and `!=`. A
 * selector outside the subset is refused (400), never silently widened.
 */

export type Labels = Readonly<Record<string, string>> | undefined;

export class SelectorError extends Error {
  override readonly name = "SelectorError";
}

type Requirement = (labels: Labels) => boolean;

/** Splits on commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== "");
}

function requirement(term: string): Requirement {
  const set = /^([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set !== null) {
    const [, key = "", op, list = ""] = set;
    const values = new Set(list.split(",").map((v) => v.trim()));
    return op === "in" ? (l) => l?.[key] !== undefined && values.has(l[key]) : (l) => l?.[key] === undefined || !values.has(l[key]);
  }
  const cmp = /^([^\s!=()]+)\s*(!=|==|=)\s*([^\s!=()]*)$/.exec(term);
  if (cmp !== null) {
    const [, key = "", op, value = ""] = cmp;
    return op === "!=" ? (l) => l?.[key] !== value : (l) => l?.[key] === value;
  }
  const exists = /^(!?)([^\s!=()]+)$/.exec(term);
  if (exists !== null) {
    const [, not, key = ""] = exists;
    return not === "!" ? (l) => l?.[key] === undefined : (l) => l?.[key] !== undefined;
  }
  throw new SelectorError(`unable to parse requirement: ${JSON.stringify(term)}`);
}

/** A label selector's test; undefined or "" selects everything. */
export function labelSelector(text: string | undefined): (labels: Labels) => boolean {
  if (text === undefined || text.trim() === "") return () => true;
  const requirements = terms(text).map(requirement);
  return (labels) => requirements.every((r) => r(labels));
}

export interface FieldSubject {
  readonly name: string;
  readonly namespace: string;
}

/** A field selector's test over the fields every kind supports. */
export function fieldSelector(text: string | undefined): (subject: FieldSubject) => boolean {
  if (text === undefined || text.trim() === "") return () => true;
  const tests = terms(text).map((term): ((s: FieldSubject) => boolean) => {
    const m = /^(metadata\.name|metadata\.namespace)\s*(!=|==|=)\s*(.*)$/.exec(term);
    if (m === null) throw new SelectorError(`field selector ${JSON.stringify(term)}: only metadata.name and metadata.namespace are supported`);
    const [, field, op, value = ""] = m;
    const get = field === "metadata.name" ? (s: FieldSubject) => s.name : (s: FieldSubject) => s.namespace;
    return op === "!=" ? (s) => get(s) !== value : (s) => get(s) === value;
  });
  return (subject) => tests.every((t) => t(subject));
}
