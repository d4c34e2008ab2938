/**
 * What the benchmark and a side under test in its own process
 * (side-child.ts: our controller, or the bare client) tell each other over
 * Node's IPC channel, and how the child gets its configuration (one JSON
 * environment variable). Shared by both ends so they cannot drift apart; the
 * Go peer speaks the same messages as JSON lines on stdin and stdout.
 *
 * Times cross the process boundary as epoch milliseconds
 * (`performance.timeOrigin + performance.now()`); each side converts them to
 * its own `performance.now()` scale.
 */
import { performance } from "node:perf_hooks";

/** The environment variable that carries the child's `ChildConfig` as JSON. */
export const CHILD_CONFIG_ENV = "RUNTIME_BENCH_CHILD";

/**
 * Widgets with this label are the noisy tenants': the child's reconciler
 * waits `noisyReconcileMs` and then fails for them, every time.
 */
export const NOISY_LABEL = "bench.edgeconnect.eu/noisy";

/** Our controller on the runtime. */
export interface OursConfig {
  readonly side: "ours";
  /** Admin kubeconfig of the kcp under test. */
  readonly kubeconfig: string;
  /** Workspace path of the provider that exports widgets. */
  readonly provider: string;
  readonly workers: number;
  /** Undefined: the Controller's default. */
  readonly maxInFlightPerTenant: number | undefined;
  readonly noisyReconcileMs: number;
}

/** The ceiling: bare-client.ts. */
export interface BareConfig {
  readonly side: "bare";
  readonly kubeconfig: string;
  /** The export's virtual-workspace URL. */
  readonly endpoint: string;
  readonly workers: number;
}

export type ChildConfig = OursConfig | BareConfig;

/**
 * The Go peer (scripts/binaries/widget-controller-go): a binary of its own,
 * configured by flags, that speaks these messages as JSON lines (parent
 * messages on its stdin, child messages on its stdout) instead of IPC.
 */
export interface GoPeerConfig {
  readonly side: "go";
  readonly binary: string;
  readonly kubeconfig: string;
  readonly provider: string;
  readonly workers: number;
  readonly noisyReconcileMs: number;
}

/** Whatever runs as a side: a Node child (side-child.ts) or the Go peer. */
export type SideConfig = ChildConfig | GoPeerConfig;

/** A status write: the widget's key (`cluster|namespace/name`), the color it observed, and when. */
export type Reconciled = readonly [key: string, observed: string, at: number];

export interface ChildStats {
  readonly heapUsedBytes: number;
  /** Ours: controller_runtime_reconcile_total by result; empty for the bare client. */
  readonly reconcileResults: Record<string, number>;
  /** Ours: reconciles of noisy widgets started (each one fails). */
  readonly noisyAttempts: number;
  /** The bare client's watch failures that forced a re-watch. */
  readonly watchErrors: number;
}

export type ChildMessage =
  | { readonly type: "ready" }
  /** Ours: the source has synced. The bare client: it has listed and watches. */
  | { readonly type: "synced"; readonly at: number }
  | { readonly type: "reconciled"; readonly batch: readonly Reconciled[] }
  | ({ readonly type: "stats" } & ChildStats);

export type ParentMessage = { readonly type: "start" } | { readonly type: "stats" } | { readonly type: "stop" };

/** Now, as epoch milliseconds with sub-millisecond precision. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** An epoch time from the other process on this process's `performance.now()` scale. */
export function fromEpoch(epochMs: number): number {
  return epochMs - performance.timeOrigin;
}

export function readChildConfig(env: NodeJS.ProcessEnv): ChildConfig {
  const text = env[CHILD_CONFIG_ENV];
  if (text === undefined) throw new Error(`${CHILD_CONFIG_ENV} is not set: this process is started by runtime-bench.js`);
  return JSON.parse(text) as ChildConfig;
}
