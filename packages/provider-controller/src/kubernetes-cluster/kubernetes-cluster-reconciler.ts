/**
 * The KubernetesCluster reconciler: finalizer first, then a provisioning
 * pass or a teardown pass, and the status either one learned, also when
 * the pass failed half-way (the error is retried with backoff; the tenant
 * reads a message safe to show).
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { finalize, mutableCopy, tenantMessage, type ClusterScope, type EventRecorder, type ReconcileContext, type Reconciler, type Request, type Result } from "@edgeconnect/runtime";
import { kubernetesClusterPath } from "../tenant/tenant-resources.js";
import { provision, type Pass, type ProvisionContext } from "./provision.js";
import { StatusReport } from "./status-report.js";
import { teardown } from "./teardown.js";

export const FINALIZER = "platform.edgeconnect.eu/provider-controller";

export interface KubernetesClusterReconcilerOptions extends ProvisionContext {
  readonly recorder: EventRecorder;
}

export class KubernetesClusterReconciler implements Reconciler<ClusterScope> {
  constructor(private readonly options: KubernetesClusterReconcilerOptions) {}

  async reconcile(request: Request, context: ReconcileContext<ClusterScope>): Promise<Result | undefined> {
    const { scope, signal } = context;
    const cached = scope.lister(this.options.resources.clusters).get(request.namespace, request.name);
    if (cached === undefined) return undefined;
    const kc = mutableCopy<KubernetesCluster & KubeObject>(cached);
    const pass: Pass = { request, scope, signal, writes: this.options.infra.bound(signal) };
    const path = kubernetesClusterPath(request.namespace, request.name);
    return finalize(
      scope.client,
      path,
      kc,
      FINALIZER,
      {
        apply: (current) => this.run(pass, current, async (report) => provision(this.options, pass, current, report)),
        cleanup: (current) =>
          this.run(pass, current, async (report) => {
            const result = await teardown(this.options, pass, current, report);
            context.log.info({ done: result === undefined }, "teardown pass");
            return result;
          }),
      },
      { signal },
    );
  }

  /** Runs a pass and writes its status; a failed pass still reports, then fails for the retry. */
  private async run<R extends Result | undefined>(pass: Pass, kc: KubernetesCluster & KubeObject, body: (report: StatusReport) => Promise<R>): Promise<R> {
    const report = new StatusReport(kc, this.options.recorder);
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
