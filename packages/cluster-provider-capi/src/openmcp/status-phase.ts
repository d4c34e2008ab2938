/**
 * The common openMCP status (`observedGeneration`, `phase`, `conditions`)
 * of Clusters and provider configs: the phase rule, condition bookkeeping
 * that never drops a condition, and the comparison that skips writes which
 * would change nothing.
 */
import { setCondition, type Condition, type ConditionUpdate } from "@edgeconnect/runtime";
import { COMMON_PHASE, type CommonPhase } from "./constants.js";

export interface PhaseInput {
  /** Whether the object has a deletionTimestamp. */
  readonly deleting: boolean;
  readonly conditions?: readonly { readonly status: string }[] | undefined;
}

/**
 * `Terminating` while deleting; `Ready` when every condition is True;
 * `Progressing` otherwise. An empty list counts as all True: openMCP
 * requires a Progressing object to carry a non-True condition saying why,
 * which an empty list cannot, and controller-utils' phase helpers (used by
 * the gardener provider) decide the same way. So a caller must have set its
 * conditions before asking.
 */
export function commonPhase({ deleting, conditions }: PhaseInput): CommonPhase {
  if (deleting) return COMMON_PHASE.Terminating;
  return (conditions ?? []).every((c) => c.status === "True") ? COMMON_PHASE.Ready : COMMON_PHASE.Progressing;
}

export interface MergeOptions {
  /** The `metadata.generation` this reconcile acted on; becomes each updated condition's `observedGeneration`. */
  readonly generation: number;
  readonly now: Date;
}

/**
 * `existing` with `updates` applied: an update replaces the condition of
 * its type in place (keeping `lastTransitionTime` while the status stays)
 * or is appended; conditions no update names are kept as they are, with
 * their own `observedGeneration`, because openMCP forbids deleting old
 * conditions. Throws for two updates of one type, since which should win
 * is a bug in the caller, not a choice to make here.
 */
export function mergeConditions(existing: readonly Condition[] | undefined, updates: readonly ConditionUpdate[], { generation, now }: MergeOptions): Condition[] {
  const types = new Set(updates.map((u) => u.type));
  if (types.size !== updates.length) throw new Error(`condition types must be unique, got ${updates.map((u) => u.type).join(", ")}`);
  return updates.reduce<Condition[]>((conditions, update) => setCondition(conditions, update, generation, now), [...(existing ?? [])]);
}

/**
 * Whether writing `next` over `current` would change anything the API
 * server stores: key order and keys whose value is `undefined` (which JSON
 * drops) do not count; list order does, as the server keeps it.
 */
export function statusChanged(current: unknown, next: unknown): boolean {
  return canonicalJson(current) !== canonicalJson(next);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) => (isPlainObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
