#!/usr/bin/env node
/**
 * `pnpm test:chaos`: many tenants order clusters while everything around
 * the provider-controller fails, then tear them down in every way a tenant
 * can, then hostile generated input goes through kcp. It exits non-zero on
 * any violation and prints its figures as a table (stdout) and JSON.
 *
 * 1. Orders under faults. `--tenants` workspaces of the tenant type, each
 *    with an OTC account of its own and the same namespace and cluster name
 *    (`default/my-cluster`), order a cluster at once. Meanwhile: the
 *    controller is SIGKILLed at random intervals (`--kill-min-s` to
 *    `--kill-max-s`), kcp is restarted once (same ports and state), every
 *    open connection of the controller to the infrastructure cluster (its
 *    watches) is cut through a proxy, and the OTC simulator answers a share
 *    of the controller's IAM and cluster-certificate calls with 500, 429 and
 *    lost answers (the request took effect, the answer did not come),
 *    counted as the controller was answered with them. After each cut and
 *    before the kill, the live controller must finish a change made after
 *    the cut (a probe cluster of its own tenant is scaled), which it can see
 *    only through new watches. Judged: every cluster becomes Ready exactly
 *    once and never falls back; the controller recovered from every cut;
 *    the cloud got exactly one CCE cluster per order; every `kcp-<fp>`
 *    namespace holds only its own tenant's credentials.
 * 2. Teardown in every way, a quarter of the tenants each: delete the
 *    cluster; delete the credentials Secret and the ProviderConfig first,
 *    then the cluster; unbind the export; delete the workspace. The
 *    controller is killed once more on the way. Judged: nothing left in the
 *    OTC simulator and no `kcp-*` namespace on the infrastructure cluster;
 *    per way, the tenants whose calls went through and whose project and
 *    namespace are empty are counted.
 * 3. Generated input (`--fuzz`, generated-input.ts): bundles of Secret,
 *    ProviderConfig, MachineCapabilities and KubernetesCluster, valid and
 *    invalid, through kcp (fuzz-run.ts). Judged: the controller never
 *    crashed, every accepted cluster got a condition for its generation,
 *    every valid one became Ready, every invalid one was refused by the
 *    schema or told what to change, and nothing was made in the cloud for
 *    any invalid one.
 * Throughout: no tenant's identity acted in another's OTC project (from the
 * simulator's request log), and at the end the e2e credential guard's scan
 * of this environment (Events, statuses, every log) finds no credential,
 * generated ones included (every tenant's password, the generated input's).
 *
 * The processes' logs and the platform's files stay in `.cache/chaos/` until
 * the next run; the servers keep their state in temporary directories, kcp's
 * embedded etcd on a tmpfs where the machine has one, as the e2e run's kcp
 * (testenv's memory-dir.ts says why).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { KUBERNETES_CLUSTER_RESOURCE, objectPath, PROVIDER_CONFIG_RESOURCE } from "@edgeconnect/api";
import { orderCluster, Platform, type TenantCredentials } from "@edgeconnect/demo";
import { deleteIfPresent, RestClient, type KubeObject } from "@edgeconnect/kcp-ts";
import { tenantNamespace } from "@edgeconnect/provisioning";
import { E2E_LOG_DIR_ENV_VAR, readKubeconfig, Reaper, REPO_ROOT, StallingProxy, TestEnvironment, type Workspace } from "@edgeconnect/testenv";
import { formatTable } from "../bench/report.js";
import { pool, sleep, waitFor, withRetry } from "../bench/measure.js";
import { errorText, isReady, log, stateOf, WORKSPACE_CONCURRENCY, type Cluster } from "../bench/platform-run.js";
import { inspect } from "../src/global-teardown.js";
import { ChaosPhase, killController, type ChaosFigures } from "./chaos-phase.js";
import {
  clusterCreates,
  cloudObjectCount,
  crossTenantRequests,
  doubleCreates,
  readyForGeneration,
  ReadyHistory,
  tornDownByWay,
  type CloudAccount,
  type TeardownRecord,
} from "./chaos-checks.js";
import { parseChaosFlags, type ChaosFlags } from "./chaos-flags.js";
import { runGeneratedInput, workspacesFor, type GeneratedInputFigures } from "./fuzz-run.js";
import { seededRandom } from "./random.js";

const CLUSTER_PATH = objectPath(KUBERNETES_CLUSTER_RESOURCE, "default", "my-cluster");
const TEARDOWN_WAYS = ["delete the cluster", "delete credentials and ProviderConfig first", "unbind the export", "delete the workspace"] as const;
type TeardownWay = (typeof TEARDOWN_WAYS)[number];
const POLL_MS = 1_000;
/** How long the controller may take, after a cut, to finish the probe's change; past it the cut is a violation. */
const RECOVERY_TIMEOUT_MS = 90_000;
const PROBE_POLL_MS = 250;

interface Tenant {
  readonly index: number;
  readonly workspace: Workspace;
  readonly account: CloudAccount;
  readonly way: TeardownWay;
}

interface ChaosResult {
  readonly parameters: ChaosFlags;
  readonly startedAt: string;
  readonly setupS: number;
  readonly orders: { readonly clusters: number; readonly allReadyS: number | undefined; readonly notReady: readonly string[] } & ChaosFigures;
  readonly teardown: {
    /** Per way, the tenants torn down that way: calls answered, project empty, namespace gone. */
    readonly byWay: Readonly<Record<string, number>>;
    readonly doneS: number | undefined;
    readonly cloudObjectsLeft: number;
    readonly namespacesLeft: readonly string[];
    /** SIGKILLs of the controller during teardown that ended it. */
    readonly kills: number;
  };
  readonly generatedInput: GeneratedInputFigures | undefined;
  readonly crossTenant: { readonly otcRequests: number; readonly credentialMismatches: readonly string[] };
  readonly credentialGuard: { readonly texts: number; readonly credentials: number; readonly generatedCredentials: number; readonly findings: readonly string[] };
  readonly violations: readonly string[];
  readonly totalS: number;
}

async function main(): Promise<number> {
  const flags = parseChaosFlags(process.argv.slice(2));
  const began = Date.now();
  const seconds = (since: number): number => Math.round((Date.now() - since) / 100) / 10;
  const dir = join(REPO_ROOT, ".cache", "chaos");
  rmSync(dir, { recursive: true, force: true });
  // Process logs apart from kubeconfigs: the credential scan reads every file there.
  const logDir = join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  mkdirSync(join(dir, "platform"), { recursive: true });
  process.env[E2E_LOG_DIR_ENV_VAR] = logDir;
  const violations: string[] = [];

  log("starting kcp and the infrastructure cluster");
  const environment = await TestEnvironment.start({ infra: "kube-apiserver", log });
  const { kcp, infra } = environment.state;
  if (!("kubeconfig" in infra)) throw new Error(`the infrastructure cluster did not start: ${infra.skipped}`);
  const proxy = await StallingProxy.start({ upstream: readKubeconfig(infra.kubeconfig).server });
  // Kills what the platform started should this process die (Ctrl-C, a timeout's SIGKILL).
  const reaper = Reaper.start();
  let platform: Platform | undefined;
  // kcp writes a new admin token on every start: after the restart, clients are made anew.
  let admin = RestClient.fromFile(kcp.kubeconfig);
  const infraAdmin = RestClient.fromFile(infra.kubeconfig);
  try {
    platform = await Platform.start({
      kcpUrl: kcp.url,
      kcpKubeconfig: kcp.kubeconfig,
      infraKubeconfig: infra.kubeconfig,
      dir: join(dir, "platform"),
      // The last account is the recovery probe's.
      tenantAccounts: flags.tenants + 1,
      reaper,
      controllerInfraServer: proxy.url,
      // Generated input puts hundreds of clusters into one workspace.
      controllerArgs: () => ["--max-clusters-per-workspace=1000"],
      log,
    });
    const running = platform;
    // Ordered first, so that it is Ready, or nearly, by the first cut.
    const probe = await RecoveryProbe.order(running, flags.tenants, () => admin);
    const tenants = await createTenants(running, flags.tenants);
    // Made now: after kcp's restart the platform's own kcp client has a stale token.
    const fuzzWorkspaces = await Promise.all(Array.from({ length: workspacesFor(flags.fuzz) }, (_, k) => withRetry(`workspace fuzz-${k}`, () => running.createTenant(`fuzz-${k}`))));
    const setupS = seconds(began);

    // 1. Orders under faults.
    const history = new ReadyHistory();
    const orderStart = Date.now();
    await pool(tenants.length, 16, async (i) => {
      const tenant = tenants[i];
      if (tenant !== undefined) await withRetry(`order in ${tenant.workspace.path}`, () => orderCluster(tenant.workspace.client, { credentials: running.passwordCredentials(tenant.index) }));
    });
    const chaos = new ChaosPhase({
      random: seededRandom(flags.seed),
      killMinMs: flags.killMinS * 1000,
      killMaxMs: flags.killMaxS * 1000,
      platform: running,
      proxy,
      restartKcp: async () => {
        await environment.restartKcp();
        admin.close();
        admin = RestClient.fromFile(kcp.kubeconfig);
      },
      awaitRecovery: () => probe.changeAndAwait(RECOVERY_TIMEOUT_MS),
      log,
    });
    const allReady = await waitFor(
      async () => {
        await observe(admin, tenants, history);
        return tenants.every((tenant) => history.isReady(tenant.workspace.path));
      },
      { timeoutMs: flags.timeoutS * 1000, intervalMs: POLL_MS },
    );
    const allReadyS = allReady ? seconds(orderStart) : undefined;
    const figures = await chaos.stop();
    const notReady = await describeNotReady(admin, tenants, history);
    if (!allReady) violations.push(`not every cluster became Ready within ${flags.timeoutS} s: ${notReady.join("; ")}`);
    violations.push(...history.violations(tenants.map((tenant) => tenant.workspace.path)));
    if (figures.unrecovered > 0) violations.push(`after ${figures.unrecovered} of ${figures.connectionCuts} cuts the live controller did not finish a change made after the cut within ${RECOVERY_TIMEOUT_MS / 1000} s`);
    const accounts = [...tenants.map((tenant) => tenant.account), probe.account];
    violations.push(...doubleCreates(clusterCreates(running.otc.faults.requests), accounts.map((account) => account.project)));
    const credentialMismatches = await foreignCredentials(infraAdmin, tenants, running);
    violations.push(...credentialMismatches);
    log(
      `orders: ${allReadyS === undefined ? "not all Ready" : `all Ready after ${allReadyS} s`}; ${figures.kills} kills, ${figures.kcpRestarts} kcp restart, ${figures.connectionCuts} cuts (${figures.recoveries} recovered), ${figures.faultsAnswered} faults answered to the controller`,
    );

    // 2. Teardown in every way.
    const teardownStart = Date.now();
    const records = await tearDown(admin, tenants);
    await deleteIfPresent(admin.cluster(probe.workspace.path), CLUSTER_PATH);
    for (const record of records.filter((entry) => entry.error !== undefined)) violations.push(`teardown "${record.way}" of ${record.namespace} failed: ${record.error ?? ""}`);
    await sleep(3_000);
    const teardownKills = (await killController(running)) ? 1 : 0;
    if (teardownKills === 0) violations.push("the controller's SIGKILL during teardown did not end it");
    const cleared = await waitFor(
      // A failed read is "not yet": the controller's kills do not touch the infrastructure cluster, but a loaded one may answer late.
      async () => cloudObjectCount(running.otc.liveObjects()) === 0 && (await tenantNamespaces(infraAdmin).catch(() => ["unread"])).length === 0,
      { timeoutMs: flags.timeoutS * 1000, intervalMs: POLL_MS },
    );
    const teardownS = cleared ? seconds(teardownStart) : undefined;
    const cloudObjectsLeft = cloudObjectCount(running.otc.liveObjects());
    const namespacesLeft = await tenantNamespaces(infraAdmin);
    if (!cleared) violations.push(`after teardown: ${cloudObjectsLeft} objects left in the cloud (${JSON.stringify(running.otc.liveObjects())}), namespaces left: ${namespacesLeft.join(", ") || "none"}`);
    const byWay = tornDownByWay(records, TEARDOWN_WAYS, (project) => cloudObjectCount(running.otc.liveObjects(project)), new Set(namespacesLeft));
    log(`teardown: ${teardownS === undefined ? "incomplete" : `done after ${teardownS} s`}`);

    // 3. Generated input.
    let generatedInput: GeneratedInputFigures | undefined;
    if (flags.fuzz > 0) {
      generatedInput = await runGeneratedInput({ platform: running, admin, infra: infraAdmin, workspaces: fuzzWorkspaces, count: flags.fuzz, seed: flags.seed, timeoutMs: flags.timeoutS * 1000, log });
      violations.push(...generatedInput.violations);
    }

    const crossTenant = crossTenantRequests(running.otc.faults.requests, accounts);
    if (crossTenant.length > 0) violations.push(`${crossTenant.length} OTC requests of one tenant's identity in another's project, e.g. ${JSON.stringify(crossTenant.slice(0, 3))}`);
    const guard = await inspect([environment.state], logDir);
    const findings = guard.findings.map((finding) => `${finding.credential} in ${finding.where}`);
    if (guard.error !== undefined) violations.push(`credential scan failed: ${guard.error}`);
    violations.push(...findings.map((finding) => `credential shown: ${finding}`));

    const result: ChaosResult = {
      parameters: flags,
      startedAt: new Date(began).toISOString(),
      setupS,
      orders: { clusters: tenants.length, allReadyS, notReady: allReady ? [] : notReady, ...figures },
      teardown: {
        byWay,
        doneS: teardownS,
        cloudObjectsLeft,
        namespacesLeft,
        kills: teardownKills,
      },
      generatedInput,
      crossTenant: { otcRequests: crossTenant.length, credentialMismatches },
      credentialGuard: { texts: guard.scanned.texts, credentials: guard.scanned.credentials, generatedCredentials: guard.scanned.generated, findings },
      violations,
      totalS: seconds(began),
    };
    const out = resolve(flags.out ?? join(REPO_ROOT, ".cache", "reports", "chaos.json"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${renderChaosTable(result)}\n\nJSON: ${out}\n`);
    for (const violation of violations) process.stdout.write(`VIOLATION: ${violation}\n`);
    return violations.length === 0 ? 0 : 1;
  } finally {
    admin.close();
    infraAdmin.close();
    await platform?.stop().catch((err: unknown) => log(`stopping the platform: ${errorText(err)}`));
    await proxy.close();
    await reaper.close();
    await environment.stop();
  }
}

/** The tenant workspaces, a teardown way each, in turn. */
async function createTenants(platform: Platform, count: number): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  await pool(count, WORKSPACE_CONCURRENCY, async (index) => {
    const workspace = await withRetry(`workspace chaos-${index}`, () => platform.createTenant(`chaos-${index}`));
    tenants.push({ index, workspace, account: cloudAccount(platform, platform.tenantCredentials(index)), way: TEARDOWN_WAYS[index % TEARDOWN_WAYS.length] ?? "delete the cluster" });
  });
  log(`${count} tenant workspaces bound`);
  return tenants.sort((a, b) => a.index - b.index);
}

function cloudAccount(platform: Platform, credentials: TenantCredentials): CloudAccount {
  const project = platform.otc.state.projects.find((candidate) => candidate.name === credentials.projectName);
  return { user: `${credentials.domainName}/${credentials.userName}`, project: project?.id ?? "" };
}

/**
 * A tenant of its own, outside the judged ones, on which each cut's
 * recovery is proven: after the cut its cluster is scaled (2 and 3 nodes in
 * turn), and the controller can report it Ready for that generation only
 * after it saw the Crossplane node pool's new status, which reaches it
 * through a watch opened after the cut.
 */
class RecoveryProbe {
  private nodeCount = 2;

  private constructor(
    readonly workspace: Workspace,
    readonly account: CloudAccount,
    private readonly credentials: string,
    /** The current kcp admin: kcp's restart replaces it. */
    private readonly admin: () => RestClient,
  ) {}

  static async order(platform: Platform, index: number, admin: () => RestClient): Promise<RecoveryProbe> {
    const workspace = await withRetry("workspace chaos-probe", () => platform.createTenant("chaos-probe"));
    const probe = new RecoveryProbe(workspace, cloudAccount(platform, platform.tenantCredentials(index)), platform.passwordCredentials(index), admin);
    await withRetry(`order in ${workspace.path}`, () => orderCluster(admin().cluster(workspace.path), { credentials: probe.credentials, spec: { nodeCount: probe.nodeCount } }));
    return probe;
  }

  /** Scales the probe's cluster; true once it is Ready for the new generation, false after `timeoutMs`. */
  async changeAndAwait(timeoutMs: number): Promise<boolean> {
    this.nodeCount = this.nodeCount === 2 ? 3 : 2;
    const changed = await withRetry(`scale in ${this.workspace.path}`, () => orderCluster(this.admin().cluster(this.workspace.path), { credentials: this.credentials, spec: { nodeCount: this.nodeCount } }));
    const generation = changed.metadata?.generation;
    return waitFor(
      async () => {
        const kc = await this.admin().cluster(this.workspace.path).get<Cluster>(CLUSTER_PATH).catch(() => undefined);
        return kc?.metadata?.generation === generation && readyForGeneration(kc);
      },
      { timeoutMs, intervalMs: PROBE_POLL_MS },
    );
  }
}

/** Reads every tenant's cluster once; a read that fails (kcp restarting) records nothing. */
async function observe(admin: RestClient, tenants: readonly Tenant[], history: ReadyHistory): Promise<void> {
  await Promise.all(
    tenants.map(async (tenant) => {
      try {
        const kc = await admin.cluster(tenant.workspace.path).get<Cluster>(CLUSTER_PATH);
        history.observe(tenant.workspace.path, isReady(kc), stateOf(kc));
      } catch {
        history.observe(tenant.workspace.path, undefined);
      }
    }),
  );
}

async function describeNotReady(admin: RestClient, tenants: readonly Tenant[], history: ReadyHistory): Promise<string[]> {
  const waiting = tenants.filter((tenant) => !history.isReady(tenant.workspace.path));
  return Promise.all(
    waiting.map(async (tenant) => {
      const kc = await admin.cluster(tenant.workspace.path).get<Cluster>(CLUSTER_PATH).catch(() => undefined);
      return `${tenant.workspace.path}: ${kc === undefined ? "unreadable" : stateOf(kc)}`;
    }),
  );
}

/**
 * Each `kcp-<fp>` namespace's Crossplane credentials must be its own
 * tenant's: a tenant's Secret read for another tenant shows up here.
 */
async function foreignCredentials(infra: RestClient, tenants: readonly Tenant[], platform: Platform): Promise<string[]> {
  const mismatches: string[] = [];
  for (const tenant of tenants) {
    const namespace = tenantNamespace(tenant.workspace.cluster).name;
    const own = platform.tenantCredentials(tenant.index).userName;
    const secrets = await infra.list<KubeObject & { data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets`);
    const users = secrets.items.flatMap((secret) => {
      const encoded = secret.data?.["credentials"];
      if (encoded === undefined) return [];
      const user = (JSON.parse(Buffer.from(encoded, "base64").toString("utf8")) as { user_name?: string }).user_name;
      return [user ?? "(none)"];
    });
    if (users.length === 0) mismatches.push(`${namespace} (${tenant.workspace.path}) holds no credentials`);
    // Names only, never the credentials: which account, not its password.
    for (const user of users.filter((user) => user !== own)) mismatches.push(`${namespace} (${tenant.workspace.path}) holds the credentials of user ${user}`);
  }
  return mismatches;
}

/** Tears each tenant down its way; what went through, and where its infrastructure was, for `tornDownByWay`. */
async function tearDown(admin: RestClient, tenants: readonly Tenant[]): Promise<(TeardownRecord & { readonly error?: string })[]> {
  const records: (TeardownRecord & { readonly error?: string })[] = [];
  await pool(tenants.length, 8, async (i) => {
    const tenant = tenants[i];
    if (tenant === undefined) return;
    const record = { way: tenant.way, project: tenant.account.project, namespace: tenantNamespace(tenant.workspace.cluster).name };
    try {
      await tearDownOne(admin, tenant);
      records.push({ ...record, done: true });
    } catch (err) {
      records.push({ ...record, done: false, error: errorText(err) });
    }
  });
  return records;
}

async function tearDownOne(admin: RestClient, tenant: Tenant): Promise<void> {
  const ws = admin.cluster(tenant.workspace.path);
  switch (tenant.way) {
    case "delete the cluster":
      await deleteIfPresent(ws, CLUSTER_PATH);
      break;
    case "delete credentials and ProviderConfig first":
      await deleteIfPresent(ws, "/api/v1/namespaces/default/secrets/otc-credentials");
      await deleteIfPresent(ws, objectPath(PROVIDER_CONFIG_RESOURCE, "default", "otc"));
      await deleteIfPresent(ws, CLUSTER_PATH);
      break;
    case "unbind the export": {
      const bindings = await ws.list<KubeObject & { spec?: { reference?: { export?: { name?: string } } } }>("/apis/apis.kcp.io/v1alpha2/apibindings");
      const ours = bindings.items.filter((item) => item.spec?.reference?.export?.name === "platform.edgeconnect.eu");
      // Nothing to unbind is no teardown this way.
      if (ours.length === 0) throw new Error("no binding of platform.edgeconnect.eu to delete");
      for (const binding of ours) await deleteIfPresent(ws, `/apis/apis.kcp.io/v1alpha2/apibindings/${binding.metadata?.name ?? ""}`);
      break;
    }
    case "delete the workspace":
      await deleteIfPresent(admin.cluster("root"), `/apis/tenancy.kcp.io/v1alpha1/workspaces/${tenant.workspace.name}`);
      break;
  }
}

async function tenantNamespaces(infra: RestClient): Promise<string[]> {
  const namespaces = await infra.list("/api/v1/namespaces");
  return namespaces.items.map((ns) => ns.metadata?.name ?? "").filter((name) => name.startsWith("kcp-"));
}

function renderChaosTable(result: ChaosResult): string {
  const s = (value: number | undefined): string => (value === undefined ? "not reached" : `${value.toFixed(1)} s`);
  const rows: string[][] = [
    ["figure", "value"],
    ["tenants (same namespace and cluster name)", String(result.orders.clusters)],
    ["setup (servers, platform, workspaces)", s(result.setupS)],
    ["orders: all Ready after", s(result.orders.allReadyS)],
    ["controller SIGKILLs while ordering", String(result.orders.kills)],
    ["kcp restarts", String(result.orders.kcpRestarts)],
    ["infrastructure connection cuts (connections)", `${result.orders.connectionCuts} (${result.orders.connectionsCut})`],
    ["cuts the live controller recovered from before its kill", `${result.orders.recoveries} of ${result.orders.connectionCuts}`],
    [
      "share of the controller's IAM token and certificate calls faulted (500 / 429 / lost answers)",
      `${result.orders.faultShares.errors} / ${result.orders.faultShares.throttled} / ${result.orders.faultShares.lost}`,
    ],
    [
      "OTC faults answered to the controller (500 / 429 / lost answers)",
      `${result.orders.faultsAnswered} (${result.orders.faultsAnsweredByKind.errors} / ${result.orders.faultsAnsweredByKind.throttled} / ${result.orders.faultsAnsweredByKind.lost})`,
    ],
    ["teardown: done after", s(result.teardown.doneS)],
    ...Object.entries(result.teardown.byWay).map(([way, count]) => [`  clusters torn down: ${way}`, String(count)]),
    ["controller SIGKILLs during teardown", String(result.teardown.kills)],
    ["left in the cloud / kcp-* namespaces left", `${result.teardown.cloudObjectsLeft} / ${result.teardown.namespacesLeft.length}`],
  ];
  const fuzz = result.generatedInput;
  if (fuzz !== undefined) {
    rows.push(
      ["generated input: bundles (valid / invalid)", `${fuzz.cases} (${fuzz.valid} / ${fuzz.invalid})`],
      ["  invalid ones that went as their class says", String(fuzz.asExpected)],
      ["  refused by the schema / told by the condition", `${fuzz.refusedBySchema} / ${fuzz.toldByCondition}`],
      ["  controller crashes / stuck reconciles", `${fuzz.crashes} / ${fuzz.stuck}`],
      ["  cloud objects for invalid input", String(fuzz.cloudObjectsForInvalid)],
      ["  settled after", s(fuzz.settledS)],
    );
  }
  rows.push(
    ["cross-tenant OTC requests / foreign credentials", `${result.crossTenant.otcRequests} / ${result.crossTenant.credentialMismatches.length}`],
    [
      "credentials in logs, Events, status",
      `${result.credentialGuard.findings.length} (${result.credentialGuard.texts} texts scanned for ${result.credentialGuard.credentials}, ${result.credentialGuard.generatedCredentials} generated by the run)`,
    ],
    ["violations", String(result.violations.length)],
    ["total", s(result.totalS)],
  );
  return formatTable(rows);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
