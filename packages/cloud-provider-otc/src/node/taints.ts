/**
 * Taints the node controllers own: the uninitialized taint they remove, the
 * shutdown taint they add and remove. Taints are matched by key and effect,
 * as k8s.io/api's `MatchTaint` does; everyone else's taints are kept in
 * place and in order.
 */
import { TAINT_SHUTDOWN, type Node, type Taint } from "../kube/objects.js";

/** What the lifecycle controller puts on nodes whose instance is shut down. */
export const SHUTDOWN_TAINT: Taint = { key: TAINT_SHUTDOWN, effect: "NoSchedule" };

export function hasTaint(node: Node, key: string, effect?: Taint["effect"]): boolean {
  return (node.spec?.taints ?? []).some((taint) => matches(taint, key, effect));
}

/** `node` with `taint` added, or undefined when it has it already. */
export function withTaint(node: Node, taint: Taint): Node | undefined {
  if (hasTaint(node, taint.key, taint.effect)) return undefined;
  return { ...node, spec: { ...node.spec, taints: [...(node.spec?.taints ?? []), taint] } };
}

/** `node` without the taints of `key` (and `effect`, if given), or undefined when it has none. */
export function withoutTaint(node: Node, key: string, effect?: Taint["effect"]): Node | undefined {
  if (!hasTaint(node, key, effect)) return undefined;
  return { ...node, spec: { ...node.spec, taints: (node.spec?.taints ?? []).filter((taint) => !matches(taint, key, effect)) } };
}

function matches(taint: Taint, key: string, effect: Taint["effect"] | undefined): boolean {
  return taint.key === key && (effect === undefined || taint.effect === effect);
}
