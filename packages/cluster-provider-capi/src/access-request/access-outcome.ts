/**
 * What an AccessRequest's status says, decided without I/O.
 *
 * openMCP's consumers (its ManagedControlPlane controller, the
 * clusteraccess library) use a request's access only while its phase is
 * `Granted` and `status.secretRef` names the Secret. A granted request must
 * therefore stay granted through a Cluster that turns Progressing or a
 * workload cluster that does not answer for a while: the token in its
 * Secret still works, and taking the phase away would make every consumer
 * give up a working access. Such problems go into `AccessUpToDate` instead.
 */
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import { scrubText, type ConditionUpdate } from "@edgeconnect/runtime";

/** Every condition type the access-request controller owns. */
export const ACCESS_CONDITIONS = ["ClusterReady", "AccessGranted", "AccessUpToDate"] as const;

export type Outcome =
  | { readonly phase: "Pending"; readonly conditions: readonly ConditionUpdate[]; readonly requeueAfterMs?: number }
  | { readonly phase: "Denied"; readonly conditions: readonly ConditionUpdate[] }
  /** `renewAt`: when the Secret's credential is due for renewal; none for a Secret without one (OIDC). */
  | { readonly phase: "Granted"; readonly conditions: readonly ConditionUpdate[]; readonly secretName: string; readonly renewAt?: Date };

/** The part of a request's current status the decision reads. */
export interface GrantedStatus {
  readonly phase?: string | undefined;
  readonly secretRef?: { readonly name?: string | undefined } | undefined;
}

/** The status to write: the outcome's, or, for a request granted before that now waits, the grant kept with the wait as a condition. */
export interface StatusDecision {
  readonly phase: Outcome["phase"];
  readonly secretName?: string;
  readonly conditions: readonly ConditionUpdate[];
}

/** The request waits for its Cluster: nothing is granted, and all conditions say why. */
export function waiting(reason: string, message: string, requeueAfterMs?: number): Outcome {
  return {
    phase: "Pending",
    conditions: [
      { type: "ClusterReady", status: "False", reason, message },
      { type: "AccessGranted", status: "False", reason, message: "waiting for the cluster" },
      { type: "AccessUpToDate", status: "False", reason, message: "waiting for the cluster" },
    ],
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}

/** The request cannot be (re)granted for a reason on the workload cluster's side; the Cluster itself is Ready. */
export function blocked(reason: string, message: string, requeueAfterMs?: number): Outcome {
  return {
    phase: "Pending",
    conditions: [
      { type: "AccessGranted", status: "False", reason, message },
      { type: "AccessUpToDate", status: "False", reason, message },
    ],
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}

export function denied(reason: string, message: string): Outcome {
  return {
    phase: "Denied",
    conditions: [
      { type: "AccessGranted", status: "False", reason, message },
      { type: "AccessUpToDate", status: "False", reason, message },
    ],
  };
}

/**
 * What to write for `outcome` given the request's `current` status. A
 * Pending outcome of a request that is Granted with a Secret keeps phase
 * and Secret; `AccessGranted` is left as it was (true), and the outcome's
 * reason lands in `ClusterReady` (a wait for the Cluster, which leaves the
 * access objects as they were) or `AccessUpToDate` (a failed update). Denials are never
 * softened: a request denied now (invalid spec, deleted Cluster) loses its
 * grant.
 */
export function statusDecision(current: GrantedStatus | undefined, outcome: Outcome): StatusDecision {
  if (outcome.phase === "Granted") return { phase: "Granted", secretName: outcome.secretName, conditions: outcome.conditions };
  const secretName = current?.secretRef?.name;
  if (outcome.phase === "Pending" && current?.phase === "Granted" && secretName !== undefined && secretName !== "") {
    // A wait for the Cluster says nothing about the access objects, which stay as they were: only ClusterReady changes.
    const aboutCluster = outcome.conditions.some((c) => c.type === "ClusterReady");
    return { phase: "Granted", secretName, conditions: outcome.conditions.filter((c) => (aboutCluster ? c.type === "ClusterReady" : c.type !== "AccessGranted")) };
  }
  return { phase: outcome.phase, conditions: outcome.conditions };
}

/** An object the grant would write exists and was not made for this request: it is never taken over. */
export class ResourceNotManagedError extends Error {
  override readonly name = "ResourceNotManagedError";

  constructor(
    readonly kind: string,
    readonly objectName: string,
    readonly namespace: string | undefined,
    cluster: "workload" | "platform",
  ) {
    const where = namespace === undefined || namespace === "" ? "" : ` in namespace ${JSON.stringify(namespace)}`;
    const side = cluster === "workload" ? "on the workload cluster" : "next to the request";
    super(
      `the ${kind} ${JSON.stringify(objectName)}${where} ${side} exists and was not made for this request; ` +
        `rename the permission (spec.token.permissions[].name) or remove that ${kind}`,
    );
  }
}

/** How long a request waits before looking again at a conflict only a person can resolve. */
export const CONFLICT_RECHECK_MS = 60_000;

/**
 * A failed grant as an outcome: `retry` says whether the error goes back to
 * the queue (with backoff) or the request simply looks again later.
 * Messages are scrubbed of anything that could be a credential.
 */
export function grantFailure(err: unknown): { readonly outcome: Outcome; readonly retry: boolean } {
  if (err instanceof ResourceNotManagedError) {
    return { outcome: blocked("ResourceNotManaged", err.message, CONFLICT_RECHECK_MS), retry: false };
  }
  const message = scrubText(err instanceof Error ? err.message : String(err));
  if (err instanceof HttpStatusError && isRejection(err.status)) {
    return { outcome: blocked("WorkloadClusterRejected", `the workload cluster refused the access objects: ${message}`), retry: true };
  }
  return { outcome: blocked("WorkloadClusterUnreachable", `could not reach the workload cluster or write the access: ${message}`), retry: true };
}

/** A 4xx that says the request itself was refused, not that the server is busy or the call timed out. */
function isRejection(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}
