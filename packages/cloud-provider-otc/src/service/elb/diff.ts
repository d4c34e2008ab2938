/**
 * What differs between the Service's ports and nodes and the listeners,
 * pools, members and health monitors an ELB has: pure functions, so every
 * rule is tested without a cloud and both ELB products share them.
 */
import type { HealthMonitorSpec, MemberSpec, PortSpec } from "../load-balancer.js";
import type { ListenerView, MemberView, MonitorSettings, MonitorView, PoolSettings, PoolView } from "./elb-api.js";

export interface ListenerDiff {
  readonly missing: readonly PortSpec[];
  /** Listeners no port asks for, and second listeners on a port. */
  readonly surplus: readonly ListenerView[];
  readonly matched: readonly { readonly port: PortSpec; readonly listener: ListenerView }[];
}

/** Listeners are identified by protocol and port; their names are not trusted. */
export function diffListeners(ports: readonly PortSpec[], listeners: readonly ListenerView[]): ListenerDiff {
  const remaining = [...listeners];
  const matched: { port: PortSpec; listener: ListenerView }[] = [];
  const missing: PortSpec[] = [];
  for (const port of ports) {
    const index = remaining.findIndex((listener) => listener.protocol === port.protocol && listener.protocol_port === port.port);
    const listener = remaining[index];
    if (listener === undefined) {
      missing.push(port);
    } else {
      matched.push({ port, listener });
      remaining.splice(index, 1);
    }
  }
  return { missing, surplus: remaining, matched };
}

/** The settings a port's pool must have. */
export function poolSettings(port: PortSpec): PoolSettings {
  return port.sessionAffinity ? { lb_algorithm: "ROUND_ROBIN", session_persistence: { type: "SOURCE_IP" } } : { lb_algorithm: "ROUND_ROBIN" };
}

export type PoolChange =
  | { readonly kind: "keep" }
  | { readonly kind: "update"; readonly settings: PoolSettings }
  /** Protocol cannot change and persistence cannot be cleared in place. */
  | { readonly kind: "replace" };

export function poolChange(port: PortSpec, pool: PoolView): PoolChange {
  if (pool.protocol !== port.protocol) return { kind: "replace" };
  const wanted = poolSettings(port);
  const wantedPersistence = wanted.session_persistence?.type;
  const persistence = pool.session_persistence?.type;
  if (wantedPersistence === undefined && persistence !== undefined) return { kind: "replace" };
  if (pool.lb_algorithm !== wanted.lb_algorithm || persistence !== wantedPersistence) return { kind: "update", settings: wanted };
  return { kind: "keep" };
}

export interface MemberDiff {
  readonly missing: readonly MemberSpec[];
  /** Members of no desired node, on an old node port, or duplicates. */
  readonly surplus: readonly MemberView[];
}

/** Members are identified by address and port: a changed node port replaces them. */
export function diffMembers(nodes: readonly MemberSpec[], nodePort: number, members: readonly MemberView[]): MemberDiff {
  const remaining = [...members];
  const missing: MemberSpec[] = [];
  for (const node of nodes) {
    const index = remaining.findIndex((member) => member.address === node.address && member.protocol_port === nodePort);
    if (index < 0) missing.push(node);
    else remaining.splice(index, 1);
  }
  return { missing, surplus: remaining };
}

/** The monitor settings a spec asks for; the URL only for HTTP. */
export function monitorSettings(spec: HealthMonitorSpec): MonitorSettings {
  return {
    delay: spec.delaySeconds,
    timeout: spec.timeoutSeconds,
    max_retries: spec.maxRetries,
    ...(spec.port === undefined ? {} : { monitor_port: spec.port }),
    ...(spec.type === "HTTP" ? { url_path: spec.urlPath ?? "/" } : {}),
  };
}

export type MonitorChange =
  | { readonly kind: "keep" }
  | { readonly kind: "create" }
  | { readonly kind: "update"; readonly settings: Partial<MonitorSettings> }
  /** The type cannot change in place, and a probe port is not reliably cleared by an update. */
  | { readonly kind: "replace" };

export function monitorChange(spec: HealthMonitorSpec, monitor: MonitorView | undefined): MonitorChange {
  if (monitor === undefined) return { kind: "create" };
  if (monitor.type !== spec.type) return { kind: "replace" };
  if (spec.port === undefined && monitor.monitor_port !== undefined && monitor.monitor_port !== null) return { kind: "replace" };
  const wanted = monitorSettings(spec);
  const changed = Object.fromEntries(
    (Object.keys(wanted) as (keyof MonitorSettings)[]).filter((key) => wanted[key] !== monitor[key]).map((key) => [key, wanted[key]]),
  ) as Partial<MonitorSettings>;
  return Object.keys(changed).length === 0 ? { kind: "keep" } : { kind: "update", settings: changed };
}
