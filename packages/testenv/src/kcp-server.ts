/**
 * A real kcp server (`kcp start`, embedded etcd, virtual workspaces in
 * process) on free loopback ports in a directory of its own.
 *
 * Guarantees: `start` resolves only when /livez and /readyz answer ok and the
 * root workspace serves `tenancy.kcp.io`; `stop` is idempotent and removes the
 * directory unless told to keep it. kcp writes a new admin token on every
 * start, so the admin kubeconfig is read from disk after each start.
 *
 * Besides kcp's admin, the server knows a few plain users through a static
 * token file (kube-apiserver's `--token-auth-file`, which `kcp start`
 * accepts): identities with no rights until RBAC in a workspace grants them
 * some, so that tests can run a component with only the rights it ships.
 * Their tokens are new on every start and live only in the server's
 * directory; `kcpUserKubeconfig` reads them from there, given the admin
 * kubeconfig's path (what the e2e state holds).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { eventually } from "./eventually.js";
import { readKubeconfig, type KubeconfigSpec } from "./kubeconfig.js";
import { memoryBackedTmpdir } from "./memory-dir.js";
import { freePorts, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { RestClient } from "@edgeconnect/kcp-ts";
import { ServerProcess } from "./server-process.js";

export interface KcpServerOptions {
  /** Path to the kcp binary. */
  readonly binary: string;
  /** Directory for kcp's state; a fresh temporary one, memory-backed where the machine has one (see memory-dir.ts), when absent. */
  readonly dir?: string;
  /** Keep `dir` after stop (the demo does). Default false. */
  readonly keepDir?: boolean;
  readonly reaper?: Reaper;
  /** How long start may take. Default 180 s (kcp on two cores takes 20-60 s). */
  readonly startTimeoutMs?: number;
  /** Extra `kcp start` flags, e.g. feature gates. */
  readonly extraArgs?: readonly string[];
  /** The users of the static token file. Default KCP_TEST_USERS. */
  readonly users?: readonly KcpStaticUser[];
}

/** A user kcp authenticates by a bearer token from its static token file. */
export interface KcpStaticUser {
  readonly name: string;
  readonly groups?: readonly string[];
}

/**
 * The users every test kcp knows. `provider-controller` is what the e2e
 * suites run the provider-controller as, with the RBAC of
 * deploy/provider-controller/kcp; `tenant-viewer` is a tenant's person,
 * given rights in one tenant workspace by the suite that uses it (the
 * console's). No groups: what they may do comes from bindings of their
 * names alone.
 */
export const KCP_TEST_USERS: readonly KcpStaticUser[] = [{ name: "provider-controller" }, { name: "tenant-viewer" }];

/** The static token file, in the server's directory next to admin.kubeconfig. */
export const KCP_TOKEN_FILE = "static-tokens.csv";

export class KcpServer {
  private constructor(
    private process: ServerProcess,
    private readonly options: KcpServerOptions,
    /** kcp's state directory: root directory, logs, admin kubeconfig. */
    readonly dir: string,
    /** `https://127.0.0.1:<port>`. */
    readonly url: string,
    /** Secure port, embedded etcd's client and peer ports: a restart reuses them, so clients keep their URLs. */
    private readonly ports: readonly [number, number, number],
  ) {}

  static async start(options: KcpServerOptions): Promise<KcpServer> {
    const dir = options.dir ?? mkdtempSync(join(memoryBackedTmpdir(), "edgeconnect-kcp-"));
    options.reaper?.removeOnExit(dir);
    try {
      // Before the first launch: a retry on other ports keeps the same tokens.
      writeTokenFile(join(dir, KCP_TOKEN_FILE), options.users ?? KCP_TEST_USERS);
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
    const ports = (await freePorts(3)) as [number, number, number];
    return new KcpServer(KcpServer.spawn(options, dir, ports), options, dir, `https://127.0.0.1:${ports[0]}`, ports);
  }

  private static spawn(options: KcpServerOptions, dir: string, [securePort, etcdClientPort, etcdPeerPort]: readonly [number, number, number]): ServerProcess {
    return ServerProcess.start({
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
        `--token-auth-file=${join(dir, KCP_TOKEN_FILE)}`,
        ...(options.extraArgs ?? []),
      ],
      logFile: join(dir, "kcp.log"),
      ...(options.reaper ? { reaper: options.reaper } : {}),
    });
  }

  /**
   * Stops kcp (SIGTERM) and starts it again on the same ports and state, as
   * an upgrade or a crash-restart does: clients keep their URLs and the
   * static users their tokens; the admin kubeconfig gets a new token.
   */
  async restart(): Promise<void> {
    await this.process.stop();
    // kcp reads the shard admin's token back from this file, so it stays; the new process rewrites it with a new admin token.
    const before = readFileSync(this.kubeconfigPath, "utf8");
    this.process = KcpServer.spawn(this.options, this.dir, this.ports);
    await eventually(
      () => {
        this.process.assertRunning();
        const now = readFileSync(this.kubeconfigPath, "utf8");
        // Not atomic: a half-written file lacks its last line.
        return now !== before && now.includes("current-context") ? [true, undefined] : [false, "admin.kubeconfig not rewritten yet"];
      },
      { timeoutMs: this.options.startTimeoutMs ?? 180_000, description: "kcp admin kubeconfig after the restart" },
    );
    await this.waitUntilReady();
  }

  /** The admin kubeconfig kcp wrote on this start. Its current context is `root`. */
  get kubeconfigPath(): string {
    return join(this.dir, "admin.kubeconfig");
  }

  /** An admin client on the root workspace (`/clusters/root`). */
  adminClient(): RestClient {
    return RestClient.fromFile(this.kubeconfigPath);
  }

  /**
   * A kubeconfig for one of the static users, on `server` (default: the root
   * workspace, as the admin kubeconfig's current context).
   */
  userKubeconfig(user: string, server?: string): KubeconfigSpec {
    return kcpUserKubeconfig(this.kubeconfigPath, user, server);
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
    // kcp creates the file before it writes it: read too early it is no
    // kubeconfig yet, which is "not yet", not a failed start.
    const root = await eventually<RestClient>(
      () => {
        this.process.assertRunning();
        return existsSync(this.kubeconfigPath) ? [true, this.adminClient()] : [false, "admin.kubeconfig not written yet"];
      },
      { timeoutMs: remaining(), description: "kcp admin kubeconfig" },
    );
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

/** One line per user: `token,user,uid,"group1,group2"`, the uid being the name. */
function writeTokenFile(path: string, users: readonly KcpStaticUser[]): void {
  const lines = users.map((user) => {
    // The file is CSV without quoting inside fields: a comma or quote in a name would shift the columns.
    for (const field of [user.name, ...(user.groups ?? [])]) {
      if (!/^[A-Za-z0-9:._@-]+$/.test(field)) throw new Error(`kcp static user: ${JSON.stringify(field)} must be letters, digits and :._@- only`);
    }
    const token = randomBytes(24).toString("hex");
    const groups = user.groups === undefined || user.groups.length === 0 ? "" : `,"${user.groups.join(",")}"`;
    return `${token},${user.name},${user.name}${groups}\n`;
  });
  writeFileSync(path, lines.join(""), { mode: 0o600 });
}

/**
 * A kubeconfig for a static user of the kcp whose admin kubeconfig is at
 * `adminKubeconfigPath` (the token file is beside it), trusting the same CA;
 * on `server`, default the admin kubeconfig's current one (the root
 * workspace). For processes that know the server only by the e2e state.
 */
export function kcpUserKubeconfig(adminKubeconfigPath: string, user: string, server?: string): KubeconfigSpec {
  const admin = readKubeconfig(adminKubeconfigPath);
  const tokenFile = join(dirname(adminKubeconfigPath), KCP_TOKEN_FILE);
  if (!existsSync(tokenFile)) throw new Error(`${tokenFile} does not exist: this kcp was not started by KcpServer, which writes it`);
  const line = readFileSync(tokenFile, "utf8")
    .split("\n")
    .map((entry) => entry.split(","))
    .find((fields) => fields[1] === user);
  const token = line?.[0];
  if (token === undefined) throw new Error(`${tokenFile} has no user ${user}`);
  return { name: user, server: server ?? admin.server, caPem: admin.caPem, token };
}
