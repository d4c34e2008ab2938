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
  /** The provider's `--poll`: how often Ready resources are checked for drift. Default 10s. */
  readonly poll?: string;
  /** How often a running create, update or delete asks OTC where it stands. Default 200ms. */
  readonly asyncPollInterval?: string;
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
    }).then(({ simulator }) => simulator);
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
