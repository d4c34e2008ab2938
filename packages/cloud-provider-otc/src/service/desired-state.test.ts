import { describe, expect, it } from "@jest/globals";
import type { LoadBalancerConfig } from "../config/cloud-config.js";
import type { Node, Service } from "../kube/objects.js";
import { desiredLoadBalancer, loadBalancerMembers, wantsLoadBalancer } from "./desired-state.js";

const CONFIG: LoadBalancerConfig = { subnetId: "neutron-subnet", networkId: "neutron-network", bandwidthMbit: 100, availabilityZones: ["eu-de-01"] };

function service(spec: Service["spec"], annotations: Record<string, string> = {}): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "shop", uid: "uid-1", annotations },
    spec: { type: "LoadBalancer", ...spec },
  };
}

function node(name: string, address: string | undefined, extra: Partial<Node> = {}): Node {
  return {
    metadata: { name, ...extra.metadata },
    spec: { ...extra.spec },
    status: { addresses: address === undefined ? [{ type: "Hostname", address: name }] : [{ type: "InternalIP", address }] },
  };
}

const HTTP = { name: "http", protocol: "TCP", port: 80, nodePort: 30080 } as const;
const DNS = { name: "dns", protocol: "UDP", port: 53, nodePort: 30053 } as const;

function desired(svc: Service, nodes: Node[] = [node("n1", "10.0.0.1")]) {
  const result = desiredLoadBalancer({ service: svc, nodes, clusterName: "prod", config: CONFIG });
  if ("rejected" in result) throw new Error(`unexpected rejection: ${result.rejected.message}`);
  return result.desired;
}

function rejection(svc: Service) {
  const result = desiredLoadBalancer({ service: svc, nodes: [], clusterName: "prod", config: CONFIG });
  if (!("rejected" in result)) throw new Error("expected a rejection");
  return result.rejected;
}

describe("wantsLoadBalancer", () => {
  it("takes type LoadBalancer without a loadBalancerClass only", () => {
    expect(wantsLoadBalancer(service({}))).toBe(true);
    expect(wantsLoadBalancer(service({ loadBalancerClass: "example.com/other" }))).toBe(false);
    expect(wantsLoadBalancer(service({ type: "NodePort" }))).toBe(false);
  });
});

describe("desiredLoadBalancer", () => {
  it("maps ports to listeners with TCP and UDP_CONNECT monitors, names the LB and marks ownership", () => {
    const lb = desired(service({ ports: [HTTP, DNS] }));
    expect(lb).toMatchObject({
      name: "kube_prod_shop_web",
      description: "kubernetes.io/service-uid=uid-1",
      serviceUid: "uid-1",
      elbClass: "shared",
      eip: { kind: "auto", bandwidthMbit: 100 },
      subnetId: "neutron-subnet",
      networkId: "neutron-network",
      members: [{ name: "n1", address: "10.0.0.1" }],
    });
    expect(lb.ports).toEqual([
      { protocol: "TCP", port: 80, nodePort: 30080, name: "tcp-80", sessionAffinity: false, monitor: { type: "TCP", delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
      { protocol: "UDP", port: 53, nodePort: 30053, name: "udp-53", sessionAffinity: false, monitor: { type: "UDP_CONNECT", delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    ]);
  });

  it("probes kube-proxy's health-check node port over HTTP for externalTrafficPolicy Local, except on UDP ports", () => {
    const lb = desired(service({ ports: [HTTP, DNS], externalTrafficPolicy: "Local", healthCheckNodePort: 32000 }));
    expect(lb.ports[0]?.monitor).toMatchObject({ type: "HTTP", port: 32000, urlPath: "/healthz" });
    expect(lb.ports[1]?.monitor).toEqual({ type: "UDP_CONNECT", delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 });
  });

  it("keeps client IP affinity as source-IP persistence", () => {
    expect(desired(service({ ports: [HTTP], sessionAffinity: "ClientIP" })).ports[0]?.sessionAffinity).toBe(true);
  });

  it("carries the annotations' class and EIP plan", () => {
    const lb = desired(service({ ports: [HTTP] }, { "otc.cloud/elb-class": "dedicated", "otc.cloud/elb-eip-id": "eip-1" }));
    expect(lb).toMatchObject({ elbClass: "dedicated", eip: { kind: "byo-id", id: "eip-1" } });
    expect(desired(service({ ports: [HTTP], loadBalancerIP: "80.158.1.2" })).eip).toEqual({ kind: "byo-address", address: "80.158.1.2" });
  });

  it("refuses SCTP, naming the port, instead of creating a partial load balancer", () => {
    const refused = rejection(service({ ports: [HTTP, { name: "sig", protocol: "SCTP", port: 3868, nodePort: 31000 }] }));
    expect(refused.reason).toBe("UnsupportedProtocol");
    expect(refused.message).toContain("sig 3868/SCTP");
  });

  it("refuses ports without node ports, Local without a health-check port, and no ports at all", () => {
    expect(rejection(service({ ports: [{ protocol: "TCP", port: 80 }] })).reason).toBe("MissingNodePort");
    expect(rejection(service({ ports: [HTTP], externalTrafficPolicy: "Local" })).reason).toBe("MissingHealthCheckNodePort");
    expect(rejection(service({ ports: [] })).reason).toBe("NoPorts");
  });

  it("passes annotation rejections through", () => {
    expect(rejection(service({ ports: [HTTP] }, { "otc.cloud/elb-internal": "true", "otc.cloud/elb-eip-id": "e" })).reason).toBe(
      "ContradictingAnnotations",
    );
  });
});

describe("loadBalancerMembers", () => {
  it("takes InternalIPs of nodes that are not excluded, deleted or about to be scaled away, sorted by name", () => {
    const members = loadBalancerMembers([
      node("c", "10.0.0.3"),
      node("a", "10.0.0.1"),
      node("excluded", "10.0.0.4", { metadata: { labels: { "node.kubernetes.io/exclude-from-external-load-balancers": "" } } }),
      node("deleting", "10.0.0.5", { metadata: { deletionTimestamp: "2026-11-30T00:00:00Z" } }),
      node("scaled", "10.0.0.6", { spec: { taints: [{ key: "ToBeDeletedByClusterAutoscaler", effect: "NoSchedule" }] } }),
      node("no-ip", undefined),
      node("not-ready-is-fine", "10.0.0.7", { spec: { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] } }),
    ]);
    expect(members).toEqual([
      { name: "a", address: "10.0.0.1" },
      { name: "c", address: "10.0.0.3" },
      { name: "not-ready-is-fine", address: "10.0.0.7" },
    ]);
  });
});
