/**
 * A single-member etcd on loopback, the storage of a test kube-apiserver.
 * fsync is off: the data lives only as long as the test run.
 */
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts } from "./ports.js";
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
    const [clientPort, peerPort] = await freePorts(2);
    const clientUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const process = ServerProcess.start({
      name: "etcd",
      command: options.binary,
      args: [
        "--name=testenv",
        `--data-dir=${join(options.dir, "etcd")}`,
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
    const server = new EtcdServer(process, clientUrl);
    try {
      await eventually(
        async () => {
          process.assertRunning();
          const response = await fetch(`${clientUrl}/health`);
          const body = (await response.json()) as { health?: string };
          return body.health === "true" ? [true, undefined] : [false, `health: ${JSON.stringify(body)}`];
        },
        { timeoutMs: options.startTimeoutMs ?? 60_000, description: "etcd /health" },
      );
    } catch (err) {
      await process.stop();
      throw err;
    }
    return server;
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }
}
