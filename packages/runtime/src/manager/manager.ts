/**
 * Runs a controller process: the metrics and probe servers, the sources
 * (reflectors and fan-ins), and the controllers, behind leader election when
 * asked. Owns start-up order and shutdown; owns no controller logic.
 *
 * Order: servers first (so liveness answers at once), then the sources
 * (caches warm up on every replica, leader or not, which makes a take-over
 * fast), then, once every source but the optional ones has synced, the controllers (only on the
 * leader with --leader-elect; beside their tenant shards when sharded, since
 * a shard won resyncs from the caches): a reconcile never reads a cache that is still
 * listing, where a missing object would look deleted (controller-runtime's
 * WaitForCacheSync). `/readyz` passes once every source has synced.
 * Shutdown reverses it: controllers drain (bounded by their drain timeout),
 * sources stop, servers close, the Lease is released.
 *
 * A leader that loses its Lease aborts its controllers' reconciles and
 * `runManager` rejects with LeadershipLostError at once, without waiting for
 * them to drain (controller-runtime skips its graceful shutdown then too):
 * another replica may lead soon, and a reconcile that ignores its signal
 * would go on acting. The caller must end the process (exitOnLeadershipLost,
 * process.ts); its restart campaigns afresh with empty queues.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LeaderElector } from "../leader/leader-elector.js";
import { HealthChecks } from "../observability/health-checks.js";
import { startMetricsServer, startProbeServer, type EndpointServer } from "../observability/http-endpoints.js";
import type { RuntimeFlags } from "../observability/flags.js";
import type { RuntimeMetrics } from "../observability/metrics.js";
import type { Controller } from "../reconcile/controller.js";

/** Something that feeds controllers: a Reflector, an ApiExportSource. */
export interface Source {
  readonly hasSynced: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ManagerOptions {
  readonly flags: Pick<RuntimeFlags, "metricsBindAddress" | "healthProbeBindAddress">;
  readonly metrics: RuntimeMetrics;
  /** Named for the readiness output (`[+]source-<name> ok`). */
  readonly sources: Readonly<Record<string, Source>>;
  /**
   * Sources started, stopped and shown in `/readyz` like `sources`, but not
   * waited for: a dependency the controllers go on without while it is
   * away, saying so to their users instead of going silent. A reconciler
   * that reads one checks its `hasSynced` itself and acts on nothing it
   * holds until then.
   */
  readonly optionalSources?: Readonly<Record<string, Source>>;
  readonly controllers: readonly Controller[];
  /**
   * Makes an elector whose `onStartedLeading` runs the given function; when
   * absent the controllers run at once (no --leader-elect).
   */
  readonly leaderElector?: (lead: (signal: AbortSignal) => Promise<void>) => Pick<LeaderElector, "run">;
  /**
   * Tenant shards the controllers admit requests by (TenantShards): run
   * beside them once the sources have synced, and stopped with them. The
   * alternative to `leaderElector`, not a companion: every replica runs its
   * controllers, each on its share of the tenants.
   */
  readonly shards?: { run(signal: AbortSignal): Promise<void> };
  /** Called once servers are listening, with their ports (0 when disabled). */
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
  /**
   * How long the sources may take to sync before the run fails. Default
   * 120 000, controller-runtime's CacheSyncTimeout: a source that cannot list
   * (RBAC, a wrong URL) must end the process loudly, not leave it unready.
   */
  readonly cacheSyncTimeoutMs?: number;
}

/** The sources did not sync in time. */
export class CacheSyncTimeoutError extends Error {
  override readonly name = "CacheSyncTimeoutError";
}

/**
 * Resolves true once every source has synced, false if `signal` aborts
 * first; rejects with CacheSyncTimeoutError after `timeoutMs`. Polls, as
 * controller-runtime does, since sources only expose `hasSynced`; but every
 * 10 ms, not every 100 ms: the wait between the last list and the first
 * reconcile is part of every start, and a check of a few flags costs nothing.
 */
export async function waitForCacheSync(
  sources: Readonly<Record<string, Pick<Source, "hasSynced">>>,
  signal: AbortSignal,
  timeoutMs = 120_000,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (signal.aborted) return false;
    const pending = Object.entries(sources).filter(([, source]) => !source.hasSynced).map(([name]) => name);
    if (pending.length === 0) return true;
    if (performance.now() >= deadline) throw new CacheSyncTimeoutError(`sources not synced after ${timeoutMs} ms: ${pending.join(", ")}`);
    await sleep(SYNC_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

const SYNC_POLL_MS = 10;

/** The Lease went to another replica while this one led. */
export class LeadershipLostError extends Error {
  override readonly name = "LeadershipLostError";
}

export async function runManager(options: ManagerOptions, signal: AbortSignal): Promise<void> {
  if (options.leaderElector !== undefined && options.shards !== undefined) throw new Error("a manager either elects a leader or shards its tenants, not both");
  const checks = new HealthChecks();
  const all = { ...options.sources, ...options.optionalSources };
  for (const [name, source] of Object.entries(all)) {
    checks.addReadiness(`source-${name}`, () => source.hasSynced || "not synced yet");
  }
  const servers: EndpointServer[] = [];
  try {
    const metrics = await startMetricsServer({ address: options.flags.metricsBindAddress, metrics: options.metrics });
    if (metrics) servers.push(metrics);
    const probes = await startProbeServer({ address: options.flags.healthProbeBindAddress, checks });
    if (probes) servers.push(probes);
    options.onListening?.({ metrics: metrics?.port ?? 0, probes: probes?.port ?? 0 });

    const sources = Object.values(all);
    const feeding = sources.map((source) => source.start());
    const runControllers = async (stop: AbortSignal): Promise<void> => {
      if (!(await waitForCacheSync(options.sources, stop, options.cacheSyncTimeoutMs))) return;
      await Promise.all([...options.controllers.map((controller) => controller.start(stop)), options.shards?.run(stop)]);
    };
    let failure: Error | undefined;
    try {
      if (options.leaderElector) {
        const everything = new AbortController();
        const forward = (): void => everything.abort();
        signal.addEventListener("abort", forward, { once: true });
        let onLost = (): void => undefined;
        const lost = new Promise<void>((resolve) => (onLost = resolve));
        const lead = async (leading: AbortSignal): Promise<void> => {
          // Leadership ends without a shutdown or a failure only when the Lease is lost.
          const loseLease = (): void => {
            if (signal.aborted || failure !== undefined) return;
            failure = new LeadershipLostError("lost the leader Lease; exit so that a new process campaigns with fresh state");
            everything.abort();
            onLost();
          };
          leading.addEventListener("abort", loseLease, { once: true });
          try {
            await runControllers(leading);
          } catch (err) {
            failure ??= err instanceof Error ? err : new Error(String(err));
            // Leading ends only with the process: a new one campaigns with fresh state.
            everything.abort();
          }
        };
        // On a lost Lease, the controllers' drain (and the release after it) goes on
        // in the background while the caller ends the process.
        await Promise.race([options.leaderElector(lead).run(everything.signal), lost]);
        signal.removeEventListener("abort", forward);
      } else {
        await runControllers(signal);
      }
    } finally {
      await Promise.all(sources.map((source) => source.stop()));
      await Promise.allSettled(feeding);
    }
    if (failure !== undefined) throw failure;
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}
