/**
 * A stand-in for the Deployment controller and the kubelet, which this test
 * environment lacks: Deployments are stored but no pod ever runs, so their
 * status stays empty and whatever waits for them to be available waits
 * forever. For Deployments whose pods are played by a process of the test
 * (a Cluster API manager of `ClusterApiStack`, say), the stand-in writes the
 * status the Deployment controller writes after a healthy rollout while that
 * process is healthy.
 *
 * An unhealthy process leaves the status as it is: the stand-in reports
 * rollouts, it does not simulate failures.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";

export interface StandInDeployment {
  readonly namespace: string;
  readonly name: string;
  /** Whether what plays the Deployment's pods is healthy; `signal` ends a slow answer. */
  readonly healthy: (signal: AbortSignal) => Promise<boolean>;
}

export interface DeploymentStandInOptions {
  /** Pause between rounds. Default 500 ms. */
  readonly intervalMs?: number;
  /** Deadline of each API call and health check. Default 5 s. */
  readonly callTimeoutMs?: number;
}

interface DeploymentCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: DeploymentCondition[];
  [key: string]: unknown;
}

type Deployment = KubeObject & { spec?: { replicas?: number }; status?: DeploymentStatus };

/** The conditions of a finished, available rollout, as the Deployment controller words them. */
const HEALTHY_CONDITIONS: readonly Omit<DeploymentCondition, "lastUpdateTime" | "lastTransitionTime">[] = [
  { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
  { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: "Rollout complete (its pods are played by a healthy test process)." },
];

export class DeploymentStandIn {
  private readonly stopping = new AbortController();
  private readonly loop: Promise<void>;
  private error: string | undefined;

  private constructor(
    private readonly client: RestClient,
    private readonly deployments: readonly StandInDeployment[],
    private readonly options: DeploymentStandInOptions,
  ) {
    this.loop = this.run();
  }

  static start(client: RestClient, deployments: readonly StandInDeployment[], options: DeploymentStandInOptions = {}): DeploymentStandIn {
    return new DeploymentStandIn(client, deployments, options);
  }

  /** The last failed read or write, for a test's failure message; undefined once a round went through. */
  get lastError(): string | undefined {
    return this.error;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const errors: string[] = [];
      for (const target of this.deployments) {
        try {
          await this.reconcile(target);
        } catch (err) {
          if (signal.aborted) return;
          errors.push(`${target.namespace}/${target.name}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      this.error = errors.length === 0 ? undefined : errors.join("; ");
      await sleep(this.options.intervalMs ?? 500, undefined, { signal }).catch(() => undefined);
    }
  }

  private callSignal(): AbortSignal {
    return AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.options.callTimeoutMs ?? 5_000)]);
  }

  private async reconcile(target: StandInDeployment): Promise<void> {
    const path = `/apis/apps/v1/namespaces/${target.namespace}/deployments/${target.name}`;
    let deployment: Deployment;
    try {
      deployment = await this.client.get<Deployment>(path, { signal: this.callSignal() });
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return;
      throw err;
    }
    const healthy = await target.healthy(this.callSignal()).catch(() => false);
    if (!healthy) return;
    const status = healthyStatus(deployment);
    if (status !== undefined) await this.client.replace(`${path}/status`, { ...deployment, status }, { signal: this.callSignal() });
  }
}

/** The status of a healthy rollout of `deployment`, or undefined when it has it already. */
function healthyStatus(deployment: Deployment): DeploymentStatus | undefined {
  const current = deployment.status ?? {};
  const replicas = deployment.spec?.replicas ?? 1;
  const counts = {
    observedGeneration: deployment.metadata?.generation ?? 1,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
  };
  let changed = Object.entries(counts).some(([key, value]) => current[key] !== value);
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const conditions = HEALTHY_CONDITIONS.map((wanted): DeploymentCondition => {
    const existing = current.conditions?.find((c) => c.type === wanted.type);
    if (existing?.status === wanted.status && existing.reason === wanted.reason && existing.message === wanted.message) return existing;
    changed = true;
    return { ...wanted, lastUpdateTime: now, lastTransitionTime: existing?.status === wanted.status ? (existing.lastTransitionTime ?? now) : now };
  });
  if (!changed) return undefined;
  const others = (current.conditions ?? []).filter((c) => !HEALTHY_CONDITIONS.some((wanted) => wanted.type === c.type));
  return { ...current, ...counts, conditions: [...conditions, ...others] };
}
