/**
 * The KubernetesCluster reconciler: finalizer first, then a provisioning
 * pass or a teardown pass of the cluster's provider type (OTC through
 * Crossplane, ClusterAPI from a template set), and the status either one
 * learned, also when the pass failed half-way (the error is retried with
 * backoff; the tenant reads a message safe to show).
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CLUSTER_API_STEPS, OTC_STEPS, type ClusterSteps } from "@edgeconnect/provisioning";
import { finalize, mutableCopy, tenantMessage, type ClusterScope, type DeepReadonly, type EventRecorder, type ReconcileContext, type Reconciler, type Request, type Result } from "@edgeconnect/runtime";
import { kubernetesClusterPath } from "../tenant/tenant-resources.js";
import { provisionClusterApi } from "./cluster-api-provision.js";
import { teardownClusterApi } from "./cluster-api-teardown.js";
import { releaseClusterSecrets } from "../tenant/secret-holders.js";
import { provision, type Pass, type ProvisionContext } from "./provision.js";
import { StatusReport } from "./status-report.js";
import { teardown } from "./teardown.js";

type Step = (context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport) => Promise<Result | undefined>;

/** What differs by provider type; the type is immutable, so a cluster keeps its backend for life. */
interface Backend {
  readonly steps: ClusterSteps;
  readonly provision: Step;
  readonly teardown: Step;
}

const OTC: Backend = { steps: OTC_STEPS, provision, teardown };
const CLUSTER_API: Backend = { steps: CLUSTER_API_STEPS, provision: provisionClusterApi, teardown: teardownClusterApi };

export const FINALIZER = "platform.edgeconnect.eu/provider-controller";

/** How soon a cluster is looked at again while the infrastructure does not answer: a safety net, its return wakes every cluster. */
export const UNREACHABLE_RECHECK_MS = 30_000;
/** How soon a cluster is looked at again while the infrastructure caches list after a start. */
export const LISTING_RECHECK_MS = 1_000;

export interface KubernetesClusterReconcilerOptions extends ProvisionContext {
  readonly recorder: EventRecorder;
}

export class KubernetesClusterReconciler implements Reconciler<ClusterScope> {
  constructor(private readonly options: KubernetesClusterReconcilerOptions) {}

  async reconcile(request: Request, context: ReconcileContext<ClusterScope>): Promise<Result | undefined> {
    const { scope, signal } = context;
    const cached = scope.lister(this.options.resources.clusters).get(request.namespace, request.name);
    if (cached === undefined) {
      releaseClusterSecrets(request);
      return undefined;
    }
    const kc = mutableCopy<KubernetesCluster & KubeObject>(cached);
    const pass: Pass = { request, scope, signal, writes: this.options.infra.bound(signal), log: context.log };
    const path = kubernetesClusterPath(request.namespace, request.name);
    const backend = kc.spec?.providerRef.type === "ClusterAPI" ? CLUSTER_API : OTC;
    const infrastructure = this.options.infra.availability();
    // Caches that are still listing after a start: looked at again soon, and the tenant's status left as it was.
    if (!infrastructure.available) return infrastructure.listing ? { requeueAfterMs: LISTING_RECHECK_MS } : this.unreachable(pass, kc, backend.steps, infrastructure.since);
    return finalize(
      scope.client,
      path,
      kc,
      FINALIZER,
      {
        apply: (current) => this.run(pass, current, backend.steps, async (report) => backend.provision(this.options, pass, current, report)),
        cleanup: (current) =>
          this.run(pass, current, backend.steps, async (report) => {
            const result = await backend.teardown(this.options, pass, current, report);
            context.log.info({ done: result === undefined }, "teardown pass");
            if (result === undefined) releaseClusterSecrets(request);
            return result;
          }),
      },
      { signal },
    );
  }

  /**
   * Nothing is acted on while the infrastructure cluster does not answer (or
   * its caches have not listed): the tenant is told, and is looked at again
   * soon; the infrastructure's return wakes every cluster at once.
   */
  private async unreachable(pass: Pass, kc: KubernetesCluster & KubeObject, steps: ClusterSteps, since: Date | undefined): Promise<Result> {
    const report = new StatusReport(kc, this.options.recorder, steps);
    report.infrastructureUnreachable(
      since === undefined
        ? "the platform has not reached the infrastructure your cluster runs on yet; changes wait until it does"
        : `the platform cannot reach the infrastructure your cluster runs on since ${since.toISOString().replace(/\.\d{3}Z$/, "Z")}; the cluster itself keeps running, and changes wait until the platform reaches it again`,
    );
    await report.flush(pass);
    return { requeueAfterMs: UNREACHABLE_RECHECK_MS };
  }

  /** Runs a pass and writes its status; a failed pass still reports, then fails for the retry. */
  private async run<R extends Result | undefined>(pass: Pass, kc: KubernetesCluster & KubeObject, steps: ClusterSteps, body: (report: StatusReport) => Promise<R>): Promise<R> {
    const report = new StatusReport(kc, this.options.recorder, steps);
    let result: R;
    try {
      result = await body(report);
    } catch (err) {
      if (!pass.signal.aborted && kc.metadata?.deletionTimestamp === undefined) {
        report.interrupted(tenantMessage(err));
        await report.flush(pass).catch(() => undefined);
      }
      throw err;
    }
    if (kc.metadata?.deletionTimestamp === undefined) await report.flush(pass);
    return result;
  }
}
