/**
 * The documented ProviderConfig examples (deploy/cluster-provider-capi/
 * examples/) are what platform teams copy: each must pass the checks the
 * config controller makes before it applies anything, and render a Cluster
 * API Cluster whose references resolve.
 */
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProviderConfigV1alpha1 } from "@edgeconnect/capi-provider-api";
import { renderClusterApiObjects, type ClusterTemplate } from "@edgeconnect/provisioning";
import { parseAllDocuments } from "yaml";
import { clusterProfileName } from "../openmcp/profile-naming.js";
import { declaredProviders } from "./desired-providers.js";
import { configProblems } from "./provider-config-reconciler.js";

const EXAMPLES = fileURLToPath(new URL("../../../../deploy/cluster-provider-capi/examples/", import.meta.url));

const examples = readdirSync(EXAMPLES)
  .filter((file) => file.endsWith(".yaml"))
  .sort()
  .map((file) => {
    const docs = parseAllDocuments(readFileSync(join(EXAMPLES, file), "utf8")).map((doc) => doc.toJS() as ProviderConfigV1alpha1);
    return [file, docs] as const;
  });

describe("ProviderConfig examples", () => {
  it("covers the in-memory provider and the three managed clouds", () => {
    expect(examples.map(([file]) => file)).toEqual([
      "providerconfig-aws-eks.yaml",
      "providerconfig-azure-aks.yaml",
      "providerconfig-gcp-gke.yaml",
      "providerconfig-in-memory.yaml",
    ]);
  });

  it.each(examples)("%s is one valid ProviderConfig", (_file, docs) => {
    expect(docs).toHaveLength(1);
    const [config] = docs;
    if (config === undefined) throw new Error("no document");
    expect(config.apiVersion).toBe("capi.clusters.openmcp.cloud/v1alpha1");
    expect(configProblems(config)).toEqual([]);
    expect(clusterProfileName("prod", config.spec.providerRef.name, config.metadata.name ?? "")).toBe(`prod.capi.${config.metadata.name ?? ""}`);
    expect(declaredProviders(config).length).toBeGreaterThan(0);
  });

  it.each(examples)("%s renders a Cluster whose references name its own resources", (_file, docs) => {
    const config = docs[0];
    if (config === undefined) throw new Error("no document");
    const { cluster, resources } = renderClusterApiObjects({
      name: "orders",
      namespace: "team-a",
      kubernetesVersion: config.spec.kubernetesVersions[0]?.version ?? "",
      labels: { team: "a" },
      template: config.spec.template as ClusterTemplate,
    });
    const names = new Set(resources.map((r) => `${r.apiVersion.split("/")[0] ?? ""}/${r.kind}/${r.metadata.name}`));
    for (const ref of [cluster.spec.infrastructureRef, cluster.spec.controlPlaneRef].filter((r) => r !== undefined)) {
      expect(names.has(`${ref.apiGroup}/${ref.kind}/${ref.name}`)).toBe(true);
    }
    expect(JSON.stringify(resources)).not.toContain("${");
    expect(cluster.spec.topology ?? cluster.spec.infrastructureRef).toBeDefined();
  });
});
