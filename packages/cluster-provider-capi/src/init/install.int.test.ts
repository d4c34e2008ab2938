/**
 * `install` (what `init` runs) against a real kube-apiserver, without the
 * Cluster API Operator running: the manifest sources (file, ConfigMap, the
 * SHA-256 pin), the order of applies, idempotence, and the deadline that
 * names what never became ready. The full path with the real operator is in
 * e2e/tests/cluster-provider-capi.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CORE_PROVIDER, objectPath } from "@edgeconnect/capi-provider-api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { SILENT } from "@edgeconnect/runtime";
import { applyManifests, connectFromEnv, DeploymentStandIn, httpStatus } from "@edgeconnect/testenv";
import { stringify } from "yaml";
import { startPlatform, type Platform } from "../testing/platform.fixture.js";
import type { InitConfiguration } from "./init-configuration.js";
import { install, InstallTimeoutError } from "./install.js";

const { state } = connectFromEnv();
const ownCluster = state.infra.mode === "kube-apiserver" && !("skipped" in state.infra);
const describeInfra = ownCluster ? describe : describe.skip;
if (!ownCluster) console.warn("cluster-provider-capi install tests skipped: they start a kube-apiserver of their own, which needs the local one's binaries");

/** A manifest of the operator's shape: its namespace, a CRD, RBAC, and the Deployment init waits for. */
const MANIFEST: KubeObject[] = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "fake-operator-system" } },
  {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.fake.edgeconnect.eu" },
    spec: {
      group: "fake.edgeconnect.eu",
      names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
    },
  },
  // A namespaced object of the manifest's own CRD, in its own namespace: both must exist first.
  { apiVersion: "fake.edgeconnect.eu/v1", kind: "Widget", metadata: { name: "defaults", namespace: "fake-operator-system" } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "fake-operator", namespace: "fake-operator-system" } },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "fake-operator", namespace: "fake-operator-system" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "fake-operator" } },
      template: { metadata: { labels: { app: "fake-operator" } }, spec: { containers: [{ name: "manager", image: "example.invalid/fake-operator:v0" }] } },
    },
  },
];
const MANIFEST_TEXT = MANIFEST.map((obj) => stringify(obj)).join("---\n");

describeInfra("install (cluster-provider-capi init)", () => {
  let platform: Platform;
  const dir = mkdtempSync(join(tmpdir(), "capi-install-"));
  const manifestFile = join(dir, "operator.yaml");

  beforeAll(async () => {
    platform = await startPlatform();
    writeFileSync(manifestFile, MANIFEST_TEXT);
  }, 300_000);

  afterAll(async () => {
    await platform?.stop();
  }, 60_000);

  const configuration = (operator: InitConfiguration["operator"]): InitConfiguration => ({
    operator,
    coreProvider: { namespace: "capi-system", version: "v1.14.2", fetchConfig: { selector: { matchLabels: { test: "core" } } } },
  });

  it("waits past its deadline for a Deployment nobody runs, and says which", async () => {
    const started = Date.now();
    const run = install({ client: platform.client, configuration: configuration({ file: manifestFile }), logger: SILENT, signal: AbortSignal.timeout(6_000), pollIntervalMs: 200 });
    await expect(run).rejects.toThrow(InstallTimeoutError);
    await expect(run).rejects.toThrow("still missing: fake-operator-system/fake-operator");
    expect(Date.now() - started).toBeLessThan(20_000);
    // Everything before the wait is in place: the namespace, the CRD and an object of it.
    expect(await httpStatus(platform.client, "/apis/fake.edgeconnect.eu/v1/namespaces/fake-operator-system/widgets/defaults")).toBe(200);
    expect(await httpStatus(platform.client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/providerconfigs.capi.clusters.edgeconnect.eu")).toBe(200);
  }, 60_000);

  it("installs from a ConfigMap pinned by SHA-256, then waits for the core provider the operator would install", async () => {
    await applyManifests(platform.client, [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "operator-components", namespace: "default" }, data: { components: MANIFEST_TEXT } },
    ]);
    // Playing the kubelet and Deployment controller for the fake operator's Deployment.
    const standIn = DeploymentStandIn.start(platform.client, [{ namespace: "fake-operator-system", name: "fake-operator", healthy: () => Promise.resolve(true) }]);
    try {
      const sha256 = createHash("sha256").update(MANIFEST_TEXT).digest("hex");
      const run = install({
        client: platform.client,
        configuration: configuration({ configMap: { namespace: "default", name: "operator-components" }, sha256 }),
        logger: SILENT,
        signal: AbortSignal.timeout(8_000),
        pollIntervalMs: 200,
      });
      // No operator runs, so the CoreProvider never gets Ready: the error says so after the manifest was accepted.
      await expect(run).rejects.toThrow("still missing: CoreProvider capi-system/cluster-api");
      const core = await platform.client.get<KubeObject & { spec?: Record<string, unknown> }>(objectPath(CORE_PROVIDER, "capi-system", "cluster-api"));
      expect(core.spec).toEqual({ version: "v1.14.2", fetchConfig: { selector: { matchLabels: { test: "core" } } } });
    } finally {
      await standIn.stop();
    }
  }, 60_000);

  it("refuses a manifest whose SHA-256 is not the pinned one, before applying anything of it", async () => {
    const other = MANIFEST_TEXT.replace("fake-operator:v0", "fake-operator:v1");
    const file = join(dir, "tampered.yaml");
    writeFileSync(file, other);
    const before = await platform.client.get<KubeObject>("/apis/apps/v1/namespaces/fake-operator-system/deployments/fake-operator");
    const pinned = createHash("sha256").update(MANIFEST_TEXT).digest("hex");
    await expect(install({ client: platform.client, configuration: configuration({ file, sha256: pinned }), logger: SILENT, signal: AbortSignal.timeout(10_000) })).rejects.toThrow(`is not the pinned ${pinned}`);
    const after = await platform.client.get<KubeObject>("/apis/apps/v1/namespaces/fake-operator-system/deployments/fake-operator");
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  }, 60_000);

  it("says which ConfigMap is missing", async () => {
    await expect(
      install({ client: platform.client, configuration: configuration({ configMap: { namespace: "default", name: "nope" } }), logger: SILENT, signal: AbortSignal.timeout(10_000) }),
    ).rejects.toThrow(/nope/);
  }, 60_000);
});
