/**
 * The conditions an upjet MR carries, spelled as crossplane-runtime and
 * upjet spell them (reference §2.1), and how one reconcile's findings become
 * them. Pure: the reconciler observes, this module decides.
 *
 * | type               | True                 | False                                          |
 * |--------------------|----------------------|------------------------------------------------|
 * | Ready              | Available            | Creating, Deleting, Unavailable                 |
 * | Synced             | ReconcileSuccess     | ReconcileError (message = error), ReconcilePaused |
 * | AsyncOperation     | Finished             | Ongoing                                         |
 * | LastAsyncOperation | Success              | AsyncCreateFailure, AsyncUpdateFailure, DestroyFailure |
 */
import { findCondition, ownedConditions, type Condition, type ConditionUpdate } from "@edgeconnect/runtime";

export const READY = "Ready";
export const SYNCED = "Synced";
export const ASYNC_OPERATION = "AsyncOperation";
export const LAST_ASYNC_OPERATION = "LastAsyncOperation";

/** The order conditions are written in. */
const TYPES = [READY, SYNCED, ASYNC_OPERATION, LAST_ASYNC_OPERATION] as const;

export type ConditionType = (typeof TYPES)[number];

export type FailureReason = "AsyncCreateFailure" | "AsyncUpdateFailure" | "DestroyFailure";

export const available = (): ConditionUpdate => ({ type: READY, status: "True", reason: "Available", message: "" });
export const creating = (): ConditionUpdate => ({ type: READY, status: "False", reason: "Creating", message: "" });
export const deleting = (): ConditionUpdate => ({ type: READY, status: "False", reason: "Deleting", message: "" });
export const unavailable = (): ConditionUpdate => ({ type: READY, status: "False", reason: "Unavailable", message: "" });

export const reconcileSuccess = (): ConditionUpdate => ({ type: SYNCED, status: "True", reason: "ReconcileSuccess", message: "" });
export const reconcileError = (message: string): ConditionUpdate => ({ type: SYNCED, status: "False", reason: "ReconcileError", message });
export const reconcilePaused = (): ConditionUpdate => ({
  type: SYNCED,
  status: "False",
  reason: "ReconcilePaused",
  message: "Reconciliation is paused either through the `spec.managementPolicies` or the pause annotation",
});

export const asyncOngoing = (): ConditionUpdate => ({ type: ASYNC_OPERATION, status: "False", reason: "Ongoing", message: "" });
export const asyncFinished = (): ConditionUpdate => ({ type: ASYNC_OPERATION, status: "True", reason: "Finished", message: "" });

export const lastAsyncSuccess = (): ConditionUpdate => ({ type: LAST_ASYNC_OPERATION, status: "True", reason: "Success", message: "" });
export const lastAsyncFailure = (reason: FailureReason, message: string): ConditionUpdate => ({
  type: LAST_ASYNC_OPERATION,
  status: "False",
  reason,
  message,
});

/** This reconcile's verdict per condition type; a type left out keeps what the MR shows. */
export type ConditionSet = Partial<Record<ConditionType, ConditionUpdate>>;

/**
 * The MR's conditions after this reconcile: each type's new verdict, else
 * its current condition, all stamped with `generation` (the spec this
 * reconcile acted on). Transition times move only when a status changes.
 */
export function nextConditions(observed: readonly Condition[] | undefined, verdicts: ConditionSet, generation: number | undefined, now: Date = new Date()): Condition[] {
  const updates = TYPES.flatMap((type): ConditionUpdate[] => {
    const verdict = verdicts[type];
    if (verdict !== undefined) return [verdict];
    const current = findCondition(observed, type);
    return current === undefined ? [] : [{ type, status: current.status, reason: current.reason, message: current.message ?? "" }];
  });
  return ownedConditions(observed, updates, generation, now);
}

/** Where OTC's side of an existing object stands, as the Terraform waits of its kind see it. */
export type ExternalPhase =
  /** OTC still works on it (VPC CREATING, cluster Creating, node pool Synchronizing). */
  | { readonly kind: "settling" }
  /** In the state Terraform's create and update wait for. */
  | { readonly kind: "settled" }
  /** In a state Terraform's wait fails on (node pool SoldOut, Error). */
  | { readonly kind: "failed"; readonly message: string }
  /** OTC is deleting it. */
  | { readonly kind: "deleting" };

/** An asynchronous operation this process started and waits for, as upjet's operation tracker keeps it. */
export type TrackedOperation = "create" | "update";

export interface ObservedExistence {
  readonly phase: ExternalPhase;
  readonly operation: TrackedOperation | undefined;
  /**
   * Ready only once settled (ClusterV3: Terraform records the cluster only
   * after it is Available); otherwise an existing object is Ready unless a
   * create of it is still under way.
   */
  readonly readyOnlyWhenSettled: boolean;
}

export interface ObservedVerdict {
  readonly conditions: ConditionSet;
  /** The tracked operation succeeded and is to be forgotten. */
  readonly operationEnded: boolean;
  /** Something is still in progress: look again soon. */
  readonly inProgress: boolean;
}

/**
 * The verdicts for an external object that exists and matches the spec (or
 * is being changed to match it): upjet's clean observe with its async
 * operation bookkeeping. Synced is ReconcileSuccess; a failed wait (a node
 * pool SoldOut) fails the last operation but leaves Ready True, since the
 * object exists (reference §1.7).
 */
export function observedVerdict(input: ObservedExistence): ObservedVerdict {
  const { phase, operation } = input;
  const synced = reconcileSuccess();
  switch (phase.kind) {
    case "deleting":
      return { conditions: { [READY]: deleting(), [SYNCED]: synced, [ASYNC_OPERATION]: asyncOngoing() }, operationEnded: false, inProgress: true };
    case "settling": {
      const ready = operation === "create" || input.readyOnlyWhenSettled ? creating() : available();
      return {
        conditions: { [READY]: ready, [SYNCED]: synced, ...(operation === undefined ? {} : { [ASYNC_OPERATION]: asyncOngoing() }) },
        operationEnded: false,
        inProgress: true,
      };
    }
    case "settled":
      return {
        conditions: { [READY]: available(), [SYNCED]: synced, [ASYNC_OPERATION]: asyncFinished(), [LAST_ASYNC_OPERATION]: lastAsyncSuccess() },
        operationEnded: operation !== undefined,
        inProgress: false,
      };
    case "failed": {
      const reason: FailureReason = operation === "update" ? "AsyncUpdateFailure" : "AsyncCreateFailure";
      const verb = operation === "update" ? "update" : "create";
      return {
        conditions: {
          [READY]: input.readyOnlyWhenSettled ? unavailable() : available(),
          [SYNCED]: synced,
          [ASYNC_OPERATION]: asyncFinished(),
          [LAST_ASYNC_OPERATION]: lastAsyncFailure(reason, `async ${verb} failed: failed to ${verb} the resource: ${phase.message}`),
        },
        // Remembered until it settles, so that the failure keeps naming the operation that failed.
        operationEnded: false,
        inProgress: false,
      };
    }
  }
}
