/**
 * A stand-in for the kubelet of chosen Deployments. The test environment
 * runs kube-controller-manager, so the Deployment controller makes a
 * ReplicaSet and the ReplicaSet controller its Pods; but no scheduler or
 * kubelet runs here, so those Pods stay Pending and nothing ever becomes
 * Available, and whatever waits for that waits forever. Writing a
 * Deployment's status directly no longer works: its controller overwrites
 * it at once with what the Pods say. For Deployments whose pods are played
 * by a process of the test (a Cluster API manager of `ClusterApiStack`, say),
 * the stand-in marks their Pods Running and Ready while that process is
 * healthy, as a kubelet does once the containers pass their readiness
 * probes; the real controllers then report the rollout (ready and available
 * replicas, the Available and Progressing conditions).
 *
 * An unhealthy process leaves the Pods as they are: the stand-in reports
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

interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

type Pod = KubeObject & {
  spec?: { containers?: { name: string; image?: string }[] };
  status?: { phase?: string; startTime?: string; conditions?: PodCondition[]; [key: string]: unknown };
};

/** The conditions a kubelet sets on a Pod whose containers run and pass their readiness probes. */
const READY_CONDITIONS: readonly string[] = ["PodScheduled", "Initialized", "ContainersReady", "Ready"];

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
    let deployment: KubeObject;
    try {
      deployment = await this.client.get(`/apis/apps/v1/namespaces/${target.namespace}/deployments/${target.name}`, { signal: this.callSignal() });
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return;
      throw err;
    }
    const healthy = await target.healthy(this.callSignal()).catch(() => false);
    if (!healthy) return;
    // The Deployment's ReplicaSets (old ones too, during a rollout) and their Pods, by controller reference.
    const replicaSets = (await this.client.list(`/apis/apps/v1/namespaces/${target.namespace}/replicasets`, { signal: this.callSignal() })).items.filter((rs) =>
      controlledBy(rs, deployment),
    );
    const pods = (await this.client.list<Pod>(`/api/v1/namespaces/${target.namespace}/pods`, { signal: this.callSignal() })).items.filter((pod) =>
      replicaSets.some((rs) => controlledBy(pod, rs)),
    );
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp !== undefined || isRunningAndReady(pod)) continue;
      await this.client.replace(`/api/v1/namespaces/${target.namespace}/pods/${pod.metadata?.name ?? ""}/status`, { ...pod, status: runningStatus(pod) }, { signal: this.callSignal() });
    }
  }
}

function controlledBy(object: KubeObject, owner: KubeObject): boolean {
  return object.metadata?.ownerReferences?.some((ref) => ref.controller === true && ref.uid === owner.metadata?.uid) ?? false;
}

function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

/** What a kubelet reports for `pod` once every container runs and is ready. */
function runningStatus(pod: Pod): NonNullable<Pod["status"]> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  return {
    ...pod.status,
    phase: "Running",
    startTime: pod.status?.startTime ?? now,
    conditions: READY_CONDITIONS.map((type) => ({ type, status: "True", lastTransitionTime: now })),
    containerStatuses: (pod.spec?.containers ?? []).map((container) => ({
      name: container.name,
      image: container.image ?? "",
      imageID: "",
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
    })),
  };
}
