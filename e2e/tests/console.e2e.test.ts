/**
 * The platform console in a real headless Chromium (Debian's, driven by
 * playwright-core) against the local platform: real kcp, the
 * infrastructure kube-apiserver, the provider-controller and the
 * simulators, with the console as its own process.
 *
 * Tenant A has a Ready cluster and one being torn down (the simulated CCE
 * takes its time deleting); tenant B has a Ready cluster and one whose
 * credentials IAM rejects. The platform team signs in with kcp's admin
 * token; tenant A's person signs in as the static kcp user
 * `tenant-viewer`, bound to read KubernetesClusters and Events in A's
 * workspace only, and must see nothing of B's and no infrastructure names.
 * The test saves the platform view's screenshot to docs/console.png.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { KubernetesCluster } from "@edgeconnect/api";
import { orderCluster, Platform } from "@edgeconnect/demo";
import { fingerprint, type KubeObject } from "@edgeconnect/kcp-ts";
import { MANAGED_RESOURCE_KINDS, observedId, type ObservedManagedResource } from "@edgeconnect/provisioning";
import {
  applyManifests,
  connectFromEnv,
  E2E_LOG_DIR_ENV_VAR,
  eventually,
  freePort,
  kcpUserKubeconfig,
  provided,
  readKubeconfig,
  Reaper,
  REPO_ROOT,
  ServerProcess,
  type Workspace,
} from "@edgeconnect/testenv";

const CHROMIUM = process.env["CHROMIUM_BIN"] ?? "/usr/bin/chromium";
const CONSOLE_MAIN = join(REPO_ROOT, "packages", "console", "dist", "main.js");
const SCREENSHOT = join(REPO_ROOT, "docs", "console.png");
const API = "/apis/platform.edgeconnect.eu/v1alpha1";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
// Skipped without a browser, except in CI, which must have one (`provided`).
const haveChromium = provided("console e2e", existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (bash scripts/setup.sh installs Debian's chromium; CHROMIUM_BIN names another)`);
const describeConsole = ownCluster && haveChromium ? describe : describe.skip;
if (haveChromium && !ownCluster) console.warn("console e2e skipped: the platform starts a workload kube-apiserver, which needs the local one's binaries");

type Cluster = KubernetesCluster & KubeObject;

describeConsole("platform console in a browser", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "console-e2e-"));
  let reaper: Reaper;
  let platform: Platform;
  let consoleProcess: ServerProcess;
  let browser: Browser;
  let url: string;
  let tenantA: Workspace;
  let tenantB: Workspace;
  const names = { ready: `web-${run}`, doomed: `doomed-${run}`, bReady: `b-private-${run}`, bBad: `b-badcreds-${run}` };

  beforeAll(async () => {
    reaper = Reaper.start();
    if ("skipped" in state.infra) throw new Error(state.infra.skipped);
    const metricsPort = await freePort();
    platform = await Platform.start({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig: state.infra.kubeconfig,
      dir,
      providerWorkspace: `console-${run}`,
      reaper,
      runId: `console-${run}`,
      // Deleting a CCE cluster takes four minutes here: long enough to watch a teardown.
      otcDelays: { cceClusterDeleteMs: 240_000 },
      controllerArgs: () => [`--metrics-bind-address=127.0.0.1:${metricsPort}`, "--leader-elect=true"],
    });
    [tenantA, tenantB] = await Promise.all([platform.createTenant(`console-a-${run}`), platform.createTenant(`console-b-${run}`)]);
    await grantTenantViewer(tenantA);
    await orderCluster(tenantA.client, { name: names.ready, credentials: platform.passwordCredentials(0) });
    await orderCluster(tenantA.client, { name: names.doomed, credentials: platform.passwordCredentials(0) });
    await orderCluster(tenantB.client, { name: names.bReady, credentials: platform.passwordCredentials(1) });
    await tenantB.client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "staging" } });
    await orderCluster(tenantB.client, { namespace: "staging", name: names.bBad, credentials: platform.passwordCredentials(1, { password: "not-the-password" }) });
    await Promise.all([ready(tenantA, "default", names.ready), ready(tenantA, "default", names.doomed), ready(tenantB, "default", names.bReady)]);
    await condition(tenantB, "staging", names.bBad, "CredentialsValid", "False", "CredentialsRejected");
    // The teardown waits on the CCE cluster's deletion.
    await tenantA.client.delete(`${API}/namespaces/default/kubernetesclusters/${names.doomed}`);
    await condition(tenantA, "default", names.doomed, "Ready", "False");

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    consoleProcess = ServerProcess.start({
      name: "platform-console",
      command: process.execPath,
      args: [
        CONSOLE_MAIN,
        `--kcp-kubeconfig=${state.kcp.kubeconfig}`,
        `--provider-workspace=${platform.provider.path}`,
        `--infra-kubeconfig=${state.infra.kubeconfig}`,
        `--bind-address=127.0.0.1:${port}`,
        `--controller-metrics-url=http://127.0.0.1:${metricsPort}/metrics`,
        // Plain HTTP on loopback: a Secure cookie would not be sent back.
        "--secure-cookie=false",
      ],
      logFile: join(process.env[E2E_LOG_DIR_ENV_VAR] ?? dir, `platform-console-${run}.log`),
      reaper,
    });
    await eventually(
      async () => {
        consoleProcess.assertRunning();
        return [(await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true, "not answering yet"];
      },
      { timeoutMs: 30_000, description: "the console's /healthz" },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    await consoleProcess?.stop();
    await platform?.stop();
    await reaper?.close();
  });

  /** Lets `tenant-viewer` read KubernetesClusters and Events in `ws`, and nothing anywhere else. */
  async function grantTenantViewer(ws: Workspace): Promise<void> {
    await applyManifests(ws.client, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "console-tenant-viewer" },
        rules: [
          { apiGroups: ["platform.edgeconnect.eu"], resources: ["kubernetesclusters"], verbs: ["get", "list", "watch"] },
          { apiGroups: [""], resources: ["events"], verbs: ["get", "list", "watch"] },
          // kcp's workspace access.
          { nonResourceURLs: ["/"], verbs: ["access"] },
        ],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "console-tenant-viewer" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "console-tenant-viewer" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "tenant-viewer" }],
      },
    ]);
  }

  async function condition(ws: Workspace, namespace: string, name: string, type: string, status: string, reason?: string): Promise<Cluster> {
    return eventually<Cluster>(
      async () => {
        const kc = await ws.client.get<Cluster>(`${API}/namespaces/${namespace}/kubernetesclusters/${name}`);
        const found = kc.status?.conditions?.find((c) => c.type === type);
        return found?.status === status && (reason === undefined || found.reason === reason) ? [true, kc] : [false, `${type}=${found?.status ?? "unset"} (${found?.reason ?? ""})`];
      },
      { timeoutMs: 150_000, description: `${ws.path} ${namespace}/${name} ${type}=${status}` },
    );
  }

  const ready = (ws: Workspace, namespace: string, name: string): Promise<Cluster> => condition(ws, namespace, name, "Ready", "True");

  async function signIn(page: Page, token: string, workspace?: string): Promise<void> {
    await page.goto(`${url}/signin`);
    await page.fill('input[name="token"]', token);
    if (workspace !== undefined) await page.fill('input[name="workspace"]', workspace);
    await page.click('button[type="submit"]');
  }

  /** The managed resources of cluster `name` on the infrastructure cluster: their names and OTC ids. */
  async function managedObjects(ws: Workspace, name: string): Promise<{ names: string[]; ids: string[] }> {
    const lists = await Promise.all(
      MANAGED_RESOURCE_KINDS.map((kind) =>
        platform.infra.list<ObservedManagedResource & KubeObject>(`/apis/${kind.group}/${kind.version}/namespaces/kcp-${fingerprint(ws.cluster)}/${kind.plural}`, { query: { labelSelector: `platform.edgeconnect.eu/name=${name}` } }),
      ),
    );
    const items = lists.flatMap((list) => list.items);
    return { names: items.flatMap((item) => item.metadata?.name ?? []), ids: items.flatMap((item) => observedId(item) ?? []) };
  }

  it("gives an unauthenticated request nothing: a redirect for pages, 401 for the API and the stream", async () => {
    for (const path of ["/", "/app.js", "/anything"]) {
      const response = await fetch(`${url}${path}`, { redirect: "manual" });
      expect([path, response.status, response.headers.get("location")]).toEqual([path, 303, "/signin"]);
      expect(await response.text()).toBe("");
    }
    for (const path of ["/api/overview", "/api/stream", `/api/cluster?tenant=${tenantA.cluster}&namespace=default&name=${names.ready}`]) {
      const response = await fetch(`${url}${path}`, { headers: { cookie: "console_session=forged" } });
      expect([path, response.status]).toEqual([path, 401]);
      const body = await response.text();
      for (const secret of Object.values(names)) expect(body).not.toContain(secret);
    }
    const signin = await (await fetch(`${url}/signin`)).text();
    for (const secret of [...Object.values(names), tenantA.cluster, tenantB.cluster]) expect(signin).not.toContain(secret);
  });

  it("refuses a token kcp rejects, and a tenant token without the platform view or for another workspace", async () => {
    const page = await browser.newPage();
    await signIn(page, "not-a-kcp-token");
    await expect(page.locator(".problem").textContent()).resolves.toContain("kcp did not accept this token");
    const viewer = kcpUserKubeconfig(state.kcp.kubeconfig, "tenant-viewer").token;
    await signIn(page, viewer);
    await expect(page.locator(".problem").textContent()).resolves.toContain("platform view");
    await signIn(page, viewer, tenantB.path);
    await expect(page.locator(".problem").textContent()).resolves.toContain(`does not let this token read KubernetesClusters in ${tenantB.path}`);
    await page.close();
  });

  it("shows the platform team every tenant, a Ready cluster's tree down to its cloud ids, a credentials failure, a teardown since when, and live updates", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signIn(page, readKubeconfig(state.kcp.kubeconfig).token);
    await page.waitForSelector(`tr[data-cluster="default/${names.ready}"]`);
    await expect(page.locator("#viewer").textContent()).resolves.toContain("platform view");
    for (const name of Object.values(names)) await page.waitForSelector(`tr[data-cluster$="/${name}"]`);
    await expect(page.locator(`tr[data-cluster="staging/${names.bBad}"]`).textContent()).resolves.toContain("CredentialsRejected");

    // What needs the platform team, and the controller's health.
    await page.waitForSelector(".attention-credentials-rejected");
    await expect(page.locator(".attention-credentials-rejected").textContent()).resolves.toContain(names.bBad);
    await page.waitForSelector("#health .replicas li");
    await expect(page.locator("#health").textContent()).resolves.toMatch(/leads all tenants[\s\S]*reconciles/);

    // Live: a change made in kcp shows without a reload.
    await tenantA.client.request("PATCH", `${API}/namespaces/default/kubernetesclusters/${names.ready}`, { body: { spec: { nodeCount: 3 } }, contentType: "application/merge-patch+json" });
    const nodes = page.locator(`tr[data-cluster="default/${names.ready}"] td:nth-child(6)`);
    await eventually(async () => [(await nodes.textContent()) === "3", `nodes: ${await nodes.textContent()}`], { timeoutMs: 20_000, description: "the new node count on the open page" });

    // The Ready cluster's tree, with the infrastructure names (platform view).
    await page.click(`a[href="#cluster/${tenantA.cluster}/default/${names.ready}"]`);
    await page.waitForSelector("#detail .tree .cloud-id");
    const tree = (await page.locator("#detail .tree").textContent()) ?? "";
    expect(tree).toContain(`kcp-${fingerprint(tenantA.cluster)}`);
    const items = page.locator("#detail .tree li");
    const treeNodes: string[] = [];
    for (let i = 0; i < (await items.count()); i++) {
      const item = items.nth(i);
      treeNodes.push(`${(await item.locator(":scope > .node").textContent()) ?? ""} ${(await item.locator(":scope > .facts").textContent()) ?? ""}`);
    }
    for (const kind of ["VpcV1", "SubnetV1", "ClusterV3", "NodePoolV3"]) expect(treeNodes.find((node) => node.includes(`(${kind})`))).toMatch(/Synced=True.*Ready=True/);
    const { names: infraNames, ids } = await managedObjects(tenantA, names.ready);
    expect(ids.length).toBe(6);
    for (const id of ids) expect(tree).toContain(id);
    for (const name of infraNames) expect(tree).toContain(name);
    await page.goto(`${url}/#`);
    await page.waitForSelector(".attention-credentials-rejected");
    mkdirSync(join(REPO_ROOT, "docs"), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The failing cluster with its reason.
    await page.goto(`${url}/#cluster/${tenantB.cluster}/staging/${names.bBad}`);
    await page.waitForSelector("#detail .conditions");
    await expect(page.locator("#detail .conditions").textContent()).resolves.toMatch(/CredentialsValid\s*False\s*CredentialsRejected/);

    // The teardown in progress, since when and what it waits for.
    await page.goto(`${url}/#cluster/${tenantA.cluster}/default/${names.doomed}`);
    await page.waitForSelector("#detail .teardown");
    await expect(page.locator("#detail .teardown").textContent()).resolves.toMatch(/^Teardown since \d{4}-\d\d-\d\dT.*: .+/);
    await context.close();
  });

  it("shows a tenant signed in with its own kcp credentials its clusters and nothing of another tenant's or of the infrastructure", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, kcpUserKubeconfig(state.kcp.kubeconfig, "tenant-viewer").token, tenantA.path);
    await page.waitForSelector(`tr[data-cluster="default/${names.ready}"]`);
    await page.waitForSelector(`tr[data-cluster="default/${names.doomed}"]`);
    await expect(page.locator("#viewer").textContent()).resolves.toContain(`tenant ${tenantA.path}`);
    expect(await page.locator("#attention").isHidden()).toBe(true);
    expect(await page.locator("#health").isHidden()).toBe(true);

    await page.click(`a[href="#cluster/${encodeURIComponent(tenantA.path)}/default/${names.ready}"]`);
    await page.waitForSelector("#detail .tree .cloud-id");
    const html = await page.content();
    const own = await managedObjects(tenantA, names.ready);
    for (const id of own.ids) expect(html).toContain(id);
    expect(html).toContain("the control plane (ClusterV3)");
    expect(html).not.toContain(`kcp-${fingerprint(tenantA.cluster)}`);
    expect(own.names.length).toBe(6);
    for (const name of own.names) expect(html).not.toContain(name);
    const bIds = (await managedObjects(tenantB, names.bReady)).ids;
    expect(bIds.length).toBe(6);
    for (const secret of [names.bReady, names.bBad, tenantB.cluster, tenantB.path, ...bIds]) expect(html).not.toContain(secret);

    // Asking for B's cluster by name gets nothing: the session reads only its own workspace.
    const answer = await page.evaluate(async ([tenant, name]) => {
      const response = await fetch(`/api/cluster?tenant=${encodeURIComponent(tenant)}&namespace=default&name=${name}`);
      return { status: response.status, body: await response.text() };
    }, [tenantB.path, names.bReady] as const);
    expect(answer.status).toBe(404);
    for (const id of bIds) expect(answer.body).not.toContain(id);
    await context.close();
  });
});
