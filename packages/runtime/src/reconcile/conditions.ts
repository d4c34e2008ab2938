/**
 * metav1.Condition bookkeeping: status conditions that tell users what is
 * going on. Pure functions over plain arrays; controllers write their
 * `ownedConditions` with `applyStatus`.
 *
 * Rules kept here: one condition per type; `observedGeneration` is the
 * generation the controller acted on; `lastTransitionTime` changes only when
 * the status changes, so a reconcile that confirms the same state does not
 * rewrite it (and does not wake every watcher).
 */

export type ConditionStatus = "True" | "False" | "Unknown";

export interface Condition {
  type: string;
  status: ConditionStatus;
  /** CamelCase, machine-readable. */
  reason: string;
  /** For people: what is wrong and what to change. */
  message: string;
  observedGeneration?: number;
  /** RFC 3339 with seconds precision, as the API server stores it. */
  lastTransitionTime: string;
}

export interface ConditionUpdate {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** RFC 3339 without fractional seconds: metav1.Time's wire form. */
export function conditionTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * Returns the conditions with `update` set for `generation`. Other conditions
 * keep their place; a new type is appended.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  generation: number | undefined,
  now: Date = new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === update.type);
  const next = nextCondition(index === -1 ? undefined : list[index], update, generation, now);
  if (index === -1) list.push(next);
  else list[index] = next;
  return list;
}

/**
 * The conditions a controller owns, for its status apply: one per update,
 * in the order given, each keeping the `lastTransitionTime` of the observed
 * condition of its type while the status stays. Observed conditions of other
 * types are left out on purpose: other managers own them, and claiming them
 * would make this controller's later applies fight theirs. Throws for two
 * updates of one type, which the API server would refuse as a duplicate key.
 */
export function ownedConditions(
  observed: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  generation: number | undefined,
  now: Date = new Date(),
): Condition[] {
  const types = new Set(updates.map((u) => u.type));
  if (types.size !== updates.length) throw new Error(`condition types must be unique, got ${updates.map((u) => u.type).join(", ")}`);
  return updates.map((update) => nextCondition(findCondition(observed, update.type), update, generation, now));
}

function nextCondition(existing: Condition | undefined, update: ConditionUpdate, generation: number | undefined, now: Date): Condition {
  return {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime: existing !== undefined && existing.status === update.status ? existing.lastTransitionTime : conditionTime(now),
  };
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether a condition of `type` is True for exactly `generation`. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string, generation?: number): boolean {
  const condition = findCondition(conditions, type);
  if (condition?.status !== "True") return false;
  return generation === undefined || condition.observedGeneration === generation;
}
