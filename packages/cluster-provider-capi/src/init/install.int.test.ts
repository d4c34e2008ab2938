/**
 * `install` (what `init` runs) against a real kube-apiserver, without the
 * Cluster API Operator running: the manifest sources (file, ConfigMap, the
 * SHA-256 pin), the order of applies, idempotence, and the deadline that
 * names what never became ready; the cert-manager prerequisite, an operator
 * installed by someone else, and the CoreProvider write retried through a
 * stalled API server. The full path with the real operator is in
 * e2e/tests/cluster-provider-capi.e2e.test.ts.
 *
 * Each run that should end at its deadline gets one that passes once the
 * run says it got where the test looks (deadlineOn), so no test sits out a
 * wall-clock deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectionPath, CORE_PROVIDER, objectPath } from "@edgeconnect/capi-provider-api";
import { deleteIfPresent, type KubeObject } from "@edgeconnect/kcp-ts";
import { SILENT, type ControllerLogger } from "@edgeconnect/runtime";
import { applyManifests, connectFromEnv, DeploymentStandIn, eventually, holds, httpStatus, StallingProxy, waitUntilGone } from "@edgeconnect/testenv";
import { stringify } from "yaml";
import { startPlatform, type Platform } from "../testing/platform.fixture.js";
import type { InitConfiguration } from "./init-configuration.js";
import { install, InstallTimeoutError, PrerequisiteMissingError } from "./install.js";

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

/** Ends a run whose line never comes, well before the test's own timeout. */
const BACKSTOP_MS = 30_000;

/**
 * An install's deadline that passes as soon as the run logs `line`: a wait's
 * "waiting for <what>" after a finished check, or a write's "was refused for
 * now; retrying" after a failed attempt. install then ends as at any deadline,
 * with what that check or attempt found, the moment the test has seen the run
 * get there.
 */
function deadlineOn(line: string): { readonly logger: ControllerLogger; readonly signal: AbortSignal } {
  const reached = new AbortController();
  const seen = (_fields: object, message: string): void => {
    if (message === line) reached.abort(new Error(`install logged "${line}"`));
  };
  const logger: ControllerLogger = { child: () => logger, debug: seen, info: seen, warn: seen, error: seen };
  return { logger, signal: AbortSignal.any([reached.signal, AbortSignal.timeout(BACKSTOP_MS)]) };
}

/** The deadline of a run that should end waiting for the core provider, which no operator here makes Ready. */
const WAITING_FOR_CORE = "waiting for the core provider Ready";

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
    const run = install({
      client: platform.client,
      configuration: configuration({ file: manifestFile }),
      ...deadlineOn("waiting for the Cluster API Operator: Deployments Available"),
      pollIntervalMs: 200,
    });
    await expect(run).rejects.toThrow(InstallTimeoutError);
    await expect(run).rejects.toThrow("still missing: fake-operator-system/fake-operator");
    // The deadline, not the test timeout, ended it.
    expect(Date.now() - started).toBeLessThan(20_000);
    // Everything before the wait is in place: the namespace, the CRD and an object of it.
    expect(await httpStatus(platform.client, "/apis/fake.edgeconnect.eu/v1/namespaces/fake-operator-system/widgets/defaults")).toBe(200);
    expect(await httpStatus(platform.client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/providerconfigs.capi.clusters.openmcp.cloud")).toBe(200);
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
        ...deadlineOn(WAITING_FOR_CORE),
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

  describe("the cert-manager prerequisite", () => {
    const issuer = { apiVersion: "cert-manager.io/v1", kind: "Issuer", metadata: { name: "selfsigned", namespace: "needs-cm-system" }, spec: { selfSigned: {} } };
    const needsCertManager: KubeObject[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "needs-cm-system" } }, issuer];
    const certManagerCrd: KubeObject = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "issuers.cert-manager.io" },
      spec: {
        group: "cert-manager.io",
        names: { kind: "Issuer", plural: "issuers", singular: "issuer", listKind: "IssuerList" },
        scope: "Namespaced",
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    const operatorFile = join(dir, "needs-cert-manager.yaml");
    const certManagerFile = join(dir, "cert-manager.yaml");

    beforeAll(() => {
      writeFileSync(operatorFile, needsCertManager.map((obj) => stringify(obj)).join("---\n"));
      writeFileSync(certManagerFile, stringify(certManagerCrd));
    });

    it("stops before writing anything when the operator needs cert-manager and nothing brings it, saying what to do", async () => {
      const run = install({ client: platform.client, configuration: configuration({ file: operatorFile }), logger: SILENT, signal: AbortSignal.timeout(30_000) });
      await expect(run).rejects.toThrow(PrerequisiteMissingError);
      await expect(run).rejects.toThrow(
        "needs cert-manager for its webhook certificate (Issuer (cert-manager.io/v1)), but this cluster serves no Issuer (cert-manager.io/v1) and the init configuration has no certManager source: install cert-manager first",
      );
      expect(await httpStatus(platform.client, "/api/v1/namespaces/needs-cm-system")).toBe(404);
    }, 60_000);

    it("installs cert-manager from the init configuration first, then what needs it", async () => {
      const run = install({
        client: platform.client,
        configuration: { ...configuration({ file: operatorFile }), certManager: { file: certManagerFile } },
        ...deadlineOn(WAITING_FOR_CORE),
        pollIntervalMs: 200,
      });
      // No operator runs: past the manifests, it waits for the core provider.
      await expect(run).rejects.toThrow("still missing: CoreProvider capi-system/cluster-api");
      expect(await httpStatus(platform.client, "/apis/cert-manager.io/v1/namespaces/needs-cm-system/issuers/selfsigned")).toBe(200);
    }, 60_000);

    it("takes a cert-manager the cluster already has", async () => {
      // Gone, so that finding it again shows this run applied it.
      await platform.client.delete("/apis/cert-manager.io/v1/namespaces/needs-cm-system/issuers/selfsigned");
      const run = install({ client: platform.client, configuration: configuration({ file: operatorFile }), ...deadlineOn(WAITING_FOR_CORE), pollIntervalMs: 200 });
      await expect(run).rejects.toThrow("still missing: CoreProvider capi-system/cluster-api");
      expect(await httpStatus(platform.client, "/apis/cert-manager.io/v1/namespaces/needs-cm-system/issuers/selfsigned")).toBe(200);
    }, 60_000);
  });

  describe("an operator installed by someone else", () => {
    const existing = (namespace?: string): InitConfiguration => ({
      operator: { existing: namespace === undefined ? {} : { namespace } },
      coreProvider: { namespace: "capi-system", version: "v1.14.2" },
    });
    const operatorDeployment: KubeObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "capi-operator", namespace: "helm-capi-operator", labels: { "clusterctl.cluster.x-k8s.io/core": "capi-operator" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "capi-operator" } },
        template: { metadata: { labels: { app: "capi-operator" } }, spec: { containers: [{ name: "manager", image: "example.invalid/capi-operator:v0" }] } },
      },
    };
    let standIn: DeploymentStandIn | undefined;

    afterAll(async () => {
      await standIn?.stop();
    });

    it("waits for the operator's Deployment and names what it looks for, installing nothing", async () => {
      const run = install({
        client: platform.client,
        configuration: existing("helm-capi-operator"),
        ...deadlineOn("waiting for the existing Cluster API Operator: its Deployment Available"),
        pollIntervalMs: 200,
      });
      await expect(run).rejects.toThrow(
        "timed out waiting for the existing Cluster API Operator: its Deployment Available; still missing: a Deployment labelled clusterctl.cluster.x-k8s.io/core=capi-operator in namespace helm-capi-operator",
      );
    }, 60_000);

    it("goes on to the core provider once the operator's CRDs are Established and its Deployment Available", async () => {
      await applyManifests(platform.client, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "helm-capi-operator" } }, operatorDeployment]);
      standIn = DeploymentStandIn.start(platform.client, [{ namespace: "helm-capi-operator", name: "capi-operator", healthy: () => Promise.resolve(true) }]);
      const run = install({ client: platform.client, configuration: existing(), ...deadlineOn(WAITING_FOR_CORE), pollIntervalMs: 200 });
      await expect(run).rejects.toThrow("still missing: CoreProvider capi-system/cluster-api");
    }, 60_000);

    it("waits for a CoreProvider someone else made instead of adding a second one", async () => {
      const foreign = objectPath(CORE_PROVIDER, "helm-capi", "cluster-api");
      await applyManifests(platform.client, [
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "helm-capi" } },
        { apiVersion: CORE_PROVIDER.apiVersion, kind: CORE_PROVIDER.kind, metadata: { name: "cluster-api", namespace: "helm-capi" }, spec: { version: "v1.14.0" } },
      ]);
      const ours = objectPath(CORE_PROVIDER, "capi-system", "cluster-api");
      await deleteIfPresent(platform.client, ours);
      await waitUntilGone(platform.client, ours, { description: "our CoreProvider of earlier tests" });
      try {
        const run = install({ client: platform.client, configuration: existing(), ...deadlineOn(WAITING_FOR_CORE), pollIntervalMs: 200 });
        await expect(run).rejects.toThrow("still missing: CoreProvider helm-capi/cluster-api");
        const { items } = await platform.client.list<KubeObject>(collectionPath(CORE_PROVIDER));
        expect(items.map((p) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`)).toEqual(["helm-capi/cluster-api"]);
        expect((await platform.client.get<KubeObject & { spec?: unknown }>(foreign)).spec).toEqual({ version: "v1.14.0" });
      } finally {
        await deleteIfPresent(platform.client, foreign);
        await waitUntilGone(platform.client, foreign, { description: "the foreign CoreProvider" });
      }
    }, 60_000);

    describe("through an API server that stalls the CoreProvider write", () => {
      let proxy: StallingProxy;
      const isCoreProviderWrite = (method: string, path: string): boolean => method === "PATCH" && path.includes("/coreproviders/");

      beforeAll(async () => {
        proxy = await StallingProxy.start({ upstream: platform.client.server, matches: isCoreProviderWrite });
      });

      afterAll(async () => {
        await proxy?.close();
      });

      it("retries the write after each unanswered attempt, and goes on once the server answers", async () => {
        // Each attempt ends after a second without an answer.
        const client = platform.client.withServer(proxy.url).withTimeout(1_000);
        proxy.stall();
        const run = install({ client, configuration: existing(), ...deadlineOn(WAITING_FOR_CORE), pollIntervalMs: 200 });
        const outcome = run.then(
          () => "done",
          (err: unknown) => (err instanceof Error ? err.message : String(err)),
        );
        await eventually(() => holds(proxy.counts.held >= 2, `held ${proxy.counts.held}`), { timeoutMs: 10_000, description: "a second attempt at the stalled write" });
        proxy.resume();
        // No operator runs, so the core provider never gets Ready: what matters is that init got past the write.
        expect(await outcome).toMatch(/^timed out waiting for the core provider Ready; still missing: CoreProvider capi-system\/cluster-api/);
        expect((await platform.client.get<KubeObject & { spec?: unknown }>(objectPath(CORE_PROVIDER, "capi-system", "cluster-api"))).spec).toEqual({ version: "v1.14.2" });
      }, 60_000);

      it("gives up at its deadline while the write stalls, naming the write and the last failure", async () => {
        const client = platform.client.withServer(proxy.url).withTimeout(1_000);
        proxy.stall();
        try {
          // The deadline passes after the first unanswered attempt, so the last failure is the write's own.
          const run = install({
            client,
            configuration: existing(),
            ...deadlineOn("applying CoreProvider capi-system/cluster-api was refused for now; retrying"),
            pollIntervalMs: 200,
          });
          await expect(run).rejects.toThrow(InstallTimeoutError);
          await expect(run).rejects.toThrow(/^timed out applying CoreProvider capi-system\/cluster-api; the last attempt failed: /);
        } finally {
          proxy.resume();
        }
      }, 60_000);
    });
  });
});
