/**
 * A vanilla Kubernetes control plane for tests: etcd plus kube-apiserver on
 * loopback, no controller-manager, scheduler or kubelet. It plays the
 * infrastructure cluster (where provider objects land) and the workload
 * cluster of the cloud controller manager.
 *
 * Authentication is a random bearer token of a `system:masters` user, written
 * into a kubeconfig; the serving certificate is the one kube-apiserver makes
 * for itself, trusted by that kubeconfig. As with envtest, the ServiceAccount
 * admission plugin is off because no controller creates default accounts.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdServer } from "./etcd-server.js";
import { eventually } from "./eventually.js";
import { writeKubeconfig } from "./kubeconfig.js";
import { freePort, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { RestClient } from "@edgeconnect/kcp-ts";
import { ServerProcess } from "./server-process.js";

export interface KubeApiServerOptions {
  readonly kubeApiServerBinary: string;
  readonly etcdBinary: string;
  /** Directory for certificates, etcd data and logs; a fresh temporary one when absent. */
  readonly dir?: string;
  readonly keepDir?: boolean;
  readonly reaper?: Reaper;
  /** Default 120 s. */
  readonly startTimeoutMs?: number;
  /**
   * PEM of a CA whose client certificates the server accepts besides the
   * admin token (`--client-ca-file`): how a simulated cloud hands out
   * kubeconfigs that really work against this server.
   */
  readonly clientCaPem?: string;
}

export class KubeApiServer {
  private constructor(
    private readonly etcd: EtcdServer,
    private readonly process: ServerProcess,
    private readonly options: KubeApiServerOptions,
    readonly dir: string,
    /** `https://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  static async start(options: KubeApiServerOptions): Promise<KubeApiServer> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-kube-"));
    options.reaper?.removeOnExit(dir);
    const token = randomBytes(24).toString("hex");
    prepareCredentials(dir, token, options.clientCaPem);
    let etcd: EtcdServer | undefined;
    try {
      etcd = await EtcdServer.start({
        binary: options.etcdBinary,
        dir,
        ...(options.reaper ? { reaper: options.reaper } : {}),
      });
      const storage = etcd;
      return await startOnFreePorts({
        launch: () => KubeApiServer.launch(options, dir, storage),
        ready: (server) => server.waitUntilReady(token),
        processOf: (server) => server.process,
      });
    } catch (err) {
      await etcd?.stop();
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  private static async launch(options: KubeApiServerOptions, dir: string, etcd: EtcdServer): Promise<KubeApiServer> {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const process = ServerProcess.start({
      name: "kube-apiserver",
      command: options.kubeApiServerBinary,
      args: [
        `--etcd-servers=${etcd.clientUrl}`,
        `--cert-dir=${join(dir, "certs")}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${port}`,
        "--service-cluster-ip-range=10.0.0.0/24",
        "--allow-privileged=true",
        "--disable-admission-plugins=ServiceAccount",
        "--authorization-mode=RBAC",
        `--token-auth-file=${join(dir, "tokens.csv")}`,
        `--service-account-issuer=${url}`,
        `--service-account-key-file=${join(dir, "sa.key")}`,
        `--service-account-signing-key-file=${join(dir, "sa.key")}`,
        ...(options.clientCaPem === undefined ? [] : [`--client-ca-file=${join(dir, "client-ca.crt")}`]),
      ],
      logFile: join(dir, "kube-apiserver.log"),
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
    return new KubeApiServer(etcd, process, options, dir, url);
  }

  get kubeconfigPath(): string {
    return join(this.dir, "admin.kubeconfig");
  }

  adminClient(): RestClient {
    return RestClient.fromFile(this.kubeconfigPath);
  }

  async stop(): Promise<void> {
    await this.process.stop();
    await this.etcd.stop();
    if (!this.options.keepDir) {
      rmSync(this.dir, { recursive: true, force: true });
      this.options.reaper?.forgetDirectory(this.dir);
    }
  }

  private async waitUntilReady(token: string): Promise<void> {
    const certificate = join(this.dir, "certs", "apiserver.crt");
    const timeoutMs = this.options.startTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    // kube-apiserver writes its self-signed certificate (serving cert and CA)
    // before it listens; the kubeconfig trusts exactly that.
    const caPem = await eventually(
      () => {
        this.process.assertRunning();
        return [true, readFileSync(certificate, "utf8")];
      },
      { timeoutMs, description: "kube-apiserver self-signed certificate" },
    );
    writeKubeconfig(this.kubeconfigPath, { name: "testenv-kube-apiserver", server: this.url, caPem, token });
    const client = this.adminClient();
    for (const probe of ["/livez", "/readyz"]) {
      await eventually(
        async () => {
          this.process.assertRunning();
          await client.request("GET", probe);
          return [true, undefined];
        },
        { timeoutMs: Math.max(1, deadline - Date.now()), description: `kube-apiserver ${probe}` },
      );
    }
  }
}

function prepareCredentials(dir: string, token: string, clientCaPem: string | undefined): void {
  mkdirSync(join(dir, "certs"), { recursive: true });
  if (clientCaPem !== undefined) writeFileSync(join(dir, "client-ca.crt"), clientCaPem);
  writeFileSync(join(dir, "tokens.csv"), `${token},testenv-admin,testenv-admin,"system:masters"\n`, { mode: 0o600 });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(join(dir, "sa.key"), privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 });
}
