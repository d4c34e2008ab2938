/**
 * ProviderConfig status: whether the credentials its Secret holds are usable
 * and accepted by OTC IAM, in words that say what to change, never echoing
 * a value. Re-checked when the ProviderConfig or its Secret changes, and
 * when IAM's verdict expires.
 */
import type { ProviderConfig, ProviderConfigStatus } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { applyStatus, findCondition, ownedConditions, releaseSecrets, tenantMessage, type ClusterScope, type EventRecorder, type ReconcileContext, type Reconciler, type Request, type Result } from "@edgeconnect/runtime";
import { FIELD_MANAGER } from "../infrastructure/infrastructure-cluster.js";
import { providerConfigSecrets } from "../tenant/secret-holders.js";
import { checkProviderConfig, type CredentialsContext } from "../tenant/tenant-credentials.js";
import { providerConfigPath } from "../tenant/tenant-resources.js";

const RECHECK_MS = 10 * 60_000;

export interface ProviderConfigReconcilerOptions extends CredentialsContext {
  readonly recorder: EventRecorder;
}

export class ProviderConfigReconciler implements Reconciler<ClusterScope> {
  constructor(private readonly options: ProviderConfigReconcilerOptions) {}

  async reconcile(request: Request, { scope, signal }: ReconcileContext<ClusterScope>): Promise<Result | undefined> {
    const config = scope.lister(this.options.resources.providerConfigs).get(request.namespace, request.name);
    if (config === undefined || config.metadata?.deletionTimestamp !== undefined) {
      releaseSecrets(providerConfigSecrets(request.cluster, request.namespace, request.name));
      return undefined;
    }
    const outcome = await checkProviderConfig(this.options, scope, config, signal);
    const condition = outcome.ok
      ? { status: "True" as const, reason: "Accepted", message: "OTC IAM accepted the credentials" }
      : { status: outcome.transient === true ? ("Unknown" as const) : ("False" as const), reason: outcome.reason, message: tenantMessage(outcome.message) };
    const generation = config.metadata?.generation;
    const previous = config.status?.conditions;
    const conditions = ownedConditions(previous, [{ type: "CredentialsValid", ...condition }, { type: "Ready", ...condition }], generation);
    const status: ProviderConfigStatus = {
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      conditions,
      ...(outcome.ok ? { authMode: outcome.credentials.mode === "password" ? "Password" : "AccessKey", region: outcome.credentials.region } : {}),
    };
    await applyStatus<ProviderConfig & KubeObject>(scope.client, providerConfigPath(request.namespace, request.name), config, status, FIELD_MANAGER, { signal });
    const before = findCondition(previous, "CredentialsValid");
    if (before?.status !== condition.status || before?.reason !== condition.reason) {
      this.options.recorder.event(config as unknown as KubeObject, condition.status === "True" ? "Normal" : "Warning", condition.reason, condition.message);
    }
    if (!outcome.ok && outcome.transient === true) throw new Error(outcome.message);
    return { requeueAfterMs: outcome.ok ? RECHECK_MS : (outcome.retryAfterMs ?? RECHECK_MS) };
  }
}
