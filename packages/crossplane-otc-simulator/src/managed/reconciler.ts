/**
 * crossplane-runtime's managed reconciler with upjet's asynchronous
 * Terraform client, for one MR kind (reference §2.1–2.3):
 *
 * 1. Paused (`crossplane.io/paused: "true"` or no management policies):
 *    Synced=False/ReconcilePaused, nothing else.
 * 2. Connect, on every reconcile including deletion: ProviderConfig, usage,
 *    credentials, OTC client. Failure: Synced=False/ReconcileError.
 * 3. Deleting: delete in OTC (Ready=False/Deleting) until OTC answers 404,
 *    then remove the finalizer. A refusal (409 while in use) is
 *    LastAsyncOperation=False/DestroyFailure and retried.
 * 4. Otherwise: finalizer first; without an external name create (with
 *    the external-create-pending/succeeded/failed annotations); then
 *    observe, refuse ForceNew changes, update in place what can be,
 *    finish Terraform's create steps, and report.
 *
 * Terraform's waits become this process's polling: while OTC works on an
 * object (or an operation of ours is under way) the MR is looked at again
 * within a second, otherwise every poll interval. Failures write the status
 * first and then throw, so the controller retries with backoff.
 */
import { HttpStatusError, type RestClient } from "@edgeconnect/kcp-ts";
import { objectPath } from "@edgeconnect/api";
import {
  conditionTime,
  ensureFinalizer,
  hasFinalizer,
  mutableCopy,
  removeFinalizer,
  requestKey,
  scrubText,
  type ControllerLogger,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Store,
} from "@edgeconnect/runtime";
import {
  ASYNC_OPERATION,
  asyncFinished,
  asyncOngoing,
  creating,
  deleting,
  LAST_ASYNC_OPERATION,
  lastAsyncFailure,
  nextConditions,
  observedVerdict,
  READY,
  reconcileError,
  reconcilePaused,
  reconcileSuccess,
  SYNCED,
  unavailable,
  type ConditionSet,
  type TrackedOperation,
} from "./conditions.js";
import { publishConnection, unpublishConnection } from "./connection-secret.js";
import type { ClientSettings } from "./credentials.js";
import { matchesArgument, stringParameter, type ExternalContext, type ExternalKind, type Observation } from "./external.js";
import type { OtcClients } from "./otc-clients.js";
import { forceNewMessage, parameterChanges } from "./parameter-diff.js";
import { ConnectError, connectOptions, messageOf, releaseUsage } from "./provider-config.js";
import {
  allows,
  apiVersionOf,
  createParameters,
  EXTERNAL_CREATE_FAILED,
  EXTERNAL_CREATE_PENDING,
  EXTERNAL_CREATE_SUCCEEDED,
  EXTERNAL_NAME,
  FINALIZER,
  managementPolicies,
  PAUSED,
  type ManagedResource,
  type ManagedStatus,
  type Parameters,
} from "./resource.js";

export interface ManagedReconcilerOptions {
  readonly kind: ExternalKind;
  readonly store: Store<ManagedResource>;
  /** The infrastructure cluster. */
  readonly client: Pick<RestClient, "get" | "apply" | "delete" | "request">;
  readonly clients: OtcClients;
  readonly settings: ClientSettings;
  readonly fieldManager: string;
  /** Drift and status poll, the provider's --poll. */
  readonly pollIntervalMs: number;
  readonly now?: () => Date;
}

/** crossplane-runtime's words for a create whose outcome was lost (reference §2.2). */
export const CREATE_INCOMPLETE =
  "cannot determine creation result - remove the crossplane.io/external-create-pending annotation if it is safe to proceed";

/** How soon an object OTC still works on is looked at again, at most. */
const PROGRESS_INTERVAL_MS = 1_000;

/** A write found the MR gone. */
class MissingObjectError extends Error {
  override readonly name = "MissingObjectError";
}

/** A reconcile that failed after reporting why on the MR; the controller retries it with backoff. */
export class ManagedReconcileError extends Error {
  override readonly name = "ManagedReconcileError";
}

export class ManagedReconciler implements Reconciler {
  private readonly kind: ExternalKind;
  /** The kind's choice, read once: every verdict of this kind uses it. */
  private readonly readyOnlyWhenSettled: boolean;
  private readonly writes: StepWrites;
  /** upjet's operation tracker: the async operation under way per MR uid, lost on restart as upjet's is. */
  private readonly operations = new Map<string, TrackedOperation>();

  constructor(private readonly options: ManagedReconcilerOptions) {
    this.kind = options.kind;
    this.readyOnlyWhenSettled = options.kind.readyOnlyWhenSettled ?? false;
    this.writes = { client: options.client, kind: options.kind, fieldManager: options.fieldManager, now: options.now ?? (() => new Date()) };
  }

  async reconcile(request: Request, { signal, log }: ReconcileContext): Promise<Result | undefined> {
    const cached = this.options.store.get(requestKey(request));
    if (cached === undefined) return undefined;
    const mr = mutableCopy(cached);
    const step = new Step(this.writes, mr, signal, log);
    if (mr.metadata?.annotations?.[PAUSED] === "true" || managementPolicies(mr).length === 0) {
      await step.report({ [SYNCED]: reconcilePaused() });
      return undefined;
    }
    try {
      const external = await this.connect(step);
      return await (mr.metadata?.deletionTimestamp === undefined ? this.apply(step, external) : this.cleanUp(step, external));
    } catch (err) {
      // The cache was behind: the MR went away (its finalizer released) and its delete event is on the way.
      if (err instanceof MissingObjectError) return undefined;
      throw err;
    }
  }

  private async connect(step: Step): Promise<ExternalContext> {
    const { client, clients, settings, fieldManager } = this.options;
    try {
      const options = await connectOptions(step.mr, this.kind, { client, fieldManager, settings, signal: step.signal });
      const otc = await clients.get({ ...options, retry: { attempts: 3, baseDelayMs: 200 } }, step.signal);
      return { otc, signal: step.signal };
    } catch (err) {
      const message = err instanceof ConnectError ? err.message : `connect failed: cannot get terraform setup: failed to configure the provider: ${messageOf(err)}`;
      throw await step.fail({ [SYNCED]: reconcileError(message) }, message, err);
    }
  }

  private async cleanUp(step: Step, external: ExternalContext): Promise<Result | undefined> {
    const { mr } = step;
    if (!hasFinalizer(mr, FINALIZER)) return undefined;
    const uid = mr.metadata?.uid ?? "";
    const externalName = mr.metadata?.annotations?.[EXTERNAL_NAME];
    if (!allows(mr, "Delete") || externalName === undefined || externalName === "") {
      this.operations.delete(uid);
      await step.releaseFinalizer();
      return undefined;
    }
    const parameters = createParameters(mr);
    let observation = await this.observe(step, external, externalName, parameters);
    if (observation !== undefined && observation.phase.kind !== "deleting") {
      try {
        await this.kind.delete(external, externalName, parameters, observation);
      } catch (err) {
        const message = `async delete failed: failed to delete the resource: ${messageOf(err)}`;
        throw await step.fail(
          { [READY]: deleting(), [SYNCED]: reconcileError(`delete failed: ${message}`), [ASYNC_OPERATION]: asyncFinished(), [LAST_ASYNC_OPERATION]: lastAsyncFailure("DestroyFailure", message) },
          message,
          err,
        );
      }
      // Some deletions are done at once (a VPC): then the finalizer goes in this reconcile.
      observation = await this.observe(step, external, externalName, parameters);
    }
    if (observation === undefined) {
      this.operations.delete(uid);
      await step.releaseFinalizer();
      return undefined;
    }
    await step.report({ [READY]: deleting(), [SYNCED]: reconcileSuccess(), [ASYNC_OPERATION]: asyncOngoing() }, observation.atProvider);
    return { requeueAfterMs: this.progressIntervalMs() };
  }

  private async apply(step: Step, external: ExternalContext): Promise<Result | undefined> {
    await step.ensureFinalizer();
    const { mr } = step;
    if (createIncomplete(mr)) {
      await step.report({ [READY]: creating(), [SYNCED]: reconcileError(CREATE_INCOMPLETE) });
      return undefined;
    }
    const uid = mr.metadata?.uid ?? "";
    const parameters = createParameters(mr);
    let externalName = mr.metadata?.annotations?.[EXTERNAL_NAME] ?? "";
    let observation = externalName === "" ? undefined : await this.observe(step, external, externalName, parameters);
    if (observation === undefined) {
      if (!allows(mr, "Create")) {
        throw await step.fail({ [READY]: unavailable(), [SYNCED]: reconcileError("observe failed: external resource does not exist") }, "external resource does not exist");
      }
      const waiting = await this.waitBeforeCreate(step, external, parameters);
      if (waiting !== undefined) {
        step.log.debug({ waitingFor: waiting }, "create waits");
        await step.report({ [READY]: creating(), [SYNCED]: reconcileSuccess(), [ASYNC_OPERATION]: asyncOngoing() });
        return { requeueAfterMs: this.progressIntervalMs() };
      }
      externalName = await this.create(step, external, parameters);
      this.operations.set(uid, "create");
      observation = await this.observe(step, external, externalName, parameters);
      if (observation === undefined) {
        // Not readable yet right after its creation: look again soon.
        await step.report({ [READY]: creating(), [SYNCED]: reconcileSuccess(), [ASYNC_OPERATION]: asyncOngoing() });
        return { requeueAfterMs: this.progressIntervalMs() };
      }
    }
    observation = await this.update(step, external, externalName, observation);
    if (observation.followUp !== undefined && allows(mr, "Create")) {
      try {
        await observation.followUp(external);
      } catch (err) {
        const message = `async create failed: failed to create the resource: ${messageOf(err)}`;
        throw await step.fail({ [SYNCED]: reconcileError(`create failed: ${message}`), [LAST_ASYNC_OPERATION]: lastAsyncFailure("AsyncCreateFailure", message) }, message, err);
      }
      observation = (await this.observe(step, external, externalName, parameters)) ?? observation;
    }
    const operation = this.operations.get(uid);
    const verdict = observedVerdict({ phase: observation.phase, operation, readyOnlyWhenSettled: this.readyOnlyWhenSettled });
    if (verdict.operationEnded) this.operations.delete(uid);
    // Upjet does not refresh an object while its create runs: the status shows it once the create is done.
    const creatingNow = operation === "create" && observation.phase.kind === "settling";
    if (!creatingNow) {
      try {
        await step.publishConnection();
      } catch (err) {
        const message = `cannot publish connection details: ${messageOf(err)}`;
        throw await step.fail({ ...verdict.conditions, [SYNCED]: reconcileError(message) }, message, err, observation.atProvider);
      }
    }
    await step.report(verdict.conditions, creatingNow ? mr.status?.atProvider : observation.atProvider);
    return { requeueAfterMs: verdict.inProgress ? this.progressIntervalMs() : this.options.pollIntervalMs };
  }

  /** What the create still waits for, before it sets any annotation; a failed wait fails the create. */
  private async waitBeforeCreate(step: Step, external: ExternalContext, parameters: Parameters): Promise<string | undefined> {
    try {
      return await this.kind.waitBeforeCreate?.(external, parameters);
    } catch (err) {
      const message = `async create failed: failed to create the resource: ${messageOf(err)}`;
      throw await step.fail(createFailed(message), message, err);
    }
  }

  /** Creates the object behind the creation annotations; resolves with its external name. */
  private async create(step: Step, external: ExternalContext, parameters: Parameters): Promise<string> {
    await step.annotate({ [EXTERNAL_CREATE_PENDING]: conditionTime(this.writes.now()) });
    let externalName: string;
    try {
      const region = stringParameter(parameters, "region");
      if (region !== undefined && region !== external.otc.region) {
        throw new Error(`the simulator serves the credentials' region ${external.otc.region} only, not ${region}`);
      }
      externalName = await this.kind.create(external, parameters);
    } catch (err) {
      const message = `async create failed: failed to create the resource: ${messageOf(err)}`;
      // The create's error is what the MR must show; were this annotation lost, the MR stops at CREATE_INCOMPLETE, as the provider's would.
      await step.annotate({ [EXTERNAL_CREATE_FAILED]: conditionTime(this.writes.now()) }).catch(() => undefined);
      throw await step.fail(createFailed(message), message, err);
    }
    await step.annotate({ [EXTERNAL_NAME]: externalName, [EXTERNAL_CREATE_SUCCEEDED]: conditionTime(this.writes.now()) });
    return externalName;
  }

  /**
   * Terraform's plan and apply of changes to an existing object: ForceNew
   * changes are refused, in-place ones applied (becoming an update
   * operation), others reported as not simulated. Resolves with the
   * observation to report.
   */
  private async update(step: Step, external: ExternalContext, externalName: string, observation: Observation): Promise<Observation> {
    const { mr } = step;
    if (!allows(mr, "Update")) return observation;
    const changes = parameterChanges(mr.spec?.forProvider ?? {}, observation.reported);
    if (changes.length === 0) return observation;
    const inPlace = this.kind.inPlace;
    const refused = changes.find((change) => matchesArgument(this.kind.forceNew, change.argument));
    const notInPlace = changes.find((change) => inPlace === undefined || !matchesArgument(inPlace.arguments, change.argument));
    if (refused !== undefined || notInPlace !== undefined || inPlace === undefined) {
      const reason =
        refused !== undefined
          ? `refuse to update the external resource because the following update requires replacing it: ${forceNewMessage(refused)}`
          : `the simulator does not update the argument "${notInPlace?.argument ?? ""}" in place`;
      const message = `async update failed: ${reason}`;
      const existing = observedVerdict({ phase: observation.phase, operation: undefined, readyOnlyWhenSettled: this.readyOnlyWhenSettled });
      throw await step.fail(
        { ...existing.conditions, [SYNCED]: reconcileError(`update failed: ${message}`), [LAST_ASYNC_OPERATION]: lastAsyncFailure("AsyncUpdateFailure", message) },
        message,
        undefined,
        observation.atProvider,
      );
    }
    try {
      await inPlace.apply(external, externalName, mr.spec?.forProvider ?? {}, changes);
    } catch (err) {
      const message = `async update failed: failed to update the resource: ${messageOf(err)}`;
      throw await step.fail({ [SYNCED]: reconcileError(`update failed: ${message}`), [LAST_ASYNC_OPERATION]: lastAsyncFailure("AsyncUpdateFailure", message) }, message, err);
    }
    this.operations.set(mr.metadata?.uid ?? "", "update");
    return (await this.observe(step, external, externalName, createParameters(mr))) ?? observation;
  }

  private async observe(step: Step, external: ExternalContext, externalName: string, parameters: Parameters): Promise<Observation | undefined> {
    try {
      return await this.kind.observe(external, externalName, parameters, step.mr);
    } catch (err) {
      const message = `observe failed: cannot run refresh: ${messageOf(err)}`;
      throw await step.fail({ [SYNCED]: reconcileError(message) }, message, err);
    }
  }

  private progressIntervalMs(): number {
    return Math.min(PROGRESS_INTERVAL_MS, this.options.pollIntervalMs);
  }
}

/** What a Step writes with. */
interface StepWrites {
  readonly client: ManagedReconcilerOptions["client"];
  readonly kind: ExternalKind;
  readonly fieldManager: string;
  readonly now: () => Date;
}

/** One reconcile's MR and its writes; keeps `mr` at the latest version the server returned. */
class Step {
  private readonly path: string;

  constructor(
    private readonly writes: StepWrites,
    public mr: ManagedResource,
    readonly signal: AbortSignal,
    readonly log: ControllerLogger,
  ) {
    this.path = objectPath(writes.kind, mr.metadata?.namespace, mr.metadata?.name ?? "");
  }

  async ensureFinalizer(): Promise<void> {
    this.mr = await present(ensureFinalizer(this.writes.client, this.path, this.mr, FINALIZER, { signal: this.signal }));
  }

  /**
   * Removes the MR's ProviderConfigUsage and connection Secret, then its
   * finalizer (a failed removal makes the next reconcile track the usage
   * again).
   */
  async releaseFinalizer(): Promise<void> {
    await releaseUsage(this.mr, { client: this.writes.client, signal: this.signal });
    await unpublishConnection(this.mr, { client: this.writes.client, signal: this.signal });
    this.mr = await present(removeFinalizer(this.writes.client, this.path, this.mr, FINALIZER, { signal: this.signal }));
  }

  async publishConnection(): Promise<void> {
    await publishConnection(this.mr, this.writes.kind, { client: this.writes.client, fieldManager: this.writes.fieldManager, signal: this.signal });
  }

  /**
   * Merges `annotations` into the MR's. Unguarded on purpose: it touches
   * only these keys, and an external name must not be lost to an unrelated
   * change made meanwhile.
   */
  async annotate(annotations: Record<string, string>): Promise<void> {
    const { fieldManager } = this.writes;
    this.mr = await present(
      this.writes.client.request<ManagedResource>("PATCH", this.path, {
        body: { metadata: { annotations } },
        contentType: "application/merge-patch+json",
        query: { fieldManager },
        signal: this.signal,
      }),
    );
  }

  /**
   * Writes the status: `verdicts` over the current conditions, all for this
   * generation, and `atProvider` (the current one when undefined). A status
   * that would not change is not written, so polling costs no watch events.
   */
  async report(verdicts: ConditionSet, atProvider?: Parameters): Promise<void> {
    const { client, kind, fieldManager, now } = this.writes;
    const generation = this.mr.metadata?.generation;
    const current = this.mr.status ?? {};
    const conditions = nextConditions(current.conditions, scrubbed(verdicts), generation, now());
    const nextAtProvider = atProvider ?? current.atProvider;
    const status: ManagedStatus = { ...(nextAtProvider === undefined ? {} : { atProvider: nextAtProvider }), conditions, ...(generation === undefined ? {} : { observedGeneration: generation }) };
    if (sameJson(status, { atProvider: current.atProvider, conditions: current.conditions, observedGeneration: current.observedGeneration })) return;
    const body = { apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: { name: this.mr.metadata?.name, namespace: this.mr.metadata?.namespace }, status };
    this.mr = await present(client.apply<ManagedResource>(`${this.path}/status`, body, fieldManager, { signal: this.signal }));
  }

  /** Reports `verdicts`, then returns the error that ends the reconcile (thrown by the caller). */
  async fail(verdicts: ConditionSet, message: string, cause?: unknown, atProvider?: Parameters): Promise<ManagedReconcileError> {
    await this.report(verdicts, atProvider);
    return new ManagedReconcileError(scrubText(message), cause === undefined ? undefined : { cause });
  }
}

/** `write`'s result; a 404 (the MR is gone) becomes MissingObjectError. */
async function present<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 404) throw new MissingObjectError(err.message, { cause: err });
    throw err;
  }
}

/** The verdicts of a create that failed before OTC had anything to show. */
function createFailed(message: string): ConditionSet {
  return {
    [READY]: creating(),
    [SYNCED]: reconcileError(`create failed: ${message}`),
    [ASYNC_OPERATION]: asyncFinished(),
    [LAST_ASYNC_OPERATION]: lastAsyncFailure("AsyncCreateFailure", message),
  };
}

/** Condition messages quote OTC and API server errors: whatever credential they might echo goes. */
function scrubbed(verdicts: ConditionSet): ConditionSet {
  return Object.fromEntries(Object.entries(verdicts).map(([type, update]) => [type, { ...update, message: scrubText(update.message) }]));
}

/**
 * crossplane-runtime's ExternalCreateIncomplete: creation started (pending)
 * later than it last succeeded or failed, so its outcome, and with it the
 * external name, may be lost.
 */
export function createIncomplete(mr: ManagedResource): boolean {
  const annotations = mr.metadata?.annotations ?? {};
  const pending = Date.parse(annotations[EXTERNAL_CREATE_PENDING] ?? "");
  if (Number.isNaN(pending)) return false;
  const ended = Math.max(...[annotations[EXTERNAL_CREATE_SUCCEEDED], annotations[EXTERNAL_CREATE_FAILED]].map((value) => Date.parse(value ?? "")).filter((time) => !Number.isNaN(time)), -Infinity);
  return pending > ended;
}

/** Deep equality of JSON values, key order aside; undefined members count as absent. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return a === b;
}
