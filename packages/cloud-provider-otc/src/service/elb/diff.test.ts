import { describe, expect, it } from "@jest/globals";
import { diffListeners, diffMembers, monitorChange, monitorSettings, poolChange, poolSettings } from "./diff.js";
import type { ListenerView, MemberView, MonitorView, PoolView } from "./elb-api.js";
import { port, tcpMonitor } from "./elb-test.fixture.js";

const listener = (id: string, protocol: string, protocol_port: number): ListenerView => ({ id, protocol, protocol_port, default_pool_id: null });
const member = (id: string, address: string, protocol_port: number): MemberView => ({ id, address, protocol_port });
const pool = (overrides: Partial<PoolView> = {}): PoolView => ({
  id: "p",
  protocol: "TCP",
  lb_algorithm: "ROUND_ROBIN",
  session_persistence: null,
  healthmonitor_id: null,
  listeners: [],
  ...overrides,
});
const monitor = (overrides: Partial<MonitorView> = {}): MonitorView => ({ id: "m", type: "TCP", delay: 5, timeout: 3, max_retries: 3, ...overrides });

describe("diffListeners", () => {
  it("matches by protocol and port, not by name", () => {
    const tcp80 = port("TCP", 80, 30080);
    const udp80 = port("UDP", 80, 30081);
    const diff = diffListeners([tcp80, udp80], [listener("a", "TCP", 80), listener("b", "TCP", 443)]);
    expect(diff.matched).toEqual([{ port: tcp80, listener: listener("a", "TCP", 80) }]);
    expect(diff.missing).toEqual([udp80]);
    expect(diff.surplus).toEqual([listener("b", "TCP", 443)]);
  });

  it("treats a second listener on the same protocol and port as surplus", () => {
    const diff = diffListeners([port("TCP", 80, 30080)], [listener("a", "TCP", 80), listener("b", "TCP", 80)]);
    expect(diff.matched.map((match) => match.listener.id)).toEqual(["a"]);
    expect(diff.surplus.map((surplus) => surplus.id)).toEqual(["b"]);
  });
});

describe("poolChange", () => {
  it("keeps a fitting pool", () => {
    expect(poolChange(port("TCP", 80, 1), pool())).toEqual({ kind: "keep" });
  });

  it("replaces a pool of the wrong protocol, or one whose persistence must be cleared", () => {
    expect(poolChange(port("UDP", 80, 1), pool())).toEqual({ kind: "replace" });
    expect(poolChange(port("TCP", 80, 1), pool({ session_persistence: { type: "SOURCE_IP" } }))).toEqual({ kind: "replace" });
  });

  it("updates the algorithm and adds SOURCE_IP persistence in place", () => {
    const affinity = port("TCP", 80, 1, { sessionAffinity: true });
    expect(poolSettings(affinity)).toEqual({ lb_algorithm: "ROUND_ROBIN", session_persistence: { type: "SOURCE_IP" } });
    expect(poolChange(affinity, pool())).toEqual({ kind: "update", settings: poolSettings(affinity) });
    expect(poolChange(port("TCP", 80, 1), pool({ lb_algorithm: "LEAST_CONNECTIONS" }))).toEqual({
      kind: "update",
      settings: { lb_algorithm: "ROUND_ROBIN" },
    });
  });
});

describe("diffMembers", () => {
  const nodes = [
    { address: "10.0.0.1", name: "a" },
    { address: "10.0.0.2", name: "b" },
  ];

  it("adds missing nodes and removes others, old node ports and duplicates", () => {
    const diff = diffMembers(nodes, 30080, [member("1", "10.0.0.1", 30080), member("2", "10.0.0.1", 30080), member("3", "10.0.0.2", 30999), member("4", "10.0.0.9", 30080)]);
    expect(diff.missing).toEqual([{ address: "10.0.0.2", name: "b" }]);
    expect(diff.surplus.map((surplus) => surplus.id)).toEqual(["2", "3", "4"]);
  });

  it("finds nothing to do when members match", () => {
    expect(diffMembers(nodes, 1, [member("1", "10.0.0.2", 1), member("2", "10.0.0.1", 1)])).toEqual({ missing: [], surplus: [] });
  });
});

describe("monitorChange", () => {
  const http = tcpMonitor({ type: "HTTP", port: 32000, urlPath: "/healthz" });

  it("asks for the spec's settings, the URL only for HTTP", () => {
    expect(monitorSettings(tcpMonitor())).toEqual({ delay: 5, timeout: 3, max_retries: 3 });
    expect(monitorSettings(http)).toEqual({ delay: 5, timeout: 3, max_retries: 3, monitor_port: 32000, url_path: "/healthz" });
  });

  it("creates a missing monitor and keeps a matching one", () => {
    expect(monitorChange(tcpMonitor(), undefined)).toEqual({ kind: "create" });
    expect(monitorChange(tcpMonitor(), monitor({ monitor_port: null, url_path: "/" }))).toEqual({ kind: "keep" });
    expect(monitorChange(http, monitor({ type: "HTTP", monitor_port: 32000, url_path: "/healthz" }))).toEqual({ kind: "keep" });
  });

  it("updates only the differing settings in place", () => {
    expect(monitorChange(http, monitor({ type: "HTTP", delay: 10, monitor_port: 31000, url_path: "/healthz" }))).toEqual({
      kind: "update",
      settings: { delay: 5, monitor_port: 32000 },
    });
  });

  it("replaces a monitor of another type, or one with a probe port the spec no longer has", () => {
    expect(monitorChange(tcpMonitor(), monitor({ type: "HTTP" }))).toEqual({ kind: "replace" });
    expect(monitorChange(tcpMonitor(), monitor({ monitor_port: 32000 }))).toEqual({ kind: "replace" });
  });
});
