/**
 * The JSON merge patch (RFC 7386) that turns `before` into `after`: what
 * changed and nothing else, so a write made of it leaves alone every field
 * the writer did not touch, including fields its copy never knew (a newer
 * server's, or ones a cache dropped). Objects are compared key by key, a
 * removed key is `null`; anything else that differs (arrays included, which
 * a merge patch replaces whole) is sent as `after` has it. Undefined when
 * nothing changed.
 *
 * A merge patch cannot set a value to null, only remove it: Kubernetes
 * objects never need a null value.
 */
export function jsonMergePatch(before: unknown, after: unknown): Record<string, unknown> | undefined {
  if (!isObject(before) || !isObject(after)) throw new TypeError("a merge patch is made between two objects");
  const patch = diff(before, after);
  return Object.keys(patch).length === 0 ? undefined : patch;
}

function diff(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) {
    if (!(key in after) || after[key] === undefined) {
      if (before[key] !== undefined) patch[key] = null;
    }
  }
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before[key];
    if (isObject(old) && isObject(value)) {
      const inner = diff(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (!sameJson(old, value)) {
      patch[key] = value;
    }
  }
  return patch;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
}
