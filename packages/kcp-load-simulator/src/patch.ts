/**
 * The patch types a controller sends, applied to plain JSON objects:
 * JSON patch (RFC 6902: add, remove, replace, test, as client-go sends for
 * guarded finalizer changes), merge patch (RFC 7386) and a subset of
 * server-side apply. None of them mutates its input.
 *
 * Server-side apply, simplified: the applied object is merged into the live
 * one (maps merge key by key, lists are replaced whole, except lists of maps
 * with a `type` key, such as `conditions`, which merge by `type` like a
 * `x-kubernetes-list-map-keys: [type]` list). What a field manager applied
 * before and leaves out now is removed, tracked one level below the applied
 * root (e.g. `status.phase`, `status.conditions[type=Ready]`), which is
 * enough for a controller that applies its whole status each time; deeper
 * ownership and conflicts between managers are not modelled (a forced apply,
 * as the controller sends, never conflicts on kube-apiserver either).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class PatchError extends Error {
  override readonly name = "PatchError";
  constructor(
    message: string,
    /** 422 for a patch that does not apply (a failed test, a missing path), 400 for a malformed one. */
    readonly status: 400 | 422,
  ) {
    super(message);
  }
}

export const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export function clone<T>(value: T): T {
  return structuredClone(value);
}

function decodePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, 400);
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: Json, parts: string[]): { parent: JsonObject | Json[]; key: string } {
  let node: Json = doc;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(node) ? node[Number(part)] : isObject(node) ? node[part] : undefined;
    if (next === undefined) throw new PatchError(`path ${parts.join("/")} does not exist`, 422);
    node = next;
  }
  if (!Array.isArray(node) && !isObject(node)) throw new PatchError(`path ${parts.join("/")} does not name a container`, 422);
  return { parent: node, key: parts[parts.length - 1] ?? "" };
}

function valueAt(doc: Json, parts: string[]): Json | undefined {
  let node: Json | undefined = doc;
  for (const part of parts) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else return undefined;
  }
  return node;
}

const equal = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

/** RFC 6902 without move and copy (no controller of ours sends them). */
export function jsonPatch(target: JsonObject, ops: unknown): JsonObject {
  if (!Array.isArray(ops)) throw new PatchError("a JSON patch is a list of operations", 400);
  const doc = clone(target);
  for (const raw of ops as unknown[]) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") throw new PatchError("malformed JSON patch operation", 400);
    const parts = decodePointer(raw.path);
    switch (raw.op) {
      case "test":
        if (!equal(valueAt(doc, parts), raw.value)) throw new PatchError(`the test of ${raw.path} failed`, 422);
        break;
      case "add":
      case "replace": {
        if (parts.length === 0) throw new PatchError("cannot replace the whole object", 422);
        const { parent, key } = parentOf(doc, parts);
        const value = clone(raw.value ?? null);
        if (Array.isArray(parent)) {
          const index = key === "-" ? parent.length : Number(key);
          if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new PatchError(`index ${key} out of range`, 422);
          if (raw.op === "add") parent.splice(index, 0, value);
          else if (index < parent.length) parent[index] = value;
          else throw new PatchError(`index ${key} out of range`, 422);
        } else {
          if (raw.op === "replace" && !(key in parent)) throw new PatchError(`path ${raw.path} does not exist`, 422);
          parent[key] = value;
        }
        break;
      }
      case "remove": {
        const { parent, key } = parentOf(doc, parts);
        if (Array.isArray(parent)) {
          const index = Number(key);
          if (!(index >= 0 && index < parent.length)) throw new PatchError(`index ${key} out of range`, 422);
          parent.splice(index, 1);
        } else {
          if (!(key in parent)) throw new PatchError(`path ${raw.path} does not exist`, 422);
          delete parent[key];
        }
        break;
      }
      default:
        throw new PatchError(`JSON patch operation ${raw.op} is not supported by the simulator`, 400);
    }
  }
  return doc;
}

/** RFC 7386. */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

const keyedByType = (list: Json[]): boolean => list.length > 0 && list.every((item) => isObject(item) && typeof item.type === "string");

/** Apply's merge of `applied` into `live`: maps by key, `type`-keyed lists by type, other lists replaced. */
export function applyMerge(live: Json | undefined, applied: Json): Json {
  if (isObject(applied)) {
    const out: JsonObject = isObject(live) ? clone(live) : {};
    for (const [key, value] of Object.entries(applied)) out[key] = applyMerge(out[key], value);
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live) && keyedByType(applied) && keyedByType(live)) {
    const merged = live.map((item) => clone(item));
    for (const item of applied as JsonObject[]) {
      const at = merged.findIndex((m) => (m as JsonObject).type === item.type);
      if (at === -1) merged.push(clone(item));
      else merged[at] = applyMerge(merged[at], item);
    }
    return merged;
  }
  return clone(applied);
}

/** The fields one level below a root that an apply sets: map keys, and `key[type=T]` for type-keyed list entries. */
export function appliedFields(applied: Json | undefined): Set<string> {
  const fields = new Set<string>();
  if (!isObject(applied)) return fields;
  for (const [key, value] of Object.entries(applied)) {
    if (Array.isArray(value) && keyedByType(value)) for (const item of value as JsonObject[]) fields.add(`${key}[type=${JSON.stringify(item.type)}]`);
    else fields.add(key);
  }
  return fields;
}

/** Removes from `root` what `before` names and `now` does not (a manager's fields it no longer applies). */
export function dropReleased(root: JsonObject, before: ReadonlySet<string>, now: ReadonlySet<string>): void {
  for (const field of before) {
    if (now.has(field)) continue;
    const entry = /^(.*)\[type=(.*)\]$/.exec(field);
    if (entry === null) {
      delete root[field];
      continue;
    }
    const [, key = "", typeText = "null"] = entry;
    const type = JSON.parse(typeText) as Json;
    const list = root[key];
    if (Array.isArray(list)) {
      const kept = list.filter((item) => !(isObject(item) && item.type === type));
      if (kept.length === 0) delete root[key];
      else root[key] = kept;
    }
  }
}
