/**
 * The service controller: keeps one OTC ELB per `type: LoadBalancer` Service
 * in step with the Service and the nodes, as k8s.io/cloud-provider's service
 * controller does for any cloud.
 *
 * Per reconcile (level-triggered; the cluster and OTC are the only state):
 * 1. Cleanup when the Service carries the cleanup finalizer and is being
 *    deleted or no longer wants a load balancer: delete the LB in whichever
 *    class owns it, clear the ingress, drop the finalizer.
 * 2. Compute the desired LB; a Service asking for something OTC cannot do
 *    gets a Warning event and nothing changes in OTC.
 * 3. Refuse a class change: an LB of the other class owned by this Service
 *    stays as it is until the Service is recreated.
 * 4. Add the finalizer *before* creating anything, so that no LB can outlive
 *    its Service; ensure the LB; patch `status.loadBalancer.ingress` only
 *    when it differs.
 * Successful syncs come back every resync period, so members and monitors
 * lost on the OTC side are repaired without any Kubernetes event.
 */
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import {
  Controller,
  ensureFinalizer,
  hasFinalizer,
  mutableCopy,
  removeFinalizer,
  requestFor,
  requestKey,
  TerminalError,
  type ControllerLogger,
  type DeepReadonly,
  type EventHandlers,
  type EventRecorder,
  type ReconcileContext,
  type Request,
  type Result,
  type RuntimeMetrics,
  type Store,
} from "@edgeconnect/runtime";
import type { LoadBalancerConfig } from "../config/cloud-config.js";
import { FINALIZER_LOAD_BALANCER_CLEANUP, servicePath, type LoadBalancerIngress, type Node, type Service } from "../kube/objects.js";
import { desiredLoadBalancer, loadBalancerMembers, wantsLoadBalancer } from "./desired-state.js";
import { ForeignLoadBalancerError, type LoadBalancerDriver, type LoadBalancerStatus } from "./load-balancer.js";
import { loadBalancerName, type ElbClass } from "./load-balancer-intent.js";

export const SERVICE_CONTROLLER_NAME = "service";

export interface ServiceControllerOptions {
  /** The workload cluster. */
  readonly client: Pick<RestClient, "request" | "apply">;
  /** Filled by a Service reflector the caller owns. */
  readonly services: Store<Service>;
  /** Filled by a Node reflector the caller owns. */
  readonly nodes: Store<Node>;
  readonly drivers: Readonly<Record<ElbClass, LoadBalancerDriver>>;
  readonly config: LoadBalancerConfig;
  /** The effective cluster name in LB names (cloud.conf's, else --cluster-name). */
  readonly clusterName: string;
  readonly recorder: EventRecorder;
  readonly logger?: ControllerLogger;
  readonly metrics?: RuntimeMetrics;
  /** --concurrent-service-syncs; default 1, as Kubernetes'. */
  readonly concurrentServiceSyncs?: number;
  /** How often an in-sync Service is checked against OTC again; default 10 minutes. */
  readonly resyncPeriodMs?: number;
}

export interface ServiceControllerParts {
  readonly controller: Controller;
  readonly serviceHandlers: EventHandlers<Service>;
  readonly nodeHandlers: EventHandlers<Node>;
}

export function serviceController(options: ServiceControllerOptions): ServiceControllerParts {
  const reconciler = new ServiceReconciler(options);
  const controller = new Controller({
    name: SERVICE_CONTROLLER_NAME,
    reconciler,
    maxConcurrentReconciles: options.concurrentServiceSyncs ?? 1,
    // One workload cluster is one tenant: every worker may serve it.
    maxInFlightPerTenant: options.concurrentServiceSyncs ?? 1,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const ours = (service: DeepReadonly<Service>): boolean => wantsLoadBalancer(service) || hasFinalizer(service, FINALIZER_LOAD_BALANCER_CLEANUP);
  const enqueue = (service: DeepReadonly<Service>): void => {
    if (ours(service)) controller.enqueue(requestFor(service));
  };
  const enqueueAll = (): void => {
    for (const service of options.services.list()) enqueue(service);
  };
  return {
    controller,
    serviceHandlers: {
      added: enqueue,
      // The controller's own status patches come back as updates; only what it reads counts.
      updated: (old, current) => {
        if (specOrMetaChanged(old, current)) enqueue(current);
      },
      deleted: enqueue,
    },
    nodeHandlers: {
      added: enqueueAll,
      updated: (old, current) => {
        if (memberView(old) !== memberView(current)) enqueueAll();
      },
      deleted: enqueueAll,
    },
  };
}

/** One reconcile's signal, and the drivers bound to it. */
interface Call {
  readonly signal: AbortSignal;
  readonly drivers: Readonly<Record<ElbClass, LoadBalancerDriver>>;
}

class ServiceReconciler {
  private readonly resyncPeriodMs: number;
  /**
   * The desired LB last ensured per Service, only to keep periodic resyncs
   * that change nothing from emitting the same two events every period. A
   * restart forgets it and costs one more pair of events, nothing else.
   */
  private readonly ensured = new Map<string, string>();

  constructor(private readonly options: ServiceControllerOptions) {
    this.resyncPeriodMs = options.resyncPeriodMs ?? 600_000;
  }

  async reconcile(request: Request, { signal }: ReconcileContext): Promise<Result | undefined> {
    const key = requestKey(request);
    const cached = this.options.services.get(key);
    if (cached === undefined) {
      this.ensured.delete(key);
      return undefined;
    }
    // The reconcile's own copy, as controller-runtime's cache reader hands out: the cache is shared and frozen.
    const service = mutableCopy(cached);
    // Every call of this reconcile, to OTC and to the cluster, ends with its signal.
    const call: Call = {
      signal,
      drivers: { shared: this.options.drivers.shared.withSignal(signal), dedicated: this.options.drivers.dedicated.withSignal(signal) },
    };
    if (service.metadata?.deletionTimestamp === undefined && wantsLoadBalancer(service)) return this.sync(key, service, call);
    this.ensured.delete(key);
    if (hasFinalizer(service, FINALIZER_LOAD_BALANCER_CLEANUP)) await this.cleanup(service, call);
    return undefined;
  }

  private async sync(key: string, service: Service, { signal, drivers }: Call): Promise<Result | undefined> {
    const { options } = this;
    const computed = desiredLoadBalancer({ service, nodes: options.nodes.list(), clusterName: options.clusterName, config: options.config });
    if ("rejected" in computed) {
      this.warn(service, `${computed.rejected.message} (${computed.rejected.reason}); the load balancer was not changed`);
      throw new TerminalError(computed.rejected.message);
    }
    const desired = computed.desired;
    const otherClass: ElbClass = desired.elbClass === "shared" ? "dedicated" : "shared";
    const other = await drivers[otherClass].find(desired.name, desired.serviceUid);
    if (other.state === "owned") {
      this.warn(
        service,
        `changing otc.cloud/elb-class from ${otherClass} to ${desired.elbClass} is not supported; the ${otherClass} load balancer stays unchanged. ` +
          `Restore the annotation, or delete and recreate the Service to switch class`,
      );
      throw new TerminalError(`class change ${otherClass} → ${desired.elbClass} refused`);
    }

    const withFinalizer = await ensureFinalizer(options.client, this.path(service), service, FINALIZER_LOAD_BALANCER_CLEANUP, { signal });
    const fingerprint = JSON.stringify(desired);
    const news = this.ensured.get(key) !== fingerprint;
    this.ensured.delete(key);
    if (news) options.recorder.event(service, "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
    let status: LoadBalancerStatus;
    try {
      status = await drivers[desired.elbClass].ensure(desired);
    } catch (err) {
      this.warn(service, `Error syncing load balancer: ${messageOf(err)}`);
      if (err instanceof ForeignLoadBalancerError) return { requeueAfterMs: this.resyncPeriodMs };
      throw err;
    }
    if (news && desired.members.length === 0) {
      options.recorder.event(service, "Warning", "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer");
    }
    await this.patchIngress(withFinalizer, status.ingress, signal);
    if (news) options.recorder.event(service, "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
    this.ensured.set(key, fingerprint);
    return { requeueAfterMs: this.resyncPeriodMs };
  }

  private async cleanup(service: Service, { signal, drivers }: Call): Promise<void> {
    const { options } = this;
    const name = loadBalancerName(options.clusterName, service.metadata?.namespace ?? "", service.metadata?.name ?? "");
    const uid = service.metadata?.uid ?? "";
    options.recorder.event(service, "Normal", "DeletingLoadBalancer", "Deleting load balancer");
    try {
      // The class annotation may have changed since creation: both products are asked.
      for (const driver of Object.values(drivers)) await driver.delete(name, uid);
    } catch (err) {
      this.warn(service, `Error deleting load balancer: ${messageOf(err)}`);
      throw err;
    }
    const cleared = await this.patchIngress(service, [], signal);
    await removeFinalizer(options.client, this.path(service), cleared, FINALIZER_LOAD_BALANCER_CLEANUP, { signal });
    options.recorder.event(service, "Normal", "DeletedLoadBalancer", "Deleted load balancer");
  }

  /** Patches only a changed ingress; returns the Service as it now is. */
  private async patchIngress(service: Service, ingress: readonly LoadBalancerIngress[], signal: AbortSignal): Promise<Service> {
    const current = service.status?.loadBalancer?.ingress ?? [];
    if (sameIngress(current, ingress)) return service;
    return this.options.client.request<Service>("PATCH", `${this.path(service)}/status`, {
      body: { status: { loadBalancer: { ingress: ingress.length === 0 ? null : ingress } } },
      contentType: "application/merge-patch+json",
      signal,
    });
  }

  private path(service: Service): string {
    return servicePath(service.metadata?.namespace ?? "", service.metadata?.name ?? "");
  }

  private warn(service: Service, message: string): void {
    this.options.recorder.event(service, "Warning", "SyncLoadBalancerFailed", message);
  }
}

function sameIngress(a: readonly LoadBalancerIngress[], b: readonly LoadBalancerIngress[]): boolean {
  const key = (list: readonly LoadBalancerIngress[]): string => JSON.stringify(list.map((entry) => [entry.ip ?? "", entry.hostname ?? ""]));
  return key(a) === key(b);
}

function specOrMetaChanged(old: DeepReadonly<KubeObject>, current: DeepReadonly<KubeObject>): boolean {
  const view = (obj: DeepReadonly<KubeObject>): string => {
    const { annotations, finalizers, deletionTimestamp, uid } = obj.metadata ?? {};
    return JSON.stringify([obj.spec, annotations, finalizers, deletionTimestamp, uid]);
  };
  return view(old) !== view(current);
}

/** What of a node matters to load balancers: whether and at which address it is a member. */
function memberView(node: DeepReadonly<Node>): string {
  return JSON.stringify(loadBalancerMembers([node]));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
