/**
 * The conditions a controller applies to an openMCP-style status. openMCP
 * forbids dropping a condition, and with server-side apply a condition this
 * manager applied before and leaves out of the next apply is removed; so
 * every apply carries all of the controller's own types: this reconcile's
 * updates, and the earlier state of the types it did not touch this time.
 * Other managers' conditions are never claimed (the lists merge by type).
 */
import { ownedConditions, type Condition, type ConditionUpdate } from "@edgeconnect/runtime";

export function controllerConditions(
  previous: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  ownTypes: readonly string[],
  generation: number | undefined,
  now: Date = new Date(),
): Condition[] {
  const updated = new Set(updates.map((u) => u.type));
  // A condition this reconcile did not touch goes back as it was, with the generation it was set for.
  const carried = (previous ?? []).filter((c) => ownTypes.includes(c.type) && !updated.has(c.type)).map((c) => ({ ...c }));
  return [...ownedConditions(previous, updates, generation, now), ...carried];
}

/** `previous` with `conditions` in place of the same types: the whole list as readers will see it, for the phase. */
export function allConditions(previous: readonly Condition[] | undefined, conditions: readonly Condition[]): Condition[] {
  const types = new Set(conditions.map((c) => c.type));
  return [...(previous ?? []).filter((c) => !types.has(c.type)), ...conditions];
}
