/**
 * The orphan audit's loop: infrastructure whose KubernetesCluster is gone
 * without its teardown (a finalizer removed by hand, a workspace force
 * deleted, a bug) is reported with a Warning Event on the object and the
 * `edgeconnect_orphaned_infrastructure` gauge, and with `teardown` deleted
 * as teardown would (orphans.ts decides what).
 *
 * Each audit lists our objects on the infrastructure cluster from the API
 * server (in pages, each call with its deadline), then finds out whether each owner still exists: from the cache
 * where it shows the owner, else by asking the owner's workspace live, a few
 * calls at a time (owner-presence.ts). It decides nothing while the
 * APIExport source has not synced every shard, and an owner counts as absent
 * only on a 404 naming the cluster itself, from a workspace that binds the
 * export: every other answer, a timeout, and a workspace this controller
 * does not serve (its binding may be gone, or it may be another
 * controller's: not cheaply told apart) count as unknown, which is never an
 * orphan. Every call has a deadline.
 *
 * Runs on the leader only (provider-manager.ts): the one instance that
 * writes. Sharded, every replica audits the tenants whose slot it holds
 * (`serves`), asked again before each deletion: a slot may move while an
 * audit runs.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { MANAGED_BY, MANAGED_BY_LABEL, TENANT_NAMESPACE_PREFIX } from "@edgeconnect/provisioning";
import type { ApiExportSource, ControllerLogger, EventRecorder, WatchedResource } from "@edgeconnect/runtime";
import { kindPath, NAMESPACES } from "../infrastructure/infrastructure-cluster.js";
import type { ProviderMetrics } from "../metrics/provider-metrics.js";
import { AUDITED_KINDS, decide, owners, workspaces, type AuditDecision, type Deletion, type Listed, type Orphan } from "./orphans.js";
import { ownerPresence } from "./owner-presence.js";

/** Deadline of each call the audit makes. */
export const AUDIT_CALL_TIMEOUT_MS = 10_000;
/** How soon a teardown in progress is looked at again, at most: each stage waits for the one before to be gone. */
export const TEARDOWN_POLL_MS = 15_000;
/** How soon an audit skipped for an unsynced source is tried again, at most. */
export const SYNC_RETRY_MS = 5_000;

export const ORPHAN_REASON = "OrphanedInfrastructure";

export interface OrphanAuditOptions {
  readonly source: Pick<ApiExportSource, "hasSynced" | "scopeFor" | "boundClusters">;
  /** The watched KubernetesClusters: an owner the cache shows is present without asking kcp. */
  readonly clusters: WatchedResource<KubeObject>;
  /** The infrastructure cluster. */
  readonly infra: RestClient;
  readonly recorder: Pick<EventRecorder, "event">;
  readonly metrics: Pick<ProviderMetrics, "setOrphans">;
  readonly intervalMs: number;
  readonly teardown: boolean;
  readonly logger: ControllerLogger;
  readonly callTimeoutMs?: number;
  /** Whether this replica audits a tenant (by fingerprint) now; default every tenant. */
  readonly serves?: (tenant: string) => boolean;
}

export class OrphanAudit {
  /** Orphans the last completed audit found: teardown acts only on what it finds again. */
  private previous = new Set<string>();
  /** Orphans an Event was recorded for; one is forgotten once it is no orphan any more (gone, or its cluster back). */
  private reported = new Set<string>();

  constructor(private readonly options: OrphanAuditOptions) {}

  /**
   * Audits every `intervalMs` until `signal` aborts: sooner while a teardown
   * is under way, and soon again when the source had not synced (as at start).
   */
  async run(signal: AbortSignal): Promise<void> {
    const { intervalMs } = this.options;
    while (!signal.aborted) {
      let delay = intervalMs;
      try {
        const decision = await this.audit(signal);
        if (decision === undefined) delay = Math.min(intervalMs, SYNC_RETRY_MS);
        else if (decision.pending) delay = Math.min(intervalMs, TEARDOWN_POLL_MS);
      } catch (err) {
        if (!signal.aborted) this.options.logger.warn({ err }, "orphan audit failed; nothing was decided");
      }
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One audit; undefined when the source had not synced, and nothing was decided. */
  async audit(signal: AbortSignal): Promise<AuditDecision | undefined> {
    const { source, logger } = this.options;
    if (!source.hasSynced) {
      logger.debug({}, "orphan audit skipped: the APIExport source has not synced every shard");
      return undefined;
    }
    const infra = this.options.infra.withTimeout(this.timeoutMs).withSignal(signal);
    const labelSelector = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
    const owned: Listed[] = (
      await Promise.all(AUDITED_KINDS.map(async (kind) => (await infra.listAll<KubeObject>(kindPath(kind), { query: { labelSelector } })).map((obj) => ({ kind, obj }))))
    ).flat().filter(({ obj }) => this.serves(obj.metadata?.namespace));
    const namespaces = (await infra.listAll<KubeObject>(kindPath(NAMESPACES), { query: { labelSelector } })).filter((ns) => this.serves(ns.metadata?.name));
    const { clusters, workspaces: present, asked } = await ownerPresence(
      owners(owned),
      workspaces(namespaces),
      { source, clusters: this.options.clusters, bound: new Set(source.boundClusters()), timeoutMs: this.timeoutMs, logger },
      signal,
    );
    // A shard that left while we asked may have answered for a workspace it no longer serves.
    if (!source.hasSynced) {
      logger.info({}, "orphan audit dropped: the APIExport source lost a shard while it ran");
      return undefined;
    }

    const decision = decide({ owned, namespaces, clusters, workspaces: present, previous: this.previous, teardown: this.options.teardown });
    this.options.metrics.setOrphans(decision.counts);
    this.report(decision.orphans);
    this.previous = new Set(decision.orphans.map((orphan) => orphan.key));
    const unknown = [...clusters.values(), ...present.values()].filter((presence) => presence === "unknown").length;
    logger.info({ objects: owned.length + namespaces.length, asked, orphans: decision.orphans.length, unknown, deletions: decision.deletions.length }, "orphan audit done");
    for (const deletion of decision.deletions) if (this.serves(deletion.namespace ?? deletion.name)) await this.delete(infra, deletion);
    return decision;
  }

  private get timeoutMs(): number {
    return this.options.callTimeoutMs ?? AUDIT_CALL_TIMEOUT_MS;
  }

  /** Whether the tenant namespace `namespace` (`kcp-<fingerprint>`) is this replica's to audit now. */
  private serves(namespace: string | undefined): boolean {
    if (this.options.serves === undefined) return true;
    return namespace?.startsWith(TENANT_NAMESPACE_PREFIX) === true && this.options.serves(namespace.slice(TENANT_NAMESPACE_PREFIX.length));
  }

  private report(orphans: readonly Orphan[]): void {
    const current = new Set(orphans.map((orphan) => orphan.key));
    for (const key of this.reported) if (!current.has(key)) this.reported.delete(key);
    for (const orphan of orphans) {
      if (this.reported.has(orphan.key)) continue;
      this.reported.add(orphan.key);
      this.options.recorder.event({ ...orphan.obj, apiVersion: orphan.kind.apiVersion, kind: orphan.kind.kind } as KubeObject, "Warning", ORPHAN_REASON, this.message(orphan));
    }
  }

  private message(orphan: Orphan): string {
    const owner = "name" in orphan.owner ? `KubernetesCluster ${orphan.owner.namespace}/${orphan.owner.name} of logical cluster ${orphan.owner.cluster} it was made for is gone` : `logical cluster ${orphan.owner.cluster} has no KubernetesCluster left`;
    const action = this.options.teardown ? "it is deleted as teardown would" : "delete it, or run the provider-controller with --orphan-teardown";
    return `the ${owner}; ${action}`;
  }

  private async delete(infra: RestClient, deletion: Deletion): Promise<void> {
    const path = kindPath(deletion.kind, deletion.namespace, deletion.name);
    try {
      // By uid: an object made again under the name since it was listed is not the orphan.
      await infra.delete(path, { body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background", ...(deletion.uid === undefined ? {} : { preconditions: { uid: deletion.uid } }) } });
      this.options.logger.info({ kind: deletion.kind.kind, namespace: deletion.namespace, name: deletion.name }, "orphan audit deleted an orphan");
    } catch (err) {
      // Secrets are deleted by name in case they are there; a later audit retries the rest.
      if (err instanceof HttpStatusError && err.status === 404) return;
      this.options.logger.warn({ err, kind: deletion.kind.kind, namespace: deletion.namespace, name: deletion.name }, "orphan audit could not delete an orphan");
    }
  }
}
