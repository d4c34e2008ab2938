/**
 * Terraform's plan, reduced to what the simulator needs: which arguments
 * of forProvider differ from what OTC reports, and whether each can change
 * in place. Only arguments both sides name are compared: an argument left
 * out of forProvider is Optional+Computed (OTC's value stands), and one OTC
 * does not report (a delete option, a local flag) cannot drift. Objects
 * compare by the keys forProvider gives, lists element by element.
 *
 * Upjet refuses every change Terraform would have to replace the resource
 * for ("ForceNew") and reports it in Terraform's words, with the argument's
 * snake_case path.
 */
import type { Parameters } from "./resource.js";

export interface ParameterChange {
  /** Terraform's path of the argument: `root_volume.0.size`. */
  readonly argument: string;
  /** The top-level forProvider field it belongs to: `rootVolume`. */
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
}

/** The changes that would bring OTC's `reported` values to `desired`. */
export function parameterChanges(desired: Parameters, reported: Parameters): ParameterChange[] {
  const changes: ParameterChange[] = [];
  for (const [field, reportedValue] of Object.entries(reported)) {
    const desiredValue = desired[field];
    if (desiredValue === undefined || reportedValue === undefined) continue;
    collect(field, [snakeCase(field)], desiredValue, reportedValue, changes);
  }
  return changes;
}

function collect(field: string, path: string[], desired: unknown, reported: unknown, changes: ParameterChange[]): void {
  if (Array.isArray(desired) && Array.isArray(reported)) {
    if (desired.length !== reported.length) {
      changes.push({ argument: [...path, "#"].join("."), field, from: reported.length, to: desired.length });
      return;
    }
    desired.forEach((item, index) => collect(field, [...path, String(index)], item, reported[index], changes));
    return;
  }
  if (isObject(desired) && isObject(reported)) {
    for (const [key, value] of Object.entries(desired)) {
      if (value === undefined || reported[key] === undefined) continue;
      collect(field, [...path, snakeCase(key)], value, reported[key], changes);
    }
    return;
  }
  if (!sameScalar(desired, reported)) changes.push({ argument: path.join("."), field, from: reported, to: desired });
}

/** Terraform keeps numbers and booleans as strings in its diff; "2" and 2 are one value. */
function sameScalar(a: unknown, b: unknown): boolean {
  if (isObject(a) || isObject(b) || Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  return String(a) === String(b);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `initialNodeCount` → `initial_node_count`, as upjet names a Terraform argument. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Terraform's text for an argument it cannot change in place. */
export function forceNewMessage(change: ParameterChange): string {
  return `cannot change the value of the argument "${change.argument}" from "${text(change.from)}" to "${text(change.to)}"`;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
