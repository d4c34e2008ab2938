/**
 * Failures that redaction and the code around it (the logger, Events)
 * contained instead of throwing: what threw is counted by where it happened,
 * never recorded, since what made it throw may be the very value to hide.
 * The runtime exports the counts as a metric.
 */

export const CONTAINED_FAILURE_STAGES = ["register", "scrub", "scrub-deep", "log", "event"] as const;
export type ContainedFailureStage = (typeof CONTAINED_FAILURE_STAGES)[number];

// On globalThis, for the reason the registry is (secret-registry.ts).
const FAILURES_KEY = Symbol.for("@edgeconnect/redaction.failures");

function counts(): Map<ContainedFailureStage, number> {
  const holder = globalThis as { [FAILURES_KEY]?: Map<ContainedFailureStage, number> };
  holder[FAILURES_KEY] ??= new Map();
  return holder[FAILURES_KEY];
}

/** Counts one contained failure at `stage`. */
export function noteContainedFailure(stage: ContainedFailureStage): void {
  const all = counts();
  all.set(stage, (all.get(stage) ?? 0) + 1);
}

/** Contained failures so far, by stage. */
export function containedFailures(): ReadonlyMap<ContainedFailureStage, number> {
  return new Map(counts());
}
