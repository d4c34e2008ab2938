/**
 * What one pass learned, written as the KubernetesCluster's status: the
 * step conditions of its provider type in order, a summary Ready, the
 * phase, the flavor decision (OTC) and where the cluster is reached. Events are recorded for transitions
 * only (a condition turning False, the cluster turning Ready), so a
 * reconcile that learns nothing new says nothing new.
 */
import type { KubernetesCluster, KubernetesClusterStatus } from "@edgeconnect/api";
import { CONDITION, MAX_SOLD_OUT, OTC_STEPS, summarize, type ClusterSteps, type FlavorChoice } from "@edgeconnect/provisioning";
import {
  applyStatus,
  findCondition,
  ownedConditions,
  tenantMessage,
  type Condition,
  type ConditionUpdate,
  type DeepReadonly,
  type EventRecorder,
  type EventType,
} from "@edgeconnect/runtime";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { FIELD_MANAGER } from "../infrastructure/infrastructure-cluster.js";
import { kubernetesClusterPath } from "../tenant/tenant-resources.js";
import type { Pass, StepCondition } from "./provision.js";

type Flavor = NonNullable<KubernetesClusterStatus["flavor"]>;
type SoldOut = NonNullable<Flavor["soldOut"]>[number];

const MAX_REJECTED = 10;

export class StatusReport {
  private readonly steps = new Map<string, ConditionUpdate>();
  private refusal: ConditionUpdate | undefined;
  private unreachable: string | undefined;
  /** The pass learned only some steps: the others keep their last conditions, generation included. */
  private partial = false;
  private phaseOverride: KubernetesClusterStatus["phase"] | undefined;
  private flavorStatus: Flavor | undefined;
  private soldOutList: SoldOut[];
  private extra: Partial<Pick<KubernetesClusterStatus, "apiEndpoint" | "kubeconfigSecretName" | "clusterID">> = {};
  private readonly events: { type: EventType; reason: string; message: string }[] = [];
  private flushed: DeepReadonly<KubernetesCluster>;

  constructor(
    private readonly kc: DeepReadonly<KubernetesCluster>,
    private readonly recorder: EventRecorder,
    private readonly sequence: ClusterSteps = OTC_STEPS,
  ) {
    this.flushed = kc;
    this.soldOutList = (kc.status?.flavor?.soldOut ?? []).map((entry) => ({ flavor: entry.flavor, zone: entry.zone }));
    const status = kc.status;
    if (status?.apiEndpoint !== undefined) this.extra.apiEndpoint = status.apiEndpoint;
    if (status?.kubeconfigSecretName !== undefined) this.extra.kubeconfigSecretName = status.kubeconfigSecretName;
    if (status?.clusterID !== undefined) this.extra.clusterID = status.clusterID;
  }

  step(type: string, condition: StepCondition): void {
    this.steps.set(type, { type, ...condition, message: tenantMessage(condition.message) });
  }

  pass(type: string, reason: string, message: string): void {
    this.step(type, { status: "True", reason, message });
  }

  fail(type: string, reason: string, message: string, status: "False" | "Unknown" = "False"): void {
    this.step(type, { status, reason, message });
  }

  /** The spec asks for something this controller will not do: Ready says why, nothing more is done. */
  refuse(reason: string, message: string): void {
    this.refusal = { type: CONDITION.Ready, status: "False", reason, message: tenantMessage(message) };
  }

  /**
   * The pass stopped on an error it will retry: Ready says so until the
   * retry knows more, and the steps it did not reach keep what they said
   * last (it learned nothing of them).
   */
  interrupted(message: string): void {
    this.refusal = { type: CONDITION.Ready, status: "Unknown", reason: "ReconcileError", message: tenantMessage(message) };
    this.partial = true;
  }

  /**
   * The infrastructure cluster does not answer: what the steps said last
   * stays (nothing new is known of them), InfrastructureReachable says
   * since when, and Ready is Unknown rather than a frozen True.
   */
  infrastructureUnreachable(message: string): void {
    this.unreachable = tenantMessage(message);
    this.partial = true;
  }

  deleting(message: string): void {
    this.phaseOverride = "Deleting";
    this.refusal = { type: CONDITION.Ready, status: "False", reason: "Deleting", message };
  }

  /** Deleting, held up by what `message` names: made safe to show here, since it carries Crossplane's words. */
  deletingBlocked(message: string): void {
    this.deleting(tenantMessage(message));
  }

  /** The flavor decision; without a choice only the sold-out candidates are updated, on a decision already recorded. */
  flavor(choice?: FlavorChoice & { readonly reason?: string; readonly rejected: readonly { flavor: string; reason: string }[] }): void {
    const soldOut = this.soldOutList.length > 0 ? { soldOut: [...this.soldOutList] } : {};
    if (choice === undefined) {
      if (this.flavorStatus !== undefined) this.flavorStatus = { ...this.flavorStatus, ...soldOut };
      return;
    }
    const kept = choice.rejected.slice(0, MAX_REJECTED).map((entry) => ({ flavor: entry.flavor, reason: entry.reason }));
    this.flavorStatus = { name: choice.flavor, zone: choice.zone, source: choice.source, reason: choice.reason ?? "", ...(kept.length > 0 ? { rejected: kept } : {}), ...soldOut };
  }

  /** The sold-out candidates the controller remembers (on the infrastructure cluster), replacing what status said. */
  knownSoldOut(pairs: readonly SoldOut[]): void {
    this.soldOutList = pairs.map(({ flavor, zone }) => ({ flavor, zone }));
  }

  /** Records a sold-out candidate (bounded, oldest dropped); returns every one known. */
  addSoldOut(flavor: string, zone: string): SoldOut[] {
    if (!this.soldOutList.some((entry) => entry.flavor === flavor && entry.zone === zone)) this.soldOutList = [...this.soldOutList, { flavor, zone }].slice(-MAX_SOLD_OUT);
    if (this.flavorStatus !== undefined) this.flavorStatus = { ...this.flavorStatus, soldOut: this.soldOutList };
    else this.flavorStatus = { name: flavor, zone, source: "Matched", reason: "sold out", soldOut: this.soldOutList };
    return this.soldOutList;
  }

  clusterId(id: string): void {
    this.extra.clusterID = id;
  }

  endpoint(server: string, secretName: string): void {
    this.extra.apiEndpoint = server;
    this.extra.kubeconfigSecretName = secretName;
  }

  event(type: EventType, reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }

  get ready(): boolean {
    return this.summary().ready.status === "True";
  }

  /** Writes the status and the Events of what changed since the object was read (or last flushed). */
  async flush(pass: Pick<Pass, "scope" | "signal" | "request">): Promise<void> {
    const previous = this.flushed.status?.conditions as readonly Condition[] | undefined;
    const steps = this.stepUpdates(previous);
    const { ready, phase } = this.unreachable === undefined ? this.summary(steps) : this.unreachableSummary();
    const generation = this.kc.metadata?.generation;
    const infrastructure: ConditionUpdate =
      this.unreachable === undefined
        ? { type: CONDITION.InfrastructureReachable, status: "True", reason: "Reachable", message: "the platform reaches the infrastructure the cluster runs on" }
        : { type: CONDITION.InfrastructureReachable, status: "False", reason: "InfrastructureUnreachable", message: this.unreachable };
    const updates = [...steps, infrastructure, ready];
    // What was carried over unlearned keeps the generation it was learned at.
    const conditions = ownedConditions(previous, updates, generation).map((condition) => {
      const step = (this.sequence.order as readonly string[]).includes(condition.type);
      const carried = this.partial && step && !this.steps.has(condition.type) ? findCondition(previous, condition.type) : undefined;
      return carried === undefined ? condition : { ...condition, ...(carried.observedGeneration === undefined ? {} : { observedGeneration: carried.observedGeneration }) };
    });
    const status: KubernetesClusterStatus = {
      phase: this.phaseOverride ?? phase,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      conditions,
      ...(this.flavorStatus === undefined ? {} : { flavor: this.flavorStatus }),
      ...this.extra,
    };
    const path = kubernetesClusterPath(pass.request.namespace, pass.request.name);
    // Guarded by the version this status was computed from: a spec, finalizer or status write since then makes it stale, and the retry computes it anew.
    const resourceVersion = this.flushed.metadata?.resourceVersion;
    let written: KubernetesCluster & KubeObject;
    try {
      written = await applyStatus<KubernetesCluster & KubeObject>(pass.scope.client, path, this.kc, status, FIELD_MANAGER, {
        signal: pass.signal,
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      });
    } finally {
      // What the pass did happened whether or not its status could be written (a stale version is retried, the deed is not redone).
      this.recordEvents();
    }
    this.recordTransitions(previous, updates);
    this.flushed = written;
  }

  private stepUpdates(previous: readonly Condition[] | undefined): ConditionUpdate[] {
    return this.sequence.order.map((type) => this.steps.get(type) ?? (this.partial ? asUpdate(findCondition(previous, type)) : undefined) ?? waiting(type));
  }

  private unreachableSummary(): { ready: ConditionUpdate; phase: NonNullable<KubernetesClusterStatus["phase"]> } {
    return {
      ready: { type: CONDITION.Ready, status: "Unknown", reason: "InfrastructureUnreachable", message: this.unreachable ?? "" },
      phase: this.phaseOverride ?? this.flushed.status?.phase ?? "Pending",
    };
  }

  private summary(steps: readonly ConditionUpdate[] = this.stepUpdates(this.flushed.status?.conditions)): { ready: ConditionUpdate; phase: NonNullable<KubernetesClusterStatus["phase"]> } {
    const summary = summarize(steps, this.sequence);
    if (this.refusal !== undefined) return { ready: this.refusal, phase: this.phaseOverride ?? (this.refusal.status === "False" ? "Failed" : summary.phase) };
    return { ready: summary.ready, phase: summary.phase };
  }

  private recordTransitions(previous: readonly Condition[] | undefined, updates: readonly ConditionUpdate[]): void {
    const subject = this.kc as unknown as KubeObject;
    for (const update of updates) {
      const before = findCondition(previous, update.type);
      const changed = before?.status !== update.status || before?.reason !== update.reason;
      if (!changed) continue;
      if (update.status === "False" && update.type !== CONDITION.Ready) this.recorder.event(subject, "Warning", update.reason, update.message);
      if (update.type === CONDITION.Ready && update.status === "True") this.recorder.event(subject, "Normal", "ClusterReady", update.message);
      if (update.type === CONDITION.Ready && update.status === "False" && this.refusal !== undefined && update.reason !== "Deleting") this.recorder.event(subject, "Warning", update.reason, update.message);
    }
  }

  private recordEvents(): void {
    const subject = this.kc as unknown as KubeObject;
    for (const event of this.events.splice(0)) this.recorder.event(subject, event.type, event.reason, event.message);
  }
}

function asUpdate(condition: Condition | undefined): ConditionUpdate | undefined {
  return condition === undefined ? undefined : { type: condition.type, status: condition.status, reason: condition.reason, message: condition.message };
}

function waiting(type: string): ConditionUpdate {
  return { type, status: "Unknown", reason: "Waiting", message: "waiting for the steps before this one" };
}
