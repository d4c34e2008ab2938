/**
 * The platform console's Helm chart (deploy/platform-console), rendered by
 * the pinned helm: the command line it builds (packages/console/src/flags.ts
 * reads it), that it refuses to render without the kcp Secret, that its
 * RBAC only reads, and that the real kube-apiserver of the e2e environment
 * accepts every object it renders (server-side dry-run, strict fields).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { parseConsoleFlags } from "@edgeconnect/console";
import { connectFromEnv, REPO_ROOT } from "@edgeconnect/testenv";
import { dryRunAll, HelmChart, only } from "../src/helm-chart.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`platform-console chart dry-runs skipped: ${infra.skipped}`);

const REQUIRED = { kcp: { kubeconfigSecret: { name: "kcp-ca", key: "kubeconfig" } } };

interface Deployment extends KubeObject {
  spec: { replicas: number; template: { spec: { containers: { args: string[]; securityContext: Record<string, unknown> }[] } } };
}
interface ClusterRole extends KubeObject {
  rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
}

const chart = new HelmChart({ chart: join(REPO_ROOT, "deploy", "platform-console"), release: "pc", namespace: "edgeconnect-system", scratchPrefix: "platform-console-chart-" });
beforeAll(() => chart.init());
afterAll(() => chart.close());

describe("platform-console chart", () => {
  it("runs one replica with a command line the console accepts: Secure cookies, the kcp kubeconfig mounted, metrics URLs repeated", async () => {
    const objects = await chart.template({ ...REQUIRED, controllerMetricsUrls: ["http://a:8080/metrics", "http://b:8080/metrics"] });
    expect(objects.map((obj) => obj.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding", "Deployment", "Service", "ServiceAccount"]);
    const deployment = only<Deployment>(objects, "Deployment");
    expect(deployment.spec.replicas).toBe(1);
    const container = deployment.spec.template.spec.containers[0];
    const flags = parseConsoleFlags(container?.args ?? []);
    expect(flags).toMatchObject({ kcpKubeconfig: "/etc/kcp/kubeconfig", host: "0.0.0.0", port: 8080, secureCookie: true, controllerMetricsUrls: ["http://a:8080/metrics", "http://b:8080/metrics"] });
    expect(flags.infraKubeconfig).toBeUndefined();
    expect(container?.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it("refuses to render without the kcp Secret", async () => {
    await expect(chart.templateFailure({})).resolves.toContain("kcp.kubeconfigSecret.name is required");
  });

  it("only reads on the infrastructure cluster, and never Secrets", async () => {
    for (const clusterApi of [false, true]) {
      const role = only<ClusterRole>(await chart.template({ ...REQUIRED, clusterApi: { enabled: clusterApi } }), "ClusterRole");
      expect(new Set(role.rules.flatMap((rule) => rule.verbs))).toEqual(new Set(["get", "list", "watch"]));
      expect(role.rules.flatMap((rule) => rule.resources)).not.toContain("secrets");
      expect(role.rules.some((rule) => rule.resources.includes("clusters"))).toBe(clusterApi);
    }
  });
});

describeInfra("platform-console chart on the infrastructure cluster", () => {
  let client: RestClient;
  const namespace = `console-chart-${randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    if ("skipped" in infra) return;
    client = infra;
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await client?.delete(`/api/v1/namespaces/${namespace}`).catch(() => undefined);
  });

  it("has every rendered object accepted by the API server", async () => {
    const objects = await chart.template({ ...REQUIRED, clusterApi: { enabled: true }, controllerMetricsUrls: ["http://a:8080/metrics"] }, { namespace });
    const accepted = await dryRunAll(client, objects);
    expect(accepted.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual(objects.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.name ?? ""}`));
  });
});
