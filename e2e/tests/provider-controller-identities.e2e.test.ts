/**
 * The identities the e2e suites run the provider-controller as
 * (`Platform.controllerIdentities`, used by `Platform.start` unless
 * `leastPrivilege` is off) are really restricted: the suites pass under
 * them, so what they are granted is enough; this shows it is not
 * everything. Checked on a provider workspace of its own, without the
 * platform's simulators or the controller.
 *
 * kcp: the static user `provider-controller` with
 * deploy/provider-controller/kcp applied reads the provider workspace's
 * APIExportEndpointSlices but not its Secrets or APIExports, and cannot
 * enter a workspace where it is not bound; it holds the leader's Lease in
 * the provider workspace's kube-system and no other. (Root is no test of ours: kcp's
 * own root policy lets every authenticated user in and list its Workspaces,
 * `system:kcp:authenticated:tenancy:reader`.)
 * Infrastructure cluster: the chart's ServiceAccount may read a namespace
 * but may list no Secrets (cluster-wide or in its own namespace) and no
 * ConfigMaps.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Platform } from "@edgeconnect/demo";
import { HttpStatusError, RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, createWorkspace, deleteWorkspace, eventually, httpStatus, objectPath, type Workspace } from "@edgeconnect/testenv";

const { kcp, infra, state } = connectFromEnv();
// The ServiceAccount's kubeconfig borrows the admin kubeconfig's server and CA, which needs a token-authenticated one.
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;

type Identities = Awaited<ReturnType<typeof Platform.controllerIdentities>>;

describeInfra("provider-controller identities", () => {
  const run = randomBytes(3).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "provider-controller-identities-"));
  let provider: Workspace;
  let other: Workspace;
  let identities: Identities;
  let controllerKcp: RestClient;
  let controllerInfra: RestClient;

  beforeAll(async () => {
    if ("skipped" in state.infra || "skipped" in infra) throw new Error("no infrastructure cluster");
    [provider, other] = await Promise.all([createWorkspace(kcp, `identities-${run}`), createWorkspace(kcp, `identities-other-${run}`)]);
    identities = await Platform.controllerIdentities({
      kcpUrl: state.kcp.url,
      kcpKubeconfig: state.kcp.kubeconfig,
      infraKubeconfig: state.infra.kubeconfig,
      provider,
      dir,
      release: `provider-controller-identities-${run}`,
    });
    controllerKcp = RestClient.fromFile(identities.kcpKubeconfig);
    controllerInfra = RestClient.fromFile(identities.infraKubeconfig);
  });

  afterAll(async () => {
    controllerKcp?.close();
    controllerInfra?.close();
    for (const ws of [provider, other]) if (ws !== undefined) await deleteWorkspace(kcp, ws);
    if (identities !== undefined && !("skipped" in infra)) {
      for (const obj of identities.infraObjects.filter((o) => o.kind === "Namespace" || o.kind?.startsWith("Cluster") === true)) {
        await infra.delete(await objectPath(infra, obj)).catch(() => undefined);
      }
    }
    if (!("skipped" in infra)) infra.close();
    kcp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("in kcp: reads the endpoint slices of the provider workspace, no Secrets or APIExports there, nothing elsewhere", async () => {
    // kcp's RBAC caches take a moment to see the new binding.
    await eventually(async () => {
      const status = await httpStatus(controllerKcp, "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices");
      return [status === 200, `list apiexportendpointslices: ${status}`];
    }, { timeoutMs: 30_000, description: "the provider-controller's kcp binding in effect" });
    expect(await httpStatus(controllerKcp, "/api/v1/secrets")).toBe(403);
    expect(await httpStatus(controllerKcp, "/apis/apis.kcp.io/v1alpha1/apiexports")).toBe(403);
    const root = controllerKcp.cluster("root");
    expect(await httpStatus(root, "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices")).toBe(403);
    expect(await httpStatus(root, "/api/v1/secrets")).toBe(403);
    // Not bound there: kcp refuses it the workspace itself.
    const sibling = controllerKcp.cluster(other.path);
    expect(await httpStatus(sibling, "/apis/apis.kcp.io/v1alpha1/apiexportendpointslices")).toBe(403);
    expect(await httpStatus(sibling, "/api/v1/namespaces")).toBe(403);
  });

  it("in kcp: holds the leader's Lease and the shard Leases in the provider workspace's kube-system, and no Lease elsewhere", async () => {
    const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "provider-controller" }, spec: { holderIdentity: `identities-${run}`, leaseDurationSeconds: 15 } };
    type Lease = typeof lease & { metadata: { resourceVersion?: string } };
    const created = await eventually<Lease>(
      async () => {
        try {
          return [true, await controllerKcp.create<Lease>(leases, lease)];
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 403) return [false, err.message];
          throw err;
        }
      },
      { timeoutMs: 30_000, description: "the Lease created under the kcp role" },
    );
    await controllerKcp.request("PUT", `${leases}/provider-controller`, { body: { ...created, spec: { ...lease.spec, leaseDurationSeconds: 20 } } });
    expect(await httpStatus(controllerKcp, `${leases}/provider-controller`)).toBe(200);
    expect(await httpStatus(controllerKcp, "/apis/coordination.k8s.io/v1/namespaces/default/leases/provider-controller")).toBe(403);
    // The shard Role lets a replica delete a long-dead member's Lease in kube-system, and nowhere else.
    await expect(controllerKcp.request("DELETE", "/apis/coordination.k8s.io/v1/namespaces/default/leases/provider-controller")).rejects.toMatchObject({ status: 403 });
  });

  it("on the infrastructure cluster: reads a namespace, lists no Secrets or ConfigMaps", async () => {
    expect(await httpStatus(controllerInfra, "/api/v1/namespaces/default")).toBe(200);
    expect(await httpStatus(controllerInfra, "/api/v1/secrets")).toBe(403);
    expect(await httpStatus(controllerInfra, `/api/v1/namespaces/${identities.serviceAccount.namespace}/secrets`)).toBe(403);
    expect(await httpStatus(controllerInfra, "/api/v1/configmaps")).toBe(403);
  });
});
