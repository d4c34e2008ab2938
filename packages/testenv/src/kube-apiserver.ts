/**
 * A vanilla Kubernetes control plane for tests: etcd, kube-apiserver and
 * kube-controller-manager on loopback; no scheduler and no kubelet, so Pods
 * are stored but never run. It plays the infrastructure cluster (where
 * provider objects land) and the workload cluster of the cloud controller
 * manager.
 *
 * Authentication is by bearer tokens: a random one of a `system:masters`
 * user, written into the admin kubeconfig, and one of the user
 * `system:kube-controller-manager`, which the bootstrap RBAC grants what the
 * controller manager needs; optionally also the ID tokens of JWT issuers
 * such as an `OidcIssuer` (`authenticationConfiguration`). The serving
 * certificate is the one kube-apiserver makes for itself, trusted by both
 * kubeconfigs. `sa.key`
 * signs service account tokens (the API server's TokenRequest, the
 * controller manager's legacy token Secrets) and verifies them. The
 * ServiceAccount admission plugin is on, as in a real cluster: the
 * controller manager gives every namespace its `default` account.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdServer } from "./etcd-server.js";
import { eventually, holds } from "./eventually.js";
import { writeKubeconfig } from "./kubeconfig.js";
import { freePort, startOnFreePorts } from "./ports.js";
import type { Reaper } from "./reaper.js";
import { RestClient } from "@edgeconnect/kcp-ts";
import { resolveBinary, type ResolveOptions } from "./binaries.js";
import { KubeControllerManager } from "./kube-controller-manager.js";
import type { JwtAuthenticator } from "./oidc-issuer.js";
import { ServerProcess } from "./server-process.js";

/** The binaries of a control plane, as `KubeApiServer.start` takes them. */
export interface ControlPlaneBinaries {
  readonly kubeApiServerBinary: string;
  readonly kubeControllerManagerBinary: string;
  readonly etcdBinary: string;
}

/** kube-apiserver, kube-controller-manager and etcd, resolved (and built if need be) together. */
export async function resolveControlPlaneBinaries(options: ResolveOptions = {}): Promise<ControlPlaneBinaries> {
  const [kubeApiServer, kubeControllerManager, etcd] = await Promise.all([
    resolveBinary("kube-apiserver", options),
    resolveBinary("kube-controller-manager", options),
    resolveBinary("etcd", options),
  ]);
  return { kubeApiServerBinary: kubeApiServer.path, kubeControllerManagerBinary: kubeControllerManager.path, etcdBinary: etcd.path };
}

export interface KubeApiServerOptions extends ControlPlaneBinaries {
  /** Directory for certificates, etcd data and logs; a fresh temporary one when absent. */
  readonly dir?: string;
  readonly keepDir?: boolean;
  readonly reaper?: Reaper;
  /** How long kube-apiserver, and then kube-controller-manager, may each take to start. Default 120 s. */
  readonly startTimeoutMs?: number;
  /**
   * PEM of a CA whose client certificates the server accepts besides the
   * admin token (`--client-ca-file`): how a simulated cloud hands out
   * kubeconfigs that really work against this server.
   */
  readonly clientCaPem?: string;
  /**
   * Written as kube-apiserver's structured authentication configuration
   * (`--authentication-config`): JWT issuers, e.g. an `OidcIssuer`'s
   * `jwtAuthenticator`, whose tokens the server accepts besides the static ones.
   */
  readonly authenticationConfiguration?: AuthenticationConfiguration;
}

/** The content of kube-apiserver's AuthenticationConfiguration, without apiVersion and kind. */
export interface AuthenticationConfiguration {
  readonly jwt: readonly JwtAuthenticator[];
}

/** GA since Kubernetes 1.34 (the pinned version); v1beta1 would still be read too. */
const AUTHENTICATION_CONFIG_API_VERSION = "apiserver.config.k8s.io/v1";
const AUTHENTICATION_CONFIG = "authentication-config.json";

/** A kube-apiserver process on its port, before it serves. */
interface LaunchedApiServer {
  readonly process: ServerProcess;
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
}

/** The bearer tokens of the two users of tokens.csv. */
interface Tokens {
  readonly admin: string;
  readonly controllerManager: string;
}

const ADMIN_KUBECONFIG = "admin.kubeconfig";
const CONTROLLER_MANAGER_KUBECONFIG = "kube-controller-manager.kubeconfig";

export class KubeApiServer {
  private constructor(
    private readonly etcd: EtcdServer,
    private readonly apiServer: ServerProcess,
    private readonly controllerManager: KubeControllerManager,
    private readonly options: KubeApiServerOptions,
    readonly dir: string,
    /** `https://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  static async start(options: KubeApiServerOptions): Promise<KubeApiServer> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-kube-"));
    options.reaper?.removeOnExit(dir);
    const tokens: Tokens = { admin: randomBytes(24).toString("hex"), controllerManager: randomBytes(24).toString("hex") };
    prepareCredentials(dir, tokens, options);
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const reaper = options.reaper ? { reaper: options.reaper } : {};
    let etcd: EtcdServer | undefined;
    let apiServer: LaunchedApiServer | undefined;
    try {
      etcd = await EtcdServer.start({ binary: options.etcdBinary, dir, ...reaper });
      const storage = etcd;
      apiServer = await startOnFreePorts({
        launch: () => launchApiServer(options, dir, storage),
        ready: (launched) => waitUntilServing(launched, dir, tokens, timeoutMs),
        processOf: (launched) => launched.process,
      });
      // Only once the API server serves: until then a launch that lost its
      // port is stopped and relaunched on another, away from a controller
      // manager started against the first.
      const client = RestClient.fromFile(join(dir, ADMIN_KUBECONFIG));
      const controllerManager = await KubeControllerManager.start({
        binary: options.kubeControllerManagerBinary,
        kubeconfig: join(dir, CONTROLLER_MANAGER_KUBECONFIG),
        serviceAccountKeyFile: join(dir, "sa.key"),
        rootCaFile: join(dir, "certs", "apiserver.crt"),
        dir,
        client,
        startTimeoutMs: timeoutMs,
        ...reaper,
      }).finally(() => client.close());
      return new KubeApiServer(etcd, apiServer.process, controllerManager, options, dir, apiServer.url);
    } catch (err) {
      await apiServer?.process.stop();
      await etcd?.stop();
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get kubeconfigPath(): string {
    return join(this.dir, ADMIN_KUBECONFIG);
  }

  adminClient(): RestClient {
    return RestClient.fromFile(this.kubeconfigPath);
  }

  /** Each server before what it depends on: the controller manager, the API server, etcd. */
  async stop(): Promise<void> {
    await this.controllerManager.stop();
    await this.apiServer.stop();
    await this.etcd.stop();
    if (!this.options.keepDir) {
      rmSync(this.dir, { recursive: true, force: true });
      this.options.reaper?.forgetDirectory(this.dir);
    }
  }
}

async function launchApiServer(options: KubeApiServerOptions, dir: string, etcd: EtcdServer): Promise<LaunchedApiServer> {
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
      "--authorization-mode=RBAC",
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      `--service-account-issuer=${url}`,
      `--service-account-key-file=${join(dir, "sa.key")}`,
      `--service-account-signing-key-file=${join(dir, "sa.key")}`,
      ...(options.clientCaPem === undefined ? [] : [`--client-ca-file=${join(dir, "client-ca.crt")}`]),
      ...(options.authenticationConfiguration === undefined ? [] : [`--authentication-config=${join(dir, AUTHENTICATION_CONFIG)}`]),
    ],
    logFile: join(dir, "kube-apiserver.log"),
    ...(options.reaper ? { reaper: options.reaper } : {}),
  });
  return { process, url };
}

/** Writes both kubeconfigs once the serving certificate exists, then waits for /livez and /readyz. */
async function waitUntilServing(server: LaunchedApiServer, dir: string, tokens: Tokens, timeoutMs: number): Promise<void> {
  const certificate = join(dir, "certs", "apiserver.crt");
  const deadline = Date.now() + timeoutMs;
  // kube-apiserver writes its self-signed certificate (serving cert and CA)
  // before it listens; the kubeconfigs trust exactly that. The file is
  // created before it is written: read too early it is empty, and a client
  // trusting nothing of it fails every probe until the deadline.
  const caPem = await eventually(
    () => {
      server.process.assertRunning();
      const pem = readFileSync(certificate, "utf8");
      return holds(pem.match(/-----END CERTIFICATE-----/g)?.length === 2, "serving certificate and CA not written yet", pem);
    },
    { timeoutMs, description: "kube-apiserver self-signed certificate" },
  );
  writeKubeconfig(join(dir, ADMIN_KUBECONFIG), { name: "testenv-kube-apiserver", server: server.url, caPem, token: tokens.admin });
  writeKubeconfig(join(dir, CONTROLLER_MANAGER_KUBECONFIG), {
    name: "testenv-kube-controller-manager",
    server: server.url,
    caPem,
    token: tokens.controllerManager,
  });
  const client = RestClient.fromFile(join(dir, ADMIN_KUBECONFIG));
  try {
    for (const probe of ["/livez", "/readyz"]) {
      await eventually(
        async () => {
          server.process.assertRunning();
          await client.request("GET", probe);
          return [true, undefined];
        },
        { timeoutMs: Math.max(1, deadline - Date.now()), description: `kube-apiserver ${probe}` },
      );
    }
  } finally {
    client.close();
  }
}

function prepareCredentials(dir: string, tokens: Tokens, { clientCaPem, authenticationConfiguration }: KubeApiServerOptions): void {
  mkdirSync(join(dir, "certs"), { recursive: true });
  if (clientCaPem !== undefined) writeFileSync(join(dir, "client-ca.crt"), clientCaPem);
  if (authenticationConfiguration !== undefined) {
    const config = { apiVersion: AUTHENTICATION_CONFIG_API_VERSION, kind: "AuthenticationConfiguration", ...authenticationConfiguration };
    writeFileSync(join(dir, AUTHENTICATION_CONFIG), JSON.stringify(config, null, 2));
  }
  // token,user,uid,"group": the controller manager's user is in no group, as in a real cluster.
  writeFileSync(
    join(dir, "tokens.csv"),
    `${tokens.admin},testenv-admin,testenv-admin,"system:masters"\n${tokens.controllerManager},system:kube-controller-manager,system:kube-controller-manager\n`,
    { mode: 0o600 },
  );
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(join(dir, "sa.key"), privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 });
}
