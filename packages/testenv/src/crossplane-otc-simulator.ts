/**
 * The Crossplane OTC provider simulator (scripts/binaries/crossplane-otc-simulator,
 * Go on the real crossplane-runtime) as a process beside an infrastructure
 * kube-apiserver: it installs the provider's CRDs, as Crossplane's package
 * manager would, and is ready once its caches have synced (its /readyz).
 */
import { get } from "node:http";
import { eventually } from "./eventually.js";
import { freePort, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { ServerProcess } from "./server-process.js";

export interface CrossplaneOtcSimulatorOptions {
  /** The built simulator (`resolveBinary("crossplane-otc-simulator")`). */
  readonly binary: string;
  /** The infrastructure cluster the managed resources live on. */
  readonly kubeconfig: string;
  /** Where its log goes. */
  readonly logFile: string;
  /** The provider's `--poll` (its default 10m): how often Ready resources are checked for drift. Default 10s. */
  readonly poll?: string;
  /** How often a running create, update or delete asks OTC where it stands (Terraform's waits, 10s in the simulator's default). Default 200ms. */
  readonly asyncPollInterval?: string;
  /**
   * crossplane-runtime's creation grace period (its default 30s): how long
   * after a create an MR whose object OTC does not show is requeued rather
   * than created again or, when deleted, released. Meant for cloud APIs
   * that list a new object late; the OTC simulator never does, and while a
   * create runs the provider reports the object as existing anyway. So here
   * it only holds back the retry of a failed create and the finalizer of an
   * MR deleted young: at 30 s, with the managed reconciler's requeue backoff
   * (2, 8, 16, 32 s), a node pool deleted just after its creation was
   * released 58 s later, and every suite's teardown waited on that. Default
   * 1s. (At 1 s the sharded controller's e2e once saw a tenant certificate
   * issued several times; that was the controller's own defect, fixed since:
   * the certificate is claimed on its Secret and its call is bounded only by
   * the caller's deadline.)
   */
  readonly creationGracePeriod?: string;
  /** Watch this namespace only (suites sharing one cluster); default all. */
  readonly namespace?: string;
  readonly reaper?: Reaper;
  /** Default 120 s: the CRDs are installed and established first. */
  readonly startTimeoutMs?: number;
}

export class CrossplaneOtcSimulator {
  private constructor(
    readonly process: ServerProcess,
    readonly logFile: string,
  ) {}

  static async start(options: CrossplaneOtcSimulatorOptions): Promise<CrossplaneOtcSimulator> {
    const { logFile } = options;
    return startOnFreePorts({
      launch: async () => {
        const probePort = await freePort();
        const process = ServerProcess.start({
          name: "crossplane-otc-simulator",
          command: options.binary,
          args: [
            `--kubeconfig=${options.kubeconfig}`,
            "--install-crds",
            `--poll=${options.poll ?? "10s"}`,
            `--async-poll-interval=${options.asyncPollInterval ?? "200ms"}`,
            `--creation-grace-period=${options.creationGracePeriod ?? "1s"}`,
            `--health-probe-bind-address=127.0.0.1:${probePort}`,
            ...(options.namespace === undefined ? [] : [`--namespace=${options.namespace}`]),
          ],
          logFile,
          ...(options.reaper ? { reaper: options.reaper } : {}),
        });
        return { simulator: new CrossplaneOtcSimulator(process, logFile), probePort };
      },
      ready: ({ simulator, probePort }) =>
        eventually(
          async () => {
            simulator.process.assertRunning();
            return [(await probe(probePort)) === 200, "its caches have not synced yet"];
          },
          { timeoutMs: options.startTimeoutMs ?? 120_000, description: "crossplane-otc-simulator /readyz" },
        ),
      processOf: ({ simulator }) => simulator.process,
    }).then(({ simulator }) => {
      // Nothing reconciles a managed resource once it is gone: waits end with its exit.
      simulator.process.watchExit();
      return simulator;
    });
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }
}

/** The status of GET /readyz, or 0 when nothing answers. */
function probe(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/readyz", timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(0));
  });
}
