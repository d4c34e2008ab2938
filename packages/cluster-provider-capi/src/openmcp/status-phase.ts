/**
 * The phase of openMCP's common status (`observedGeneration`, `phase`,
 * `conditions`) of Clusters and provider configs.
 */
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
