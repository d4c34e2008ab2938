/**
 * Test support for the ELB drivers: an in-process OTC simulator on the real
 * clock with short transitions, a client that retries quickly, the driver
 * of either class, and a Service's desired LB to vary per test.
 */
import type { OtcClient } from "@edgeconnect/otc";
import type { LoadBalancer, OtcSimulator, RequestLogEntry } from "@edgeconnect/otc-simulator";
import { PROJECT, startSimulatedCloud, SUBNET } from "../../testing/simulated-cloud.fixture.js";
import type { ElbClass } from "../load-balancer-intent.js";
import { ownershipDescription } from "../load-balancer-intent.js";
import type { DesiredLoadBalancer, HealthMonitorSpec, PortSpec } from "../load-balancer.js";
import { DedicatedLoadBalancerDriver } from "./dedicated-driver.js";
import type { ElbDriver } from "./elb-driver.js";
import { SharedLoadBalancerDriver } from "./shared-driver.js";

export const UID = "5f3c1a2b-0d4e-4f60-8a7b-9c0d1e2f3a4b";
/** The client's attempts per request, so tests can exhaust them. */
export const ATTEMPTS = 3;

export interface Harness {
  readonly sim: OtcSimulator;
  readonly client: OtcClient;
  readonly driver: ElbDriver;
  /** A driver that gives up waiting quickly, for busy-LB tests. */
  readonly impatient: ElbDriver;
  /** Requests other than GET since `mark()`. */
  mutationsSince(mark: number): RequestLogEntry[];
  mark(): number;
  close(): Promise<void>;
}

export async function startHarness(elbClass: ElbClass): Promise<Harness> {
  const { sim, client, close } = await startSimulatedCloud({ transitionDelayMs: 10, retry: { attempts: ATTEMPTS, baseDelayMs: 1, maxDelayMs: 5 } });
  const driverWith = (pollTimeoutMs: number): ElbDriver =>
    elbClass === "shared"
      ? new SharedLoadBalancerDriver(client, { pollIntervalMs: 2, pollTimeoutMs })
      : new DedicatedLoadBalancerDriver(client, { pollIntervalMs: 2, pollTimeoutMs });
  return {
    sim,
    client,
    driver: driverWith(5000),
    impatient: driverWith(50),
    mark: () => sim.faults.requests.length,
    mutationsSince: (mark) => sim.faults.requests.slice(mark).filter((request) => request.method !== "GET"),
    close,
  };
}

export function tcpMonitor(overrides: Partial<HealthMonitorSpec> = {}): HealthMonitorSpec {
  return { type: "TCP", delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3, ...overrides };
}

export function port(protocol: "TCP" | "UDP", number: number, nodePort: number, overrides: Partial<PortSpec> = {}): PortSpec {
  return {
    protocol,
    port: number,
    nodePort,
    name: `${protocol.toLowerCase()}-${number}`,
    monitor: tcpMonitor({ type: protocol === "UDP" ? "UDP_CONNECT" : "TCP" }),
    sessionAffinity: false,
    ...overrides,
  };
}

export function desired(elbClass: ElbClass, overrides: Partial<DesiredLoadBalancer> = {}): DesiredLoadBalancer {
  return {
    name: "kube_test_default_web",
    description: ownershipDescription(UID),
    serviceUid: UID,
    elbClass,
    eip: { kind: "auto", bandwidthMbit: 10 },
    subnetId: SUBNET.neutronSubnetId,
    networkId: SUBNET.neutronNetworkId,
    ports: [port("TCP", 80, 30080), port("UDP", 53, 30053)],
    members: [
      { address: "192.168.0.21", name: "node-a" },
      { address: "192.168.0.22", name: "node-b" },
    ],
    ...overrides,
  };
}

/** The ELB API path of `rest` for the class, for fault matching. */
export function elbPath(elbClass: ElbClass, rest: string): string {
  return elbClass === "shared" ? `/v2.0/lbaas/${rest}` : `/v3/${PROJECT.id}/elb/${rest}`;
}

export const EIP_PATH = `/v1/${PROJECT.id}/publicips`;

/** The one LB the simulated cloud holds. */
export function theLoadBalancer(sim: OtcSimulator): LoadBalancer {
  const [found, ...more] = sim.state.loadbalancers.values();
  if (found === undefined || more.length > 0) throw new Error(`expected one load balancer, found ${sim.state.loadbalancers.size}`);
  return found;
}
