/**
 * The manifests that deploy the Cluster API cluster provider through
 * openMCP, and the documented ProviderConfig examples, dry-run against the
 * real kube-apiserver with openMCP's own CRDs (ClusterProvider at the pinned
 * openmcp-operator/api version) and ours installed: strict field
 * validation, so a misspelt or unknown field fails here, not in a platform.
 * Also: what the CRDs refuse, so the examples' validation is not vacuous.
 */
import { beforeAll, describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CRD_FILES } from "@edgeconnect/capi-provider-api";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { applyCrds, applyManifests, connectFromEnv, installOpenMcpCrds, parseManifests, REPO_ROOT } from "@edgeconnect/testenv";
import { dryRunAll, dryRunCreate, rejection } from "../src/helm-chart.js";

const DEPLOY = join(REPO_ROOT, "deploy", "cluster-provider-capi");

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`cluster-provider-capi manifest dry-runs skipped: ${infra.skipped}`);

function manifests(file: string): KubeObject[] {
  return parseManifests(readFileSync(join(DEPLOY, file), "utf8"));
}

describeInfra("cluster-provider-capi deployment manifests", () => {
  const client = infra as RestClient;

  beforeAll(async () => {
    await installOpenMcpCrds(client);
    await applyCrds(client, CRD_FILES.flatMap((file) => parseManifests(readFileSync(file, "utf8"))));
    await applyManifests(client, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "openmcp-system" } }]);
  }, 120_000);

  it("the ClusterProvider and its init configuration are accepted as written", async () => {
    const objects = manifests("clusterprovider.yaml");
    expect(objects.map((o) => o.kind)).toEqual(["ClusterProvider", "ConfigMap"]);
    const [provider] = await dryRunAll(client, objects);
    expect((provider as KubeObject & { spec?: { runReplicas?: number; initCommand?: string[] } }).spec).toMatchObject({ initCommand: ["init", "--config=/etc/cluster-provider-capi/init.yaml"], runReplicas: 1 });
  });

  it.each(readdirSync(join(DEPLOY, "examples")).filter((f) => f.endsWith(".yaml")).sort())("the example %s is accepted as written", async (file) => {
    const accepted = await dryRunAll(client, manifests(join("examples", file)));
    expect(accepted.map((o) => o.kind)).toEqual(["ProviderConfig"]);
  });

  it("refuses a ProviderConfig with both template kinds, or a name that cannot be a label value", async () => {
    const [example] = manifests(join("examples", "providerconfig-in-memory.yaml"));
    if (example === undefined) throw new Error("no example");
    const spec = example.spec as { template: Record<string, unknown> };
    const both = await rejection(dryRunCreate(client, { ...example, spec: { ...spec, template: { ...spec.template, objects: { infrastructureRef: { apiGroup: "a", kind: "B", name: "c" }, resources: [{}] } } } }));
    expect(both.message).toMatch(/exactly one of template.clusterClass and template.objects/);
    const long = await rejection(dryRunCreate(client, { ...example, metadata: { name: "x".repeat(64) } }));
    expect(long.status).toBe(422);
  });

  it("refuses a ClusterProvider without an image, as openMCP's CRD requires", async () => {
    const [provider] = manifests("clusterprovider.yaml");
    if (provider === undefined) throw new Error("no ClusterProvider");
    const spec = { ...(provider.spec as Record<string, unknown>) };
    delete spec.image;
    const refused = await rejection(dryRunCreate(client, { ...provider, spec }));
    expect(refused.status).toBe(422);
  });
});
