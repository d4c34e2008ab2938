import { describe, expect, it } from "@jest/globals";
import { EventRecorder, Store } from "@edgeconnect/runtime";
import type { LoadBalancerConfig } from "../config/cloud-config.js";
import { FINALIZER_LOAD_BALANCER_CLEANUP, type Node, type Service } from "../kube/objects.js";
import type { LoadBalancerDriver, LoadBalancerStatus, Lookup } from "./load-balancer.js";
import { serviceController } from "./service-controller.js";

const CONFIG: LoadBalancerConfig = { subnetId: "neutron-subnet", networkId: "neutron-network", bandwidthMbit: 100, availabilityZones: ["eu-de-01"] };

/** A driver whose cloud never answers: only the signal it was bound to ends a call. */
function hangingDriver(elbClass: "shared" | "dedicated", bound: AbortSignal[]): LoadBalancerDriver {
  const hang = <T>(signal: AbortSignal | undefined): Promise<T> =>
    new Promise<T>((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));
  const driver = (signal: AbortSignal | undefined): LoadBalancerDriver => ({
    elbClass,
    find: () => Promise.resolve<Lookup>({ state: "absent" }),
    ensure: () => hang<LoadBalancerStatus>(signal),
    delete: () => hang<void>(signal),
    withSignal: (next) => {
      bound.push(next);
      return driver(next);
    },
  });
  return driver(undefined);
}

describe("service controller", () => {
  it("binds each reconcile's signal into its cloud calls, so a stop ends a call the cloud never answers", async () => {
    const services = new Store<Service>();
    const nodes = new Store<Node>();
    nodes.upsert({ metadata: { name: "n1", resourceVersion: "1" }, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } });
    services.upsert({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "shop", uid: "uid-1", resourceVersion: "1", finalizers: [FINALIZER_LOAD_BALANCER_CLEANUP] },
      spec: { type: "LoadBalancer", ports: [{ name: "http", protocol: "TCP", port: 80, nodePort: 30080 }] },
    });
    const client = {
      create: <T>(_path: string, body: unknown) => Promise.resolve(body as T),
      apply: <T>(_path: string, body: unknown) => Promise.resolve(body as T),
      request: <T>() => Promise.resolve(undefined as T),
    };
    const bound: AbortSignal[] = [];
    const parts = serviceController({
      client,
      services,
      nodes,
      drivers: { shared: hangingDriver("shared", bound), dedicated: hangingDriver("dedicated", bound) },
      config: CONFIG,
      clusterName: "prod",
      recorder: new EventRecorder({ client, component: "test" }),
    });
    const stop = new AbortController();
    const running = parts.controller.start(stop.signal);
    parts.controller.enqueue({ cluster: "", namespace: "shop", name: "web" });
    for (let i = 0; i < 200 && bound.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(bound.length).toBeGreaterThan(0);
    stop.abort();
    // true: every reconcile ended after the stop, none had to be abandoned.
    await expect(running).resolves.toBe(true);
    expect(bound.every((signal) => signal.aborted)).toBe(true);
  });
});
