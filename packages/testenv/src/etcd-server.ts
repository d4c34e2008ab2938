/**
 * A single-member etcd on loopback, the storage of a test kube-apiserver.
 * fsync is off: the data lives only as long as the test run.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { ServerProcess } from "./server-process.js";

export interface EtcdServerOptions {
  readonly binary: string;
  /** Directory for data and log; owned by the caller. */
  readonly dir: string;
  readonly reaper?: Reaper;
  readonly startTimeoutMs?: number;
}

export class EtcdServer {
  private constructor(
    private readonly process: ServerProcess,
    /** `http://127.0.0.1:<port>`, for `--etcd-servers`. */
    readonly clientUrl: string,
  ) {}

  static async start(options: EtcdServerOptions): Promise<EtcdServer> {
    return startOnFreePorts({
      launch: () => EtcdServer.launch(options),
      ready: (server) => server.waitUntilHealthy(options.startTimeoutMs ?? 60_000),
      processOf: (server) => server.process,
    });
  }

  private static async launch(options: EtcdServerOptions): Promise<EtcdServer> {
    const [clientPort, peerPort] = await freePorts(2);
    const clientUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(options.dir, "etcd");
    // A launch that lost a port race may have left a member directory for other URLs.
    rmSync(dataDir, { recursive: true, force: true });
    const process = ServerProcess.start({
      name: "etcd",
      command: options.binary,
      args: [
        "--name=testenv",
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=testenv=${peerUrl}`,
        "--unsafe-no-fsync=true",
      ],
      logFile: join(options.dir, "etcd.log"),
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
    return new EtcdServer(process, clientUrl);
  }

  private async waitUntilHealthy(timeoutMs: number): Promise<void> {
    await eventually(
      async () => {
        this.process.assertRunning();
        const response = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(5_000) });
        const body = (await response.json()) as { health?: string };
        return body.health === "true" ? [true, undefined] : [false, `health: ${JSON.stringify(body)}`];
      },
      { timeoutMs, description: "etcd /health" },
    );
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }
}
