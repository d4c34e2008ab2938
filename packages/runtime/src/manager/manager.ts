/**
 * Runs a controller process: the metrics and probe servers, the sources
 * (reflectors and fan-ins), and the controllers, behind leader election when
 * asked. Owns start-up order and shutdown; owns no controller logic.
 *
 * Order: servers first (so liveness answers at once), then the sources
 * (caches warm up on every replica, leader or not, which makes a take-over
 * fast), then the controllers (only on the leader with --leader-elect).
 * `/readyz` passes once every source has synced. Shutdown reverses it:
 * controllers drain, sources stop, servers close, the Lease is released.
 *
 * A leader that loses its Lease stops its controllers and `runManager`
 * rejects with LeadershipLostError: like controller-runtime, the process
 * exits and its restart campaigns afresh with empty queues.
 */
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
  readonly controllers: readonly Controller[];
  /**
   * Makes an elector whose `onStartedLeading` runs the given function; when
   * absent the controllers run at once (no --leader-elect).
   */
  readonly leaderElector?: (lead: (signal: AbortSignal) => Promise<void>) => LeaderElector;
  /** Called once servers are listening, with their ports (0 when disabled). */
  readonly onListening?: (ports: { metrics: number; probes: number }) => void;
}

/** The Lease went to another replica while this one led. */
export class LeadershipLostError extends Error {
  override readonly name = "LeadershipLostError";
}

export async function runManager(options: ManagerOptions, signal: AbortSignal): Promise<void> {
  const checks = new HealthChecks();
  for (const [name, source] of Object.entries(options.sources)) {
    checks.addReadiness(`source-${name}`, () => source.hasSynced || "not synced yet");
  }
  const servers: EndpointServer[] = [];
  try {
    const metrics = await startMetricsServer({ address: options.flags.metricsBindAddress, metrics: options.metrics });
    if (metrics) servers.push(metrics);
    const probes = await startProbeServer({ address: options.flags.healthProbeBindAddress, checks });
    if (probes) servers.push(probes);
    options.onListening?.({ metrics: metrics?.port ?? 0, probes: probes?.port ?? 0 });

    const sources = Object.values(options.sources);
    const feeding = sources.map((source) => source.start());
    const runControllers = async (stop: AbortSignal): Promise<void> => {
      await Promise.all(options.controllers.map((controller) => controller.start(stop)));
    };
    let lost = false;
    if (options.leaderElector) {
      const everything = new AbortController();
      const forward = (): void => everything.abort();
      signal.addEventListener("abort", forward, { once: true });
      const lead = async (leading: AbortSignal): Promise<void> => {
        await runControllers(leading);
        lost = !signal.aborted;
        if (lost) everything.abort();
      };
      await options.leaderElector(lead).run(everything.signal);
      signal.removeEventListener("abort", forward);
    } else {
      await runControllers(signal);
    }
    await Promise.all(sources.map((source) => source.stop()));
    await Promise.allSettled(feeding);
    if (lost) throw new LeadershipLostError("lost the leader Lease; exit so that a new process campaigns with fresh state");
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}
