/**
 * The whole test environment: one kcp and one infrastructure cluster (the
 * local kube-apiserver, or kind when asked for), started together and
 * described by a small JSON state that other processes (Jest workers, the
 * demo's users) read to connect.
 *
 * Usage:
 *   const env = await TestEnvironment.start();     // servers up and ready
 *   const file = env.writeStateFile();             // for other processes
 *   ...
 *   await env.stop();                              // idempotent
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { resolveBinary } from "./binaries.js";
import { KcpServer } from "./kcp-server.js";
import { KindCluster, kindAvailability } from "./kind.js";
import { KubeApiServer, resolveControlPlaneBinaries } from "./kube-apiserver.js";
import { Reaper } from "./reaper.js";
import { RestClient } from "@edgeconnect/kcp-ts";

/**
 * Which infrastructure cluster to use: `EDGECONNECT_E2E_INFRA`, default
 * kube-apiserver; "none" starts kcp alone (benchmarks of the kcp side).
 */
export type InfraMode = "kube-apiserver" | "kind" | "none";

/**
 * Environment variable naming the state files that Jest workers read: one
 * environment per worker, the paths joined by `:`. A worker connects to
 * the one of its `JEST_WORKER_ID` (1, 2, ...), so suites that run at the
 * same time never share a kcp or an infrastructure cluster, and each
 * Crossplane simulator watching all namespaces has a cluster to itself.
 */
export const STATE_ENV_VAR = "EDGECONNECT_TESTENV_STATE";

export interface EnvironmentState {
  readonly kcp: { readonly url: string; readonly kubeconfig: string; readonly logFile: string };
  readonly infra:
    | { readonly mode: InfraMode; readonly kubeconfig: string }
    | { readonly mode: InfraMode; readonly skipped: string };
}

export interface EnvironmentOptions {
  readonly infra?: InfraMode;
  /** Build missing binaries from the module proxy. Default true. */
  readonly build?: boolean;
  /** Keep server state here (the demo); default: temporary directories removed on stop. */
  readonly dir?: string;
  readonly log?: (message: string) => void;
}

export function infraModeFromEnv(env: NodeJS.ProcessEnv = process.env): InfraMode {
  const value = env.EDGECONNECT_E2E_INFRA ?? "kube-apiserver";
  if (value !== "kube-apiserver" && value !== "kind") {
    throw new Error(`EDGECONNECT_E2E_INFRA must be kube-apiserver or kind, not ${value}`);
  }
  return value;
}

export class TestEnvironment {
  private stopped = false;
  private stateDir: string | undefined;

  private constructor(
    readonly state: EnvironmentState,
    private readonly kcp: KcpServer,
    private readonly infra: KubeApiServer | KindCluster | undefined,
    private readonly reaper: Reaper,
  ) {}

  static async start(options: EnvironmentOptions = {}): Promise<TestEnvironment> {
    const log = options.log ?? (() => undefined);
    const mode = options.infra ?? infraModeFromEnv();
    const resolve = { build: options.build ?? true, log };
    const [kcpBinary, controlPlaneBinaries] = await Promise.all([
      resolveBinary("kcp", resolve),
      mode === "kube-apiserver" ? resolveControlPlaneBinaries(resolve) : undefined,
    ]);
    const reaper = Reaper.start();
    const keepDir = options.dir !== undefined;
    const dirFor = (name: string): { dir?: string } => {
      if (options.dir === undefined) return {};
      const dir = join(options.dir, name);
      mkdirSync(dir, { recursive: true });
      return { dir };
    };

    const started = Date.now();
    const kcpStart = KcpServer.start({ binary: kcpBinary.path, reaper, keepDir, ...dirFor("kcp") });
    const infraStart = (async (): Promise<KubeApiServer | KindCluster | string> => {
      if (mode === "none") return "no infrastructure cluster requested";
      if (mode === "kube-apiserver" && controlPlaneBinaries) {
        return KubeApiServer.start({
          ...controlPlaneBinaries,
          reaper,
          keepDir,
          ...dirFor("kube-apiserver"),
        });
      }
      const availability = await kindAvailability(process.env.KIND_BIN ?? "kind");
      if (!availability.available) return `kind requested but unavailable: ${availability.reason}`;
      const dir = dirFor("kind").dir ?? mkdtempSync(join(tmpdir(), "edgeconnect-kind-"));
      if (!keepDir) reaper.removeOnExit(dir);
      return KindCluster.create("edgeconnect-e2e", join(dir, "kind.kubeconfig"), process.env.KIND_BIN ?? "kind");
    })();

    const [kcpResult, infraResult] = await Promise.allSettled([kcpStart, infraStart]);
    if (kcpResult.status === "rejected" || infraResult.status === "rejected") {
      if (kcpResult.status === "fulfilled") await kcpResult.value.stop();
      if (infraResult.status === "fulfilled" && typeof infraResult.value !== "string") await stopInfra(infraResult.value);
      await reaper.close();
      throw kcpResult.status === "rejected" ? kcpResult.reason : (infraResult as PromiseRejectedResult).reason;
    }
    const kcp = kcpResult.value;
    const infra = infraResult.value;
    log(`kcp and ${mode} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (typeof infra === "string") log(infra);

    const state: EnvironmentState = {
      kcp: { url: kcp.url, kubeconfig: kcp.kubeconfigPath, logFile: kcp.logFile },
      infra: typeof infra === "string" ? { mode, skipped: infra } : { mode, kubeconfig: infra.kubeconfigPath },
    };
    return new TestEnvironment(state, kcp, typeof infra === "string" ? undefined : infra, reaper);
  }

  /**
   * Writes the state to a file of its own, removed on stop (or by the reaper
   * if this process dies), and returns its path: what Jest workers read.
   */
  writeStateFile(): string {
    this.stateDir ??= mkdtempSync(join(tmpdir(), "edgeconnect-state-"));
    this.reaper.removeOnExit(this.stateDir);
    const path = join(this.stateDir, "state.json");
    saveState(path, this.state);
    return path;
  }

  /** Restarts kcp on its ports and state (`KcpServer.restart`). */
  async restartKcp(): Promise<void> {
    await this.kcp.restart();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([this.kcp.stop(), this.infra === undefined ? undefined : stopInfra(this.infra)]);
    if (this.stateDir !== undefined) rmSync(this.stateDir, { recursive: true, force: true });
    await this.reaper.close();
  }
}

async function stopInfra(infra: KubeApiServer | KindCluster): Promise<void> {
  await (infra instanceof KindCluster ? infra.delete() : infra.stop());
}

export function saveState(path: string, state: EnvironmentState): void {
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export function loadState(path: string): EnvironmentState {
  return JSON.parse(readFileSync(path, "utf8")) as EnvironmentState;
}

/** Clients for a running environment, from its state. */
export interface Connection {
  /** kcp admin on the root workspace. */
  readonly kcp: RestClient;
  /** Admin on the infrastructure cluster, or why it is skipped. */
  readonly infra: RestClient | { readonly skipped: string };
  readonly state: EnvironmentState;
}

export function connect(state: EnvironmentState): Connection {
  return {
    kcp: RestClient.fromFile(state.kcp.kubeconfig),
    infra: "skipped" in state.infra ? { skipped: state.infra.skipped } : RestClient.fromFile(state.infra.kubeconfig),
    state,
  };
}

/** Connects to this Jest worker's environment of EDGECONNECT_TESTENV_STATE (set by the Jest global setup). */
export function connectFromEnv(env: NodeJS.ProcessEnv = process.env): Connection {
  return connect(loadState(workerStatePath(env)));
}

/** The state file of this worker (`JEST_WORKER_ID`, 1 when Jest runs in band) among those EDGECONNECT_TESTENV_STATE names. */
export function workerStatePath(env: NodeJS.ProcessEnv = process.env): string {
  const paths = (env[STATE_ENV_VAR] ?? "").split(delimiter).filter((path) => path !== "");
  if (paths.length === 0) {
    throw new Error(`${STATE_ENV_VAR} is not set: run these tests through the e2e Jest project, which starts the servers`);
  }
  const worker = Number(env.JEST_WORKER_ID ?? "1");
  const path = paths[worker - 1];
  if (!Number.isInteger(worker) || path === undefined) {
    throw new Error(`${STATE_ENV_VAR} names ${paths.length} environments, none for Jest worker ${env.JEST_WORKER_ID}: the global setup starts one per worker`);
  }
  return path;
}
