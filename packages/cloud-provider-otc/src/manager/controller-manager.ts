/**
 * Assembles the controller manager from its parts: one Node reflector shared
 * by every controller, a Service reflector when LoadBalancer support is on,
 * the controllers `--controllers` selects, Events, metrics and probes, and
 * leader election on the Lease Kubernetes' cloud-controller-manager uses
 * (so that this one and a Go CCM can never both act on one cluster).
 *
 * Owns wiring only; each controller owns its logic.
 */
import type { RestClient } from "@edgeconnect/kcp-ts";
import type { OtcClient } from "@edgeconnect/otc";
import {
  combineHandlers,
  EventRecorder,
  leaseElection,
  leaseTimings,
  Reflector,
  RuntimeMetrics,
  runManager,
  Store,
  type Controller,
  type ControllerLogger,
  type EventHandlers,
  type Source,
} from "@edgeconnect/runtime";
import type { CcmFlags } from "../cli/flags.js";
import { effectiveClusterName, type CloudConfig } from "../config/cloud-config.js";
import { OtcInstances } from "../instances/instances.js";
import { NODES_PATH, SERVICES_PATH, type Node, type Service } from "../kube/objects.js";
import { cloudNodeController } from "../node/cloud-node-controller.js";
import { cloudNodeLifecycleController } from "../node/cloud-node-lifecycle-controller.js";
import { DedicatedLoadBalancerDriver } from "../service/elb/dedicated-driver.js";
import { SharedLoadBalancerDriver } from "../service/elb/shared-driver.js";
import { serviceController } from "../service/service-controller.js";

export const COMPONENT = "cloud-controller-manager";

export interface ControllerManagerOptions {
  readonly flags: CcmFlags;
  readonly cloudConfig: CloudConfig;
  /** The workload cluster. */
  readonly kube: RestClient;
  /** Project-scoped. */
  readonly otc: OtcClient;
  readonly logger: ControllerLogger;
  /** Lease holder identity and Event reporting instance: host name plus a random suffix. */
  readonly identity: string;
  readonly metrics?: RuntimeMetrics;
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
}

/** Runs until `signal` aborts; rejects with LeadershipLostError when the Lease is lost. */
export async function runControllerManager(options: ControllerManagerOptions, signal: AbortSignal): Promise<void> {
  const { flags, cloudConfig, kube, logger } = options;
  const metrics = options.metrics ?? new RuntimeMetrics();
  const recorder = new EventRecorder({ client: kube, component: COMPONENT, instance: options.identity, logger });
  const nodes = new Store<Node>();
  const nodeHandlers: EventHandlers<Node>[] = [];
  const controllers: Controller[] = [];
  const sources: Record<string, Source> = {};

  const nodeOptions = {
    client: kube,
    nodes,
    instances: new OtcInstances(options.otc, cloudConfig.global.region),
    recorder,
    logger,
    metrics,
    nodeMonitorPeriodMs: flags.nodeMonitorPeriodMs,
    nodeStatusUpdateFrequencyMs: flags.nodeStatusUpdateFrequencyMs,
  };
  if (flags.controllers.has("cloud-node")) {
    const part = cloudNodeController(nodeOptions);
    controllers.push(part.controller);
    nodeHandlers.push(part.handlers);
  }
  if (flags.controllers.has("cloud-node-lifecycle")) {
    const part = cloudNodeLifecycleController(nodeOptions);
    controllers.push(part.controller);
    nodeHandlers.push(part.handlers);
  }
  if (flags.routeRequested) logger.info({}, "route controller requested: routes are left to the CNI on OTC; not running it");

  const lbConfig = cloudConfig.loadBalancer;
  if (flags.controllers.has("service") && lbConfig === undefined) {
    logger.warn({}, "LoadBalancer support is off: cloud.conf has no [LoadBalancer] subnet-id; Services of type LoadBalancer stay pending");
  }
  if (flags.controllers.has("service") && lbConfig !== undefined) {
    const services = new Store<Service>();
    const clusterName = effectiveClusterName(cloudConfig, flags.clusterName);
    const part = serviceController({
      client: kube,
      services,
      nodes,
      drivers: {
        shared: new SharedLoadBalancerDriver(options.otc),
        dedicated: new DedicatedLoadBalancerDriver(options.otc, { availabilityZones: lbConfig.availabilityZones }),
      },
      config: lbConfig,
      clusterName,
      recorder,
      logger,
      metrics,
      concurrentServiceSyncs: flags.concurrentServiceSyncs,
    });
    logger.info({ clusterName }, "LoadBalancer support on");
    controllers.push(part.controller);
    nodeHandlers.push(part.nodeHandlers);
    sources.services = new Reflector<Service>({ client: kube, path: SERVICES_PATH, store: services, handlers: part.serviceHandlers, logger });
  }
  sources.nodes = new Reflector<Node>({ client: kube, path: NODES_PATH, store: nodes, handlers: combineHandlers(...nodeHandlers), logger });

  try {
    await runManager(
      {
        flags,
        metrics,
        sources,
        controllers,
        ...(flags.leaderElect
          ? {
              leaderElector: leaseElection({
                client: kube,
                namespace: flags.leaderElectNamespace,
                name: flags.leaderElectName,
                identity: options.identity,
                metrics,
                logger,
                ...leaseTimings(flags),
              }),
            }
          : {}),
        ...(options.onListening ? { onListening: options.onListening } : {}),
      },
      signal,
    );
  } finally {
    await recorder.flush();
  }
}
