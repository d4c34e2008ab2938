/**
 * A real kcp server (`kcp start`, embedded etcd, virtual workspaces in
 * process) on free loopback ports in a directory of its own.
 *
 * Guarantees: `start` resolves only when /livez and /readyz answer ok and the
 * root workspace serves `tenancy.kcp.io`; `stop` is idempotent and removes the
 * directory unless told to keep it. kcp writes a new admin token on every
 * start, so the admin kubeconfig is read from disk after each start.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { RestClient } from "@edgeconnect/kcp-ts";
import { ServerProcess } from "./server-process.js";

export interface KcpServerOptions {
  /** Path to the kcp binary. */
  readonly binary: string;
  /** Directory for kcp's state; a fresh temporary one when absent. */
  readonly dir?: string;
  /** Keep `dir` after stop (the demo does). Default false. */
  readonly keepDir?: boolean;
  readonly reaper?: Reaper;
  /** How long start may take. Default 180 s (kcp on two cores takes 20-60 s). */
  readonly startTimeoutMs?: number;
  /** Extra `kcp start` flags, e.g. feature gates. */
  readonly extraArgs?: readonly string[];
}

export class KcpServer {
  private constructor(
    private readonly process: ServerProcess,
    private readonly options: KcpServerOptions,
    /** kcp's state directory: root directory, logs, admin kubeconfig. */
    readonly dir: string,
    /** `https://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  static async start(options: KcpServerOptions): Promise<KcpServer> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-kcp-"));
    options.reaper?.removeOnExit(dir);
    try {
      return await startOnFreePorts({
        launch: () => KcpServer.launch(options, dir),
        ready: (server) => server.waitUntilReady(),
        processOf: (server) => server.process,
      });
    } catch (err) {
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  private static async launch(options: KcpServerOptions, dir: string): Promise<KcpServer> {
    const [securePort, etcdClientPort, etcdPeerPort] = await freePorts(3);
    const process = ServerProcess.start({
      name: "kcp",
      command: options.binary,
      args: [
        "start",
        `--root-directory=${join(dir, "root")}`,
        `--kubeconfig-path=${join(dir, "admin.kubeconfig")}`,
        "--bind-address=127.0.0.1",
        `--secure-port=${securePort}`,
        `--embedded-etcd-client-port=${etcdClientPort}`,
        `--embedded-etcd-peer-port=${etcdPeerPort}`,
        // Small WAL segments: tests write little, and the default 64 MiB
        // preallocation costs disk and start-up time.
        "--embedded-etcd-wal-size-bytes=5000",
        ...(options.extraArgs ?? []),
      ],
      logFile: join(dir, "kcp.log"),
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
    return new KcpServer(process, options, dir, `https://127.0.0.1:${securePort}`);
  }

  /** The admin kubeconfig kcp wrote on this start. Its current context is `root`. */
  get kubeconfigPath(): string {
    return join(this.dir, "admin.kubeconfig");
  }

  /** An admin client on the root workspace (`/clusters/root`). */
  adminClient(): RestClient {
    return RestClient.fromFile(this.kubeconfigPath);
  }

  get logFile(): string {
    return join(this.dir, "kcp.log");
  }

  async stop(): Promise<void> {
    await this.process.stop();
    if (!this.options.keepDir) {
      rmSync(this.dir, { recursive: true, force: true });
      this.options.reaper?.forgetDirectory(this.dir);
    }
  }

  private async waitUntilReady(): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? 180_000;
    const deadline = Date.now() + timeoutMs;
    const remaining = (): number => Math.max(1, deadline - Date.now());
    await eventually(
      () => {
        this.process.assertRunning();
        return existsSync(this.kubeconfigPath) ? [true, undefined] : [false, "admin.kubeconfig not written yet"];
      },
      { timeoutMs: remaining(), description: "kcp admin kubeconfig" },
    );
    const root = this.adminClient();
    const base = root.withServer(this.url);
    for (const probe of ["/livez", "/readyz"]) {
      await eventually(
        async () => {
          this.process.assertRunning();
          await base.request("GET", probe);
          return [true, undefined];
        },
        { timeoutMs: remaining(), description: `kcp ${probe}` },
      );
    }
    // /readyz can pass before the root workspace's bootstrap (workspace types,
    // tenancy APIs) is served.
    await eventually(
      async () => {
        this.process.assertRunning();
        await root.list("/apis/tenancy.kcp.io/v1alpha1/workspaces");
        return [true, undefined];
      },
      { timeoutMs: remaining(), description: "kcp root workspace API" },
    );
  }
}
