#!/usr/bin/env node
/**
 * `make local-up` / `make local-down`: the servers the seed's workflow
 * targets talk to, on this machine, in the background. kcp with the
 * provider workspace `root:edgeconnect` (our APIExport and flavors), the
 * infrastructure cluster (kube-apiserver, kube-controller-manager, etcd)
 * with the Crossplane OTC provider simulator and the ClusterProviderConfig of
 * hack/crossplane-otc-providerconfig.yaml, the OTC simulator, and a workload
 * kube-apiserver behind simulated CCE. No provider-controller:
 * `make run-kcp-local` runs it, as the seed's flow does.
 *
 *   local-platform.js up     start in the background; returns once ready
 *   local-platform.js down   stop what `up` started
 *
 * `up` writes .cache/local/make.env, which the Makefile includes: the
 * targets then use these servers unless a variable is set on make's command
 * line. State and logs live in .cache/local/ until the next `up`.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyManifests, REPO_ROOT, resolveBinary, TestEnvironment } from "@edgeconnect/testenv";
import { Platform } from "./platform.js";

const DIR = join(REPO_ROOT, ".cache", "local");
const MAKE_ENV = join(DIR, "make.env");
const PID_FILE = join(DIR, "pid");
const LOG_FILE = join(DIR, "local.log");
/** What `up` prints: the variables make.env sets, the credentials among them by name only. */
const SUMMARY_FILE = join(DIR, "summary.txt");
const PROVIDER_WORKSPACE = "edgeconnect";
const STARTUP_TIMEOUT_MS = 10 * 60_000;

async function up(): Promise<number> {
  const running = runningPid();
  if (running !== undefined) {
    console.log(`the local platform runs already (pid ${running}); make local-down stops it`);
    return 0;
  }
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const log = openSync(LOG_FILE, "a");
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "serve"], { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  console.log(`starting kcp, the infrastructure cluster and the simulators (log: ${LOG_FILE})`);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!existsSync(MAKE_ENV)) {
    const code = await Promise.race([exited, new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 500))]);
    if (code !== "waiting" || Date.now() > deadline) {
      if (code === "waiting") process.kill(-(child.pid ?? 0), "SIGTERM");
      console.error(`the local platform did not start${code === "waiting" ? " in time" : ""}; the end of ${LOG_FILE}:\n${readFileSync(LOG_FILE, "utf8").split("\n").slice(-30).join("\n")}`);
      return 1;
    }
  }
  console.log(`the local platform runs (pid ${child.pid ?? "?"}); make local-down stops it. Until then the targets use it: ${readFileSync(SUMMARY_FILE, "utf8")}`);
  return 0;
}

async function serve(): Promise<void> {
  const log = (message: string): void => console.log(`[local] ${message}`);
  const environment = await TestEnvironment.start({ infra: "kube-apiserver", dir: DIR, log });
  // Filled once started: a signal during the start stops what is there.
  const started: { platform?: Platform } = {};
  const stop = async (): Promise<void> => {
    rmSync(MAKE_ENV, { force: true });
    rmSync(PID_FILE, { force: true });
    await started.platform?.stop();
    await environment.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  const { kcp, infra } = environment.state;
  if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
  const platform = await Platform.start({ kcpUrl: kcp.url, kcpKubeconfig: kcp.kubeconfig, infraKubeconfig: infra.kubeconfig, dir: DIR, providerWorkspace: PROVIDER_WORKSPACE, controllerReplicas: 0, leastPrivilege: false, log });
  started.platform = platform;
  // What crossplane-kind applies once the provider's CRDs are served; the simulator serves them now.
  await applyManifests(platform.infra, readFileSync(join(REPO_ROOT, "hack", "crossplane-otc-providerconfig.yaml"), "utf8"));
  const credentialsFile = join(DIR, "otc-credentials.txt");
  writeFileSync(credentialsFile, platform.passwordCredentials(0), { mode: 0o600 });
  const account = platform.tenantCredentials(0);
  const variables: Record<string, string> = {
    KUBECONFIG: kcp.kubeconfig,
    CROSSPLANE_KUBECONFIG: infra.kubeconfig,
    KCP_PROVIDER_WORKSPACE: platform.provider.path,
    OTC_AUTH_URL: `${platform.otc.url}/v3`,
    OTC_ACCESS_KEY: platform.accessKey.accessKey,
    OTC_SECRET_KEY: platform.accessKey.secretKey,
    OTC_PROJECT_NAME: account.projectName,
    OTC_CREDENTIALS_FILE: credentialsFile,
    HELM: (await resolveBinary("helm")).path,
  };
  const secret = new Set(["OTC_ACCESS_KEY", "OTC_SECRET_KEY"]);
  writeFileSync(SUMMARY_FILE, Object.entries(variables).map(([name, value]) => `\n  ${name}${secret.has(name) ? " (the simulator's)" : `=${value}`}`).join(""));
  writeFileSync(PID_FILE, `${process.pid}\n`);
  // A variable on make's command line wins; the environment's does not, so
  // an exported KUBECONFIG does not send the local flow to another kcp.
  writeFileSync(
    MAKE_ENV,
    Object.entries(variables)
      .map(([name, value]) => `ifneq ($(origin ${name}),command line)\n${name} := ${value}\nendif\n`)
      .join(""),
    { mode: 0o600 },
  );
  log(`ready: kcp ${kcp.url}, provider workspace ${platform.provider.path}, OTC simulator ${platform.otc.url}`);
}

async function down(): Promise<number> {
  const pid = runningPid();
  if (pid === undefined) {
    console.log("the local platform is not running");
    return 0;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 60_000;
  while (runningPid() !== undefined) {
    if (Date.now() > deadline) {
      console.error(`pid ${pid} did not stop within 60 s; its log: ${LOG_FILE}`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.log("the local platform stopped");
  return 0;
}

/** The pid of a running `serve`, from its file; undefined when there is none or it is gone. */
function runningPid(): number | undefined {
  if (!existsSync(PID_FILE)) return undefined;
  const pid = Number(readFileSync(PID_FILE, "utf8").trim());
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

const command = process.argv[2];
if (command === "serve") {
  serve().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
} else if (command === "up" || command === "down") {
  process.exitCode = await (command === "up" ? up() : down());
} else {
  console.error("usage: local-platform.js up|down");
  process.exitCode = 2;
}
