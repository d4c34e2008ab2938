/**
 * The provider-controller chart's ValidatingAdmissionPolicy, enforced by the
 * real kube-apiserver of the e2e environment: the chart's ServiceAccount,
 * ClusterRole and policy are installed as rendered, and requests go out with
 * a token of that ServiceAccount, as the controller's would. RBAC lets the
 * account write Secrets and namespaces anywhere; what is refused here is
 * refused by the policy alone, which the last test shows by unbinding it.
 *
 * Cluster-scoped objects (ClusterRole, the policy) carry the run's release
 * name, so that runs and the chart test's dry-runs never meet.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { RestClient, type HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { applyManifests, connectFromEnv, eventually, holds, httpStatus, readKubeconfig, renderKubeconfig, REPO_ROOT, waitForObject, waitUntilGone } from "@edgeconnect/testenv";
import { HelmChart, rejection } from "../src/helm-chart.js";

const { state, infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`provider-controller admission policy e2e skipped: ${infra.skipped}`);

const run = randomBytes(3).toString("hex");
const RELEASE = `pca-${run}`;
const FULLNAME = `${RELEASE}-provider-controller`;
const NAMESPACE = `pc-admission-${run}`;
const MANAGED = { "app.kubernetes.io/managed-by": "provider-controller" };
const REQUIRED = { kcp: { kubeconfigSecret: { name: "kcp-provider-workspace", key: "admin.kubeconfig" } } };
/** What the policy puts in its refusals. */
const SECRET_REFUSAL = "provider-controller may write secrets only in kcp-* namespaces labelled app.kubernetes.io/managed-by=provider-controller";
const NAMESPACE_REFUSAL = "provider-controller may create and delete only kcp-* namespaces labelled app.kubernetes.io/managed-by=provider-controller";
/** The kinds the policy needs installed; the Deployment and the Lease's Role play no part in admission. */
const INSTALLED = ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"];

/** A tenant namespace name as the controller makes them: kcp- and 48 bits of hex. */
function tenantName(): string {
  return `kcp-${randomBytes(6).toString("hex")}`;
}

function secret(name: string, value = "v"): KubeObject {
  return { apiVersion: "v1", kind: "Secret", metadata: { name }, type: "Opaque", stringData: { key: value } };
}

function namespaceObject(name: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, ...(labels === undefined ? {} : { labels }) } };
}

/** A refusal by the policy: 403, and the policy's own message, not RBAC's. */
function expectRefusedByPolicy(err: HttpStatusError, message: string): void {
  expect(err.status).toBe(403);
  expect(err.message).toContain(`ValidatingAdmissionPolicy '${FULLNAME}'`);
  expect(err.message).toContain(message);
}

describeInfra(`provider-controller admission policy on the infrastructure cluster (${state.infra.mode})`, () => {
  const admin = infra as RestClient;
  const chart = new HelmChart({ chart: join(REPO_ROOT, "deploy", "provider-controller"), release: RELEASE, namespace: NAMESPACE, scratchPrefix: "provider-controller-admission-" });
  /** The controller's ServiceAccount, by a TokenRequest token. */
  let controller: RestClient;
  let installed: KubeObject[] = [];
  const ours = tenantName();
  const unlabelled = tenantName();
  const otherTeam = `team-${run}`;
  /** Every namespace a test may have made, removed by the admin in afterAll. */
  const namespaces = [NAMESPACE, ours, unlabelled, otherTeam];
  /** Secrets that only exist if a refusal failed; removed all the same. */
  const strays: string[] = [];

  beforeAll(async () => {
    await chart.init();
    installed = (await chart.template(REQUIRED)).filter((obj) => INSTALLED.includes(obj.kind ?? ""));
    expect(installed.map((obj) => obj.kind)).toEqual(INSTALLED);
    for (const ns of [namespaceObject(NAMESPACE), namespaceObject(ours, MANAGED), namespaceObject(unlabelled), namespaceObject(otherTeam)]) await admin.create("/api/v1/namespaces", ns);
    await applyManifests(admin, installed);

    const token = await admin.create<{ status: { token: string } }>(`/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${FULLNAME}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    });
    const kubeconfig = "kubeconfig" in state.infra ? state.infra.kubeconfig : "";
    controller = RestClient.fromKubeconfigText(renderKubeconfig({ ...readKubeconfig(kubeconfig), name: "provider-controller-sa", token: token.status.token }));

    // RBAC, the policy and the namespace cache all catch up asynchronously:
    // until a dry-run in kube-system is refused by the policy (not by RBAC,
    // not admitted) and one in our namespace is admitted, nothing here holds.
    await eventually(
      async () => {
        const outside = await controller
          .request("POST", "/api/v1/namespaces/kube-system/secrets", { body: secret(`probe-${run}`), query: { dryRun: "All" } })
          .then(() => "admitted", (err: unknown) => (err instanceof Error ? err.message : String(err)));
        if (!outside.includes(SECRET_REFUSAL)) return holds(false, `a Secret in kube-system: ${outside}`);
        await controller.request("POST", `/api/v1/namespaces/${ours}/secrets`, { body: secret(`probe-${run}`), query: { dryRun: "All" } });
        return holds(true, "");
      },
      { timeoutMs: 60_000, intervalMs: 500, description: "the admission policy in force" },
    );
  });

  afterAll(async () => {
    controller?.close();
    for (const name of strays) {
      for (const ns of ["default", "kube-system"]) await admin.delete(`/api/v1/namespaces/${ns}/secrets/${name}`).catch(() => undefined);
    }
    for (const obj of [...installed].reverse()) {
      if (obj.metadata?.namespace !== undefined) continue;
      const path =
        obj.kind === "ClusterRole" || obj.kind === "ClusterRoleBinding"
          ? `/apis/rbac.authorization.k8s.io/v1/${obj.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings"}/${obj.metadata?.name ?? ""}`
          : `/apis/admissionregistration.k8s.io/v1/${obj.kind === "ValidatingAdmissionPolicy" ? "validatingadmissionpolicies" : "validatingadmissionpolicybindings"}/${obj.metadata?.name ?? ""}`;
      await admin.delete(path).catch(() => undefined);
    }
    for (const ns of namespaces) await admin.delete(`/api/v1/namespaces/${ns}`).catch(() => undefined);
    chart.close();
  });

  it("type-checks against the kinds the API server knows without a warning", async () => {
    // The API server accepts a policy whose expressions do not fit the types of the objects; it only warns in the status.
    type Checked = KubeObject & { status?: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] } } };
    const checked = await waitForObject<Checked>(
      admin,
      `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${FULLNAME}`,
      "the admission policy type-checked",
      (policy) => policy.status?.observedGeneration === policy.metadata?.generation && policy.status?.typeChecking !== undefined,
    );
    expect(checked.status?.typeChecking?.expressionWarnings ?? []).toEqual([]);
  });

  it("lets the controller create, apply over and delete a Secret in its own kcp- namespace", async () => {
    const path = `/api/v1/namespaces/${ours}/secrets/login-key`;
    await controller.create(`/api/v1/namespaces/${ours}/secrets`, secret("login-key"));
    await controller.apply(path, secret("login-key", "rotated"), "provider-controller");
    expect((await admin.get<{ data: Record<string, string> }>(path)).data.key).toBe(Buffer.from("rotated").toString("base64"));
    await controller.delete(path);
    expect(await httpStatus(admin, path)).toBe(404);
  });

  it.each(["default", "kube-system"])("refuses a Secret in %s", async (namespace) => {
    const name = `pc-admission-${run}-${namespace}`;
    strays.push(name);
    const err = await rejection(controller.create(`/api/v1/namespaces/${namespace}/secrets`, secret(name)));
    expectRefusedByPolicy(err, `${SECRET_REFUSAL}, not in namespace ${namespace}`);
    expect(await httpStatus(admin, `/api/v1/namespaces/${namespace}/secrets/${name}`)).toBe(404);
  });

  it("refuses a Secret in a kcp- namespace without the managed-by label", async () => {
    const err = await rejection(controller.create(`/api/v1/namespaces/${unlabelled}/secrets`, secret("login-key")));
    expectRefusedByPolicy(err, `${SECRET_REFUSAL}, not in namespace ${unlabelled}`);
    expect(await httpStatus(admin, `/api/v1/namespaces/${unlabelled}/secrets/login-key`)).toBe(404);
  });

  it("refuses changing or deleting a Secret that is not in a namespace of ours", async () => {
    const path = `/api/v1/namespaces/${unlabelled}/secrets/platform-owned`;
    await admin.create(`/api/v1/namespaces/${unlabelled}/secrets`, secret("platform-owned", "original"));
    expectRefusedByPolicy(await rejection(controller.apply(path, secret("platform-owned", "overwritten"), "provider-controller")), SECRET_REFUSAL);
    expectRefusedByPolicy(await rejection(controller.delete(path)), SECRET_REFUSAL);
    expect((await admin.get<{ data: Record<string, string> }>(path)).data.key).toBe(Buffer.from("original").toString("base64"));
  });

  it("lets the controller create and delete a labelled kcp- namespace", async () => {
    const name = tenantName();
    namespaces.push(name);
    await controller.create("/api/v1/namespaces", namespaceObject(name, MANAGED));
    await controller.delete(`/api/v1/namespaces/${name}`);
    await waitUntilGone(admin, `/api/v1/namespaces/${name}`);
  });

  it.each([
    ["a kcp- namespace without the label", tenantName(), undefined],
    ["a labelled namespace not named kcp-", `tenant-${randomBytes(6).toString("hex")}`, MANAGED],
  ])("refuses creating %s", async (_case, name, labels) => {
    namespaces.push(name);
    expectRefusedByPolicy(await rejection(controller.create("/api/v1/namespaces", namespaceObject(name, labels))), `${NAMESPACE_REFUSAL}, not namespace ${name}`);
    expect(await httpStatus(admin, `/api/v1/namespaces/${name}`)).toBe(404);
  });

  it.each([
    ["the release namespace", NAMESPACE],
    // default and kube-system are no use here: the API server never deletes them, whoever asks.
    ["another team's", otherTeam],
    ["an unlabelled kcp- namespace", unlabelled],
  ])("refuses deleting a namespace not ours: %s", async (_case, name) => {
    expectRefusedByPolicy(await rejection(controller.delete(`/api/v1/namespaces/${name}`)), `${NAMESPACE_REFUSAL}, not namespace ${name}`);
    const stored = await admin.get<KubeObject>(`/api/v1/namespaces/${name}`);
    expect(stored.metadata?.deletionTimestamp).toBeUndefined();
  });

  it("leaves everyone else alone: the admin may still write a Secret in kube-system", async () => {
    await admin.request("POST", "/api/v1/namespaces/kube-system/secrets", { body: secret(`admin-${run}`), query: { dryRun: "All" } });
  });

  // Last: it unbinds the policy. What the tests above saw refused, RBAC alone admits.
  it("refuses by the policy alone: without its binding the same Secret in kube-system is admitted", async () => {
    const binding = installed.find((obj) => obj.kind === "ValidatingAdmissionPolicyBinding");
    await admin.delete(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${binding?.metadata?.name ?? ""}`);
    await eventually(
      async () => {
        await controller.request("POST", "/api/v1/namespaces/kube-system/secrets", { body: secret(`probe-${run}`), query: { dryRun: "All" } });
        return holds(true, "");
      },
      { timeoutMs: 60_000, intervalMs: 500, description: "a Secret in kube-system admitted once the policy is unbound" },
    );
  });
});
