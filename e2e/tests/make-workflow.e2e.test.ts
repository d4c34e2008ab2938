/**
 * The seed's workflow as its users type it: `make` targets with the seed's
 * variables, in a fresh kcp workspace, on the servers `make local-up`
 * starts (kcp, the infrastructure cluster with the Crossplane OTC provider
 * simulator, the OTC simulator). Each step checks what the target did on
 * the servers, not only its output. The targets' output goes to the e2e
 * logs, where the credential guard looks for the simulator's credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SECRET_LABEL } from "@edgeconnect/api";
import { RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { keepE2eLog, REPO_ROOT } from "@edgeconnect/testenv";

const LOCAL_ENV = join(REPO_ROOT, ".cache", "local", "make.env");
const suffix = Math.random().toString(36).slice(2, 8);
const WORKSPACE = `root:make-${suffix}`;

interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/**
 * `make <args>` from the repository root, as a user with an unrelated
 * KUBECONFIG exported would run it: local-up's make.env must win over it.
 */
function make(args: readonly string[], timeoutMs = 300_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn("make", ["--no-print-directory", ...args], { cwd: REPO_ROOT, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      keepE2eLog("make-workflow", `$ make ${args.join(" ")}\n${output}\n`);
      resolve({ code, output });
    });
  });
}

function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: join(tmpdir(), "someone-elses.kubeconfig") };
  for (const name of ["CROSSPLANE_KUBECONFIG", "KCP_WORKSPACE", "OTC_ACCESS_KEY", "OTC_SECRET_KEY", "OTC_AUTH_URL", "MAKEFLAGS", "MAKELEVEL"]) delete env[name];
  return env;
}

/** A value make.env sets, as local-up wrote it. */
function localValue(name: string): string {
  const match = new RegExp(`^${name} := (.*)$`, "m").exec(readFileSync(LOCAL_ENV, "utf8"));
  if (match?.[1] === undefined) throw new Error(`${LOCAL_ENV} sets no ${name}`);
  return match[1];
}

function script(body: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "make-workflow-")), "tool");
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function secretValue(secret: KubeObject): Record<string, string> {
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  return JSON.parse(Buffer.from(data["credentials"] ?? "", "base64").toString("utf8")) as Record<string, string>;
}

describe("make: the seed's workflow on the local servers", () => {
  let kcp: RestClient;
  let infra: RestClient;
  let controller: ChildProcess | undefined;
  let controllerOutput = "";

  beforeAll(async () => {
    const up = await make(["local-up"], 600_000);
    expect(up.output).toContain("the local platform runs");
    expect(up.code).toBe(0);
    expect(up.output).not.toContain(localValue("OTC_SECRET_KEY"));
    kcp = RestClient.fromFile(localValue("KUBECONFIG"));
    infra = RestClient.fromFile(localValue("CROSSPLANE_KUBECONFIG"));
  }, 660_000);

  afterAll(async () => {
    if (controller?.pid !== undefined) {
      process.kill(-controller.pid, "SIGTERM");
      await new Promise((resolve) => controller?.once("close", resolve));
      keepE2eLog("make-workflow-run-kcp-local", controllerOutput);
    }
    kcp?.close();
    infra?.close();
    const down = await make(["local-down"], 120_000);
    expect(down.code).toBe(0);
  }, 180_000);

  it("lists every seed target in make help", async () => {
    const help = await make(["help"]);
    expect(help.code).toBe(0);
    for (const target of ["generate", "manifests", "crossplane-kind", "crossplane-create-otc-secret", "otc-config", "demo-secret-create", "demo-apply-cluster", "demo-up", "demo-kubeconfig", "run-kcp-local", "deploy-kcp-controller", "docker-build"]) {
      expect(help.output).toMatch(new RegExp(`^  ${target} +\\S`, "m"));
    }
  });

  it("stops crossplane-kind and docker-build cleanly when docker info fails, before running anything", async () => {
    const record = join(mkdtempSync(join(tmpdir(), "make-workflow-")), "ran");
    const docker = script("echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2; exit 1");
    const kind = script(`echo kind >> ${record}`);
    for (const target of ["crossplane-kind", "docker-build"]) {
      const ran = await make([target, `DOCKER=${docker}`, `KIND=${kind}`]);
      expect(ran.code).toBe(2);
      expect(ran.output).toContain(`${target} needs Docker, and \`docker info\` failed: Cannot connect to the Docker daemon`);
      expect(ran.output).toContain("Nothing was done.");
    }
    expect(existsSync(record)).toBe(false);
  });

  it("creates the platform's OTC Secret from a credentials file in either format, and refuses a bad one without a change", async () => {
    const path = "/api/v1/namespaces/crossplane-system/secrets/opentelekomcloud-credentials";
    // local-up's credentials file, in the password format.
    const password = await make(["crossplane-create-otc-secret"]);
    expect(password.code).toBe(0);
    const fromPassword = secretValue(await infra.get(path));
    expect(fromPassword).toMatchObject({ user_name: "tenant-0-admin", tenant_name: "eu-de_tenant0" });
    expect(password.output).not.toContain(fromPassword["password"] ?? "no password");

    const dir = mkdtempSync(join(tmpdir(), "make-workflow-"));
    const accessKeyFile = join(dir, "ak-sk.json");
    writeFileSync(accessKeyFile, JSON.stringify({ access_key: "MAKEWORKFLOWAK0001", secret_key: "make-workflow-sk-Tq4", auth_url: localValue("OTC_AUTH_URL"), region: "eu-de" }, null, 2));
    const accessKey = await make(["crossplane-create-otc-secret", `OTC_CREDENTIALS_FILE=${accessKeyFile}`]);
    expect(accessKey.code).toBe(0);
    expect(secretValue(await infra.get(path))).toMatchObject({ access_key: "MAKEWORKFLOWAK0001", secret_key: "make-workflow-sk-Tq4", region: "eu-de" });

    const badFile = join(dir, "bad.txt");
    writeFileSync(badFile, "user_name=someone\npassword=bad-file-Passw0rd\n");
    const bad = await make(["crossplane-create-otc-secret", `OTC_CREDENTIALS_FILE=${badFile}`]);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain("would be refused");
    expect(bad.output).not.toContain("bad-file-Passw0rd");
    expect(secretValue(await infra.get(path))).toMatchObject({ access_key: "MAKEWORKFLOWAK0001" });

    // The ClusterProviderConfig of hack/crossplane-otc-providerconfig.yaml names that Secret.
    const config = await infra.get<KubeObject & { spec?: { credentials?: { secretRef?: { name?: string } } } }>("/apis/opentelekomcloud.m.crossplane.io/v1beta1/clusterproviderconfigs/infra");
    expect(config.spec?.credentials?.secretRef?.name).toBe("opentelekomcloud-credentials");
  });

  it("says which variable a target lacks", async () => {
    const ran = await make(["demo-apply-cluster"]);
    expect(ran.code).toBe(2);
    expect(ran.output).toContain("KCP_WORKSPACE is not set: make KCP_WORKSPACE=root:orgs demo-apply-cluster");
  });

  it("orders the demo cluster in a fresh workspace, runs the controller, waits for it and hands out its kubeconfig", async () => {
    const secret = await make(["demo-secret-create", `KCP_WORKSPACE=${WORKSPACE}`]);
    expect(secret.code).toBe(0);
    expect(secret.output).toContain(`workspace ${WORKSPACE} created`);
    const tenant = kcp.cluster(WORKSPACE);
    const stored = await tenant.get<KubeObject>("/api/v1/namespaces/demo/secrets/otc-creds");
    expect(stored.metadata?.labels?.[SECRET_LABEL.key]).toBe(SECRET_LABEL.value);
    expect(secretValue(stored)).toEqual({ access_key: localValue("OTC_ACCESS_KEY"), secret_key: localValue("OTC_SECRET_KEY"), auth_url: localValue("OTC_AUTH_URL"), region: "eu-de", tenant_name: "eu-de_tenant0" });

    const apply = await make(["demo-apply-cluster", `KCP_WORKSPACE=${WORKSPACE}`]);
    expect(apply.code).toBe(0);
    expect(apply.output).toContain("KubernetesCluster demo-cluster applied");

    controller = spawn("make", ["--no-print-directory", "run-kcp-local", `KCP_WORKSPACE=${WORKSPACE}`, "METRICS_BIND_ADDRESS=0", "HEALTH_PROBE_BIND_ADDRESS=0"], { cwd: REPO_ROOT, env: userEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    controller.stdout?.on("data", (chunk: Buffer) => (controllerOutput += chunk.toString()));
    controller.stderr?.on("data", (chunk: Buffer) => (controllerOutput += chunk.toString()));

    const up = await make(["demo-up", `KCP_WORKSPACE=${WORKSPACE}`, "DEMO_POLL_INTERVAL=1s", "DEMO_TIMEOUT=4m"], 300_000);
    expect(controllerOutput).toContain("starting the provider-controller");
    expect(up.output).toMatch(/VpcV1 Synced Ready · SubnetV1 Synced Ready · ClusterV3 Synced Ready · NodePoolV3 Synced/);
    expect(up.output).toContain("demo-cluster is up after");
    expect(up.code).toBe(0);

    const target = join(mkdtempSync(join(tmpdir(), "make-workflow-")), "demo.kubeconfig");
    const kubeconfig = await make(["demo-kubeconfig", `KCP_WORKSPACE=${WORKSPACE}`, `DEMO_KUBECONFIG=${target}`]);
    expect(kubeconfig.code).toBe(0);
    const workload = RestClient.fromFile(target);
    try {
      const namespaces = await workload.list("/api/v1/namespaces");
      expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain("kube-system");
    } finally {
      workload.close();
    }
  }, 420_000);

  it("installs the controller's chart with its kcp kubeconfig in a Secret", async () => {
    const ran = await make(["deploy-kcp-controller", `NAMESPACE=make-${suffix}`, `RELEASE=make-${suffix}`, "ROLLOUT_TIMEOUT=2s", "IMG=registry.local:5000/provider-controller:e2e"]);
    expect(ran.code).toBe(0);
    const deployments = await infra.list<KubeObject & { spec?: { template?: { spec?: { containers?: { image?: string; args?: string[] }[] } } } }>(`/apis/apps/v1/namespaces/make-${suffix}/deployments`);
    const container = deployments.items[0]?.spec?.template?.spec?.containers?.[0];
    expect(container?.image).toBe("registry.local:5000/provider-controller:e2e");
    expect(container?.args).toContain(`--allowed-otc-auth-url=${new URL(localValue("OTC_AUTH_URL")).origin}/`);
    const secret = await infra.get<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/make-${suffix}/secrets/make-${suffix}-kcp`);
    expect(Buffer.from(secret.data?.["kubeconfig"] ?? "", "base64").toString("utf8")).toContain(`/clusters/${localValue("KCP_PROVIDER_WORKSPACE")}`);
    expect(ran.output).toContain("KCP_CONTROLLER_KUBECONFIG is not set");
  });

  it("regenerates the manifests without a change to what is committed", async () => {
    const ran = await make(["manifests"]);
    expect(ran.code).toBe(0);
    const check = await new Promise<number | null>((resolve) => spawn("git", ["diff", "--quiet", "--", "apiexports", "packages/api/src/generated"], { cwd: REPO_ROOT }).once("close", resolve));
    expect(check).toBe(0);
  });
});
