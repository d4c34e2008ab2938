/**
 * The manager's leader election as every binary wires it: a Lease, the
 * holder's identity, the leader gauge and a log line on each change.
 */
import type { RestClient } from "@edgeconnect/kcp-ts";
import type { RuntimeMetrics } from "../observability/metrics.js";
import { LeaderElector } from "./leader-elector.js";
import { LeaseLock } from "./lease.js";

export interface LeaseElectionOptions {
  readonly client: RestClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly metrics: RuntimeMetrics;
  readonly logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

/** For `ManagerOptions.leaderElector`: an elector on Lease `namespace/name` that runs `lead` while it leads. */
export function leaseElection(options: LeaseElectionOptions): (lead: (signal: AbortSignal) => Promise<void>) => LeaderElector {
  const { metrics, logger, identity, name } = options;
  return (lead) =>
    new LeaderElector({
      lock: new LeaseLock(options.client, options.namespace, name),
      identity,
      ...(options.leaseDurationMs === undefined ? {} : { leaseDurationMs: options.leaseDurationMs }),
      ...(options.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: options.renewDeadlineMs }),
      ...(options.retryPeriodMs === undefined ? {} : { retryPeriodMs: options.retryPeriodMs }),
      onStartedLeading: lead,
      onLeadershipChange: (leading) => {
        metrics.setLeader(name, leading);
        logger.info({ identity, leading }, "leadership changed");
      },
      onError: (err) => logger.warn({ err }, "leader election"),
    });
}
