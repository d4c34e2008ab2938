/**
 * What the benchmarks share: their progress lines and, for those that run
 * the provider-controller on the Platform, the simulated cloud, how
 * much of kcp they ask at once, and how they read a KubernetesCluster's
 * state.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";

export type Cluster = KubernetesCluster & KubeObject;

/** The simulated cloud: every OTC transition takes 200 ms. */
export const OTC_DELAY_MS = 200;
/** Workspace creation is kcp's slowest step; more than a few at once only queues inside kcp. */
export const WORKSPACE_CONCURRENCY = 8;
export const ORDER_CONCURRENCY = 16;

const began = performance.now();
/** A progress line on stderr, stamped with the seconds since the benchmark started. */
export function log(message: string): void {
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(1).padStart(7)} s] ${message}\n`);
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Ready, with the kubeconfig Secret named: what a tenant waits for. */
export const isReady = (kc: Cluster | undefined): boolean =>
  kc?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true && kc.status?.kubeconfigSecretName !== undefined;

/** `phase / Ready reason` of a cluster, to say why the rest is not Ready. */
export function stateOf(kc: Cluster): string {
  const ready = kc.status?.conditions?.find((c) => c.type === "Ready");
  return `${kc.status?.phase ?? "no phase"} / ${ready?.reason ?? "no Ready condition"}`;
}
