/**
 * The real kube-controller-manager beside a test kube-apiserver, so that the
 * cluster behaves like a real one wherever no kubelet or cloud is involved:
 * namespaces are really deleted, garbage collection follows
 * ownerReferences, ClusterRoles aggregate, every namespace gets its
 * `default` ServiceAccount and `kube-root-ca.crt`, Deployments get
 * ReplicaSets and Pods (which stay Pending: nothing schedules or runs them).
 * A deleted namespace is gone no sooner than 5 s later: the namespace
 * controller waits that long before it empties one (not configurable).
 *
 * It runs as a real cluster's does: as the user `system:kube-controller-manager`
 * (the API server's bootstrap RBAC grants exactly what it needs), each
 * controller with a ServiceAccount of its own and that account's bootstrap
 * role, without leader election. It serves nothing (`--secure-port=0`): no
 * port to pick, none to lose to another process, and readiness is visible
 * in the cluster itself.
 */
import { join } from "node:path";
import { HttpStatusError, type RestClient } from "@edgeconnect/kcp-ts";
import { eventually, holds } from "./eventually.js";
import type { Reaper } from "./reaper.js";
import { ServerProcess } from "./server-process.js";

/**
 * Controllers switched off beyond kube-controller-manager's own defaults
 * (which already leave out bootstrap-signer, token-cleaner and
 * selinux-warning). Each acts on Nodes or a cloud, and this environment has
 * neither; the cloud ones and node-ipam would only log that they skip.
 */
const DISABLED_CONTROLLERS: readonly string[] = [
  // Allocates Pod CIDRs to Nodes.
  "node-ipam-controller",
  // Taints and evicts on missing kubelet heartbeats.
  "node-lifecycle-controller",
  // These three need a cloud provider.
  "cloud-node-lifecycle-controller",
  "service-lb-controller",
  "node-route-controller",
];

export interface KubeControllerManagerOptions {
  readonly binary: string;
  /** kubeconfig of the user `system:kube-controller-manager`. */
  readonly kubeconfig: string;
  /**
   * Private key of the API server's `--service-account-key-file`: signs the
   * tokens of legacy `kubernetes.io/service-account-token` Secrets.
   */
  readonly serviceAccountKeyFile: string;
  /** CA bundle of the API server: goes into token Secrets and every `kube-root-ca.crt`. */
  readonly rootCaFile: string;
  /** Directory for the log and the flexvolume plugin directory; owned by the caller. */
  readonly dir: string;
  /** A client of the API server, to see the controllers at work. */
  readonly client: RestClient;
  readonly reaper?: Reaper;
  /** Default 60 s. */
  readonly startTimeoutMs?: number;
}

export class KubeControllerManager {
  private constructor(private readonly process: ServerProcess) {}

  /** Starts it and resolves once its controllers run. */
  static async start(options: KubeControllerManagerOptions): Promise<KubeControllerManager> {
    const process = ServerProcess.start({
      name: "kube-controller-manager",
      command: options.binary,
      args: [
        `--kubeconfig=${options.kubeconfig}`,
        "--use-service-account-credentials=true",
        `--service-account-private-key-file=${options.serviceAccountKeyFile}`,
        `--root-ca-file=${options.rootCaFile}`,
        `--controllers=*,${DISABLED_CONTROLLERS.map((name) => `-${name}`).join(",")}`,
        "--leader-elect=false",
        // Each controller's account and token are made through this rate
        // limit; at the default 20 requests/s the start took about 4.5 s longer.
        "--kube-api-qps=200",
        "--kube-api-burst=400",
        "--secure-port=0",
        // The volume controllers probe this directory and create it when it
        // is missing; by default that is /usr/libexec/kubernetes/... on the host.
        `--flex-volume-plugin-dir=${join(options.dir, "flexvolume")}`,
      ],
      logFile: join(options.dir, "kube-controller-manager.log"),
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
    const manager = new KubeControllerManager(process);
    try {
      await manager.waitUntilRunning(options.client, options.startTimeoutMs ?? 60_000);
    } catch (err) {
      await process.stop();
      throw err;
    }
    return manager;
  }

  /**
   * Until the ServiceAccount controller has made `default/default`. The
   * controller manager starts its informers only after it has started every
   * controller, and that controller acts only once they have synced: so all
   * controllers run, and one has proven the credentials of its own account.
   */
  private async waitUntilRunning(client: RestClient, timeoutMs: number): Promise<void> {
    await eventually(
      async () => {
        this.process.assertRunning();
        try {
          await client.get("/api/v1/namespaces/default/serviceaccounts/default");
          return holds(true, "");
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 404) return holds(false, "no ServiceAccount default/default yet");
          throw err;
        }
      },
      { timeoutMs, description: "kube-controller-manager's controllers" },
    );
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }
}
