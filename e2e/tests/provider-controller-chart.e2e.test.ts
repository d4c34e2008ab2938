/**
 * The provider-controller's Helm chart (deploy/provider-controller): the
 * command line it builds from values (packages/provider-controller/src/cli/
 * flags.ts is what reads it), that its command is the image's entrypoint
 * (packages/provider-controller/Dockerfile) and names a file the build makes,
 * the pod's probes and hardening, the ValidatingAdmissionPolicy that keeps
 * the controller's writes in its tenant namespaces, that a missing
 * kcp kubeconfig Secret or a malformed value fails rendering with a message,
 * that RBAC grants exactly what the controller does on the infrastructure
 * cluster, and that every object it renders is accepted by the real
 * kube-apiserver of the e2e environment (server-side dry-run with strict
 * field validation). The dry-runs are skipped with the reason when the
 * infrastructure cluster is.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, REPO_ROOT } from "@edgeconnect/testenv";
import { dryRunAll, dryRunCreate, HelmChart, only, rejection } from "../src/helm-chart.js";

const RELEASE = "pc";
const FULLNAME = "pc-provider-controller";
const NAMESPACE = "edgeconnect-system";

const { state, infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`provider-controller chart dry-runs against the infrastructure cluster skipped: ${infra.skipped}`);

/** The least an install needs: the platform team's Secret with kcp's kubeconfig. */
const REQUIRED = { kcp: { kubeconfigSecret: { name: "kcp-provider-workspace", key: "admin.kubeconfig" } } };

const DEFAULT_ARGS = [
  "--kcp-kubeconfig=/etc/kcp/kubeconfig",
  "--apiexport-endpoint-slice=platform.edgeconnect.eu",
  "--max-concurrent-reconciles=8",
  "--allowed-otc-auth-url=https://iam.*.otc.t-systems.com/",
  "--otc-concurrency-per-credentials=2",
  "--otc-timeout=20s",
  "--credential-cache-ttl=10m",
  "--kubeconfig-validity-days=365",
  "--max-clusters-per-workspace=100",
  "--reconcile-timeout=5m",
  "--orphan-audit-interval=10m",
  "--orphan-teardown=false",
  "--leader-elect=true",
  "--leader-elect-resource-namespace=kube-system",
  "--leader-elect-resource-name=provider-controller",
  "--metrics-bind-address=:8080",
  "--health-probe-bind-address=:8081",
];

interface Container {
  name: string;
  image: string;
  command: string[];
  args: string[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string; defaultMode: number; items: { key: string; path: string }[] } }[];
}

interface Deployment extends KubeObject {
  spec: { replicas: number; strategy: Record<string, unknown>; template: { metadata: KubeObject["metadata"]; spec: PodSpec } };
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

type RoleObject = KubeObject & { rules: Rule[] };

interface ResourceRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
}

type Policy = KubeObject & {
  spec: {
    failurePolicy: string;
    matchConstraints: { resourceRules: ResourceRule[] };
    matchConditions: { name: string; expression: string }[];
  };
};

const PACKAGE_DIR = join(REPO_ROOT, "packages", "provider-controller");

/**
 * The instructions of a Dockerfile's last stage, the image that ships, as
 * [keyword, arguments]: comments dropped, continued lines joined.
 */
function finalStage(dockerfile: string): [string, string][] {
  const text = dockerfile
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ");
  const instructions = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line): [string, string] => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return [keyword.toUpperCase(), rest.join(" ")];
    });
  return instructions.slice(instructions.map(([keyword]) => keyword).lastIndexOf("FROM"));
}

const chart = new HelmChart({
  chart: join(REPO_ROOT, "deploy", "provider-controller"),
  release: RELEASE,
  namespace: NAMESPACE,
  scratchPrefix: "provider-controller-chart-",
});

beforeAll(() => chart.init());

afterAll(() => chart.close());

function podSpec(objects: readonly KubeObject[]): PodSpec {
  return only<Deployment>(objects, "Deployment").spec.template.spec;
}

function container(objects: readonly KubeObject[]): Container {
  const [first, ...more] = podSpec(objects).containers;
  if (first === undefined || more.length > 0) throw new Error("expected exactly one container");
  return first;
}

/** Verbs granted on group/resource, sorted; throws on a rule that names several groups or resources ambiguously. */
function verbsOf(rules: readonly Rule[], group: string, resource: string): string[] {
  return rules.filter((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource)).flatMap((rule) => rule.verbs).sort();
}

// Server-side apply that creates an object is authorised as create too, so every applied kind has create next to patch.
const MANAGED = ["create", "delete", "get", "list", "patch", "watch"];

/** What the controller does for OTC clusters: [group, resource, verbs]. */
const OTC_GRANTS: [string, string, string[]][] = [
  ["", "namespaces", ["create", "delete", "get", "list"]],
  ["", "events", ["create", "patch"]],
  ["", "secrets", ["create", "delete", "get", "patch"]],
  ["vpc.opentelekomcloud.m.crossplane.io", "vpcv1s", MANAGED],
  ["vpc.opentelekomcloud.m.crossplane.io", "subnetv1s", MANAGED],
  ["vpc.opentelekomcloud.m.crossplane.io", "eipv1s", MANAGED],
  ["cce.opentelekomcloud.m.crossplane.io", "clusterv3s", MANAGED],
  ["cce.opentelekomcloud.m.crossplane.io", "nodepoolv3s", MANAGED],
  ["compute.opentelekomcloud.m.crossplane.io", "keypairv2s", MANAGED],
  ["opentelekomcloud.m.crossplane.io", "providerconfigs", MANAGED],
];

/** The ClusterRole grants exactly `expected`: every row's verbs, and no (group, resource) beyond the rows. */
function expectGrants(rules: readonly Rule[], expected: readonly [string, string, string[]][]): void {
  for (const [group, resource, verbs] of expected) expect([group, resource, verbsOf(rules, group, resource)]).toEqual([group, resource, verbs]);
  const granted = rules.flatMap((rule) => rule.apiGroups.flatMap((group) => rule.resources.map((resource) => `${group}/${resource}`)));
  expect([...new Set(granted)].sort()).toEqual(expected.map(([group, resource]) => `${group}/${resource}`).sort());
  expect(rules.every((rule) => rule.resourceNames === undefined)).toBe(true);
}

/** Cluster API with an `objects` template set of CAPA's EKS kinds. */
const CLUSTER_API = {
  ...REQUIRED,
  clusterApi: {
    enabled: true,
    templateResources: [
      { apiGroups: ["infrastructure.cluster.x-k8s.io"], resources: ["awsmanagedclusters", "awsmanagedmachinepools"] },
      { apiGroups: ["controlplane.cluster.x-k8s.io"], resources: ["awsmanagedcontrolplanes"] },
    ],
  },
};

describe("provider-controller chart: workload", () => {
  it("renders the ServiceAccount, RBAC and a Deployment of two replicas in the release namespace", async () => {
    const objects = await chart.template(REQUIRED);
    expect(objects.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual([
      `ServiceAccount/${NAMESPACE}/${FULLNAME}`,
      `ClusterRole//${FULLNAME}`,
      `ClusterRoleBinding//${FULLNAME}`,
      `Deployment/${NAMESPACE}/${FULLNAME}`,
      `ValidatingAdmissionPolicy//${FULLNAME}`,
      `ValidatingAdmissionPolicyBinding//${FULLNAME}`,
    ]);
    const deployment = only<Deployment>(objects, "Deployment");
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    expect(podSpec(objects).serviceAccountName).toBe(FULLNAME);
  });

  it("runs the controller's binary with the default flags, the kcp kubeconfig from the Secret and no --infra-kubeconfig", async () => {
    const objects = await chart.template(REQUIRED);
    const pc = container(objects);
    expect(pc.image).toBe("ghcr.io/edgeconnect/provider-controller:0.1.0");
    expect(pc.command).toEqual(["/nodejs/bin/node", "/app/packages/provider-controller/dist/main.js"]);
    expect(pc.args).toEqual(DEFAULT_ARGS);
    expect(pc.args.filter((arg) => arg.startsWith("--infra-kubeconfig"))).toEqual([]);
    expect(pc.volumeMounts).toContainEqual({ name: "kcp-kubeconfig", mountPath: "/etc/kcp", readOnly: true });
    expect(podSpec(objects).volumes.find((volume) => volume.name === "kcp-kubeconfig")?.secret).toEqual({
      secretName: "kcp-provider-workspace",
      defaultMode: 0o440,
      items: [{ key: "admin.kubeconfig", path: "kubeconfig" }],
    });
  });

  it("probes /healthz and /readyz on the health port", async () => {
    const pc = container(await chart.template(REQUIRED));
    expect(pc.ports.map((port) => [port.name, port.containerPort])).toEqual([
      ["metrics", 8080],
      ["healthz", 8081],
    ]);
    expect(pc.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "healthz" });
    expect(pc.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "healthz" });
  });

  it("runs unprivileged: non-root, read-only root, no escalation, no capabilities, RuntimeDefault seccomp, bounded memory", async () => {
    const objects = await chart.template(REQUIRED);
    expect(podSpec(objects).securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    const pc = container(objects);
    expect(pc.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(pc.resources.requests).toMatchObject({ cpu: expect.any(String) as unknown, memory: expect.any(String) as unknown });
    expect(pc.resources.limits?.memory).toEqual(expect.any(String));
    expect(pc.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
  });

  it("builds every flag from values, --allowed-otc-auth-url once per entry", async () => {
    const objects = await chart.template({
      kcp: { ...REQUIRED.kcp, apiExportEndpointSlice: "edge-slice" },
      maxConcurrentReconciles: 16,
      otc: {
        allowedAuthUrls: ["https://iam.eu-de.otc.t-systems.com/", "https://iam.*.sovereign.t-systems.com/", "http://127.0.0.1:9001/v3"],
        concurrencyPerCredentials: 4,
        timeout: "1m30s",
      },
      credentialCacheTtl: "5m",
      kubeconfigValidityDays: 90,
      maxClustersPerWorkspace: 20,
      reconcileTimeout: "2m",
      orphanAudit: { interval: "0", teardown: true },
      leaderElection: { enabled: true, namespace: "edgeconnect-system", name: "pc-lease" },
      metrics: { port: 9100 },
      healthProbe: { port: 9101 },
      extraArgs: ["--infra-kubeconfig=/etc/infra/kubeconfig"],
      command: ["/usr/local/bin/node", "/opt/pc/main.js"],
      image: { repository: "registry.example/pc", tag: "0.2.0-rc.1" },
    });
    const pc = container(objects);
    expect(pc.command).toEqual(["/usr/local/bin/node", "/opt/pc/main.js"]);
    expect(pc.image).toBe("registry.example/pc:0.2.0-rc.1");
    expect(pc.args).toEqual([
      "--kcp-kubeconfig=/etc/kcp/kubeconfig",
      "--apiexport-endpoint-slice=edge-slice",
      "--max-concurrent-reconciles=16",
      "--allowed-otc-auth-url=https://iam.eu-de.otc.t-systems.com/",
      "--allowed-otc-auth-url=https://iam.*.sovereign.t-systems.com/",
      "--allowed-otc-auth-url=http://127.0.0.1:9001/v3",
      "--otc-concurrency-per-credentials=4",
      "--otc-timeout=1m30s",
      "--credential-cache-ttl=5m",
      "--kubeconfig-validity-days=90",
      "--max-clusters-per-workspace=20",
      "--reconcile-timeout=2m",
      "--orphan-audit-interval=0",
      "--orphan-teardown=true",
      "--leader-elect=true",
      "--leader-elect-resource-namespace=edgeconnect-system",
      "--leader-elect-resource-name=pc-lease",
      "--metrics-bind-address=:9100",
      "--health-probe-bind-address=:9101",
      "--infra-kubeconfig=/etc/infra/kubeconfig",
    ]);
    expect(pc.ports.map((port) => port.containerPort)).toEqual([9100, 9101]);
  });

  it.each([1, 1825])("accepts kubeconfigs valid for %i days, the bounds the controller takes", async (days) => {
    expect(container(await chart.template({ ...REQUIRED, kubeconfigValidityDays: days })).args).toContain(`--kubeconfig-validity-days=${days}`);
  });

  it("with clusterApi.enabled: --cluster-api after the OTC flags, and nothing else changed", async () => {
    const args = container(await chart.template({ ...REQUIRED, clusterApi: { enabled: true } })).args;
    const at = DEFAULT_ARGS.indexOf("--kubeconfig-validity-days=365") + 1;
    expect(args).toEqual([...DEFAULT_ARGS.slice(0, at), "--cluster-api", ...DEFAULT_ARGS.slice(at)]);
  });

  it("without leader election: --leader-elect=false", async () => {
    const objects = await chart.template({ ...REQUIRED, replicas: 1, leaderElection: { enabled: false } });
    const args = container(objects).args;
    expect(args).toContain("--leader-elect=false");
    expect(args.filter((arg) => arg.startsWith("--leader-elect-resource"))).toEqual([]);
    expect(objects.map((obj) => obj.kind)).not.toContain("RoleBinding");
  });

  it("sharded: --sharded with the slots, and the Lease namespace and name that place and name the shard Leases", async () => {
    const objects = await chart.template({ ...REQUIRED, replicas: 3, leaderElection: { enabled: false, namespace: "edgeconnect-system", name: "pc" }, sharding: { enabled: true, slots: 16 } });
    const args = container(objects).args;
    expect(args).toEqual(expect.arrayContaining(["--leader-elect=false", "--sharded=true", "--shard-slots=16", "--leader-elect-resource-namespace=edgeconnect-system", "--leader-elect-resource-name=pc"]));
    expect(args).not.toContain("--leader-elect=true");
  });
});

describe("provider-controller chart: the image", () => {
  const dockerfile = readFileSync(join(PACKAGE_DIR, "Dockerfile"), "utf8");
  const stage = finalStage(dockerfile);
  const instruction = (keyword: string): string => {
    const found = stage.filter(([k]) => k === keyword);
    if (found.length !== 1) throw new Error(`expected one ${keyword} in the Dockerfile's last stage, found ${found.length}`);
    return found[0]?.[1] ?? "";
  };

  it("runs the Dockerfile's entrypoint, as the Dockerfile's user", async () => {
    const objects = await chart.template(REQUIRED);
    expect(JSON.parse(instruction("ENTRYPOINT"))).toEqual(container(objects).command);
    const [user, group] = instruction("USER").split(":").map(Number);
    expect(podSpec(objects).securityContext).toMatchObject({ runAsUser: user, runAsGroup: group });
  });

  it("runs the package's binary, where the image puts the package, and the build makes it", async () => {
    const [, script = ""] = container(await chart.template(REQUIRED)).command;
    const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { name: string; bin: Record<string, string> };
    // The build stage deploys this package into a directory that the last stage copies to its place in the image.
    const deployed = /--filter (\S+) deploy .*?(\/\S+)\s*$/m.exec(dockerfile.replace(/\\\n/g, " "));
    expect(deployed?.[1]).toBe(pkg.name);
    const [from, source, target = ""] = instruction("COPY").split(/\s+/);
    expect([from, source]).toEqual(["--from=build", deployed?.[2]]);
    expect(script.startsWith(`${target}/`)).toBe(true);
    const inPackage = script.slice(target.length + 1);
    expect(pkg.bin["provider-controller"]).toBe(`./${inPackage}`);
    const built = join(PACKAGE_DIR, inPackage);
    expect(existsSync(built) ? built : `${built} does not exist: build with npx tsc -b packages/provider-controller`).toBe(built);
  });
});

describe("provider-controller chart: admission policy", () => {
  it("binds a policy that fails closed to the requests of the controller's ServiceAccount", async () => {
    const objects = await chart.template(REQUIRED);
    const policy = only<Policy>(objects, "ValidatingAdmissionPolicy");
    expect(policy.spec.failurePolicy).toBe("Fail");
    expect(policy.spec.matchConditions).toEqual([{ name: "provider-controller", expression: `request.userInfo.username == 'system:serviceaccount:${NAMESPACE}:${FULLNAME}'` }]);
    expect(only(objects, "ValidatingAdmissionPolicyBinding")).toMatchObject({ metadata: { name: FULLNAME }, spec: { policyName: FULLNAME, validationActions: ["Deny"] } });
  });

  it("follows a ServiceAccount of another name, in the release namespace", async () => {
    const objects = await chart.template({ ...REQUIRED, serviceAccount: { name: "pc-infra" } }, { namespace: "platform" });
    expect(only<Policy>(objects, "ValidatingAdmissionPolicy").spec.matchConditions[0]?.expression).toBe("request.userInfo.username == 'system:serviceaccount:platform:pc-infra'");
  });

  it.each([
    ["by default", REQUIRED],
    ["with Cluster API", CLUSTER_API],
  ])("covers every write the ClusterRole grants, %s", async (_case, values) => {
    const objects = await chart.template(values);
    const covered = only<Policy>(objects, "ValidatingAdmissionPolicy").spec.matchConstraints.resourceRules;
    // An applied object is created or updated; patch and update are both UPDATE to admission.
    const operations: Record<string, string[]> = { create: ["CREATE"], patch: ["UPDATE"], update: ["UPDATE"], delete: ["DELETE"] };
    const uncovered: string[] = [];
    for (const rule of only<RoleObject>(objects, "ClusterRole").rules) {
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources) {
          for (const operation of rule.verbs.flatMap((verb) => operations[verb] ?? [])) {
            const matched = covered.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.operations.includes(operation) && r.apiVersions.includes("*"));
            if (!matched) uncovered.push(`${operation} ${group}/${resource}`);
          }
        }
      }
    }
    expect(uncovered).toEqual([]);
  });

  it("is left out with admissionPolicy.enabled=false", async () => {
    const kinds = (await chart.template({ ...REQUIRED, admissionPolicy: { enabled: false } })).map((obj) => obj.kind);
    expect(kinds).not.toContain("ValidatingAdmissionPolicy");
    expect(kinds).not.toContain("ValidatingAdmissionPolicyBinding");
    expect(kinds).toContain("Deployment");
  });
});

describe("provider-controller chart: RBAC", () => {
  it.each([
    ["by default", REQUIRED],
    ["with Cluster API", CLUSTER_API],
  ])("has no wildcard anywhere %s", async (_case, values) => {
    const objects = await chart.template(values);
    const rules = only<RoleObject>(objects, "ClusterRole").rules;
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames ?? []]) expect(field).not.toContain("*");
    }
  });

  it("grants exactly what the controller does on the infrastructure cluster", async () => {
    expectGrants(only<RoleObject>(await chart.template(REQUIRED), "ClusterRole").rules, OTC_GRANTS);
  });

  it("with clusterApi.enabled grants reading the template sets, Cluster API Clusters and the template kinds named, no more", async () => {
    expectGrants(only<RoleObject>(await chart.template({ ...REQUIRED, clusterApi: { enabled: true } }), "ClusterRole").rules, [
      ...OTC_GRANTS,
      ["capi.clusters.openmcp.cloud", "providerconfigs", ["get", "list", "watch"]],
      ["cluster.x-k8s.io", "clusters", MANAGED],
    ]);
    const template = ["create", "delete", "get", "patch"];
    expectGrants(only<RoleObject>(await chart.template(CLUSTER_API), "ClusterRole").rules, [
      ...OTC_GRANTS,
      ["capi.clusters.openmcp.cloud", "providerconfigs", ["get", "list", "watch"]],
      ["cluster.x-k8s.io", "clusters", MANAGED],
      ["infrastructure.cluster.x-k8s.io", "awsmanagedclusters", template],
      ["infrastructure.cluster.x-k8s.io", "awsmanagedmachinepools", template],
      ["controlplane.cluster.x-k8s.io", "awsmanagedcontrolplanes", template],
    ]);
  });

  it("grants nothing for the Lease on this cluster: it lives in the provider workspace on kcp", async () => {
    const objects = await chart.template(REQUIRED);
    expect(objects.map((obj) => obj.kind).filter((kind) => kind === "Role" || kind === "RoleBinding")).toEqual([]);
    expect(JSON.stringify(only<RoleObject>(objects, "ClusterRole").rules)).not.toContain("leases");
    expect(only(objects, "ClusterRoleBinding")).toMatchObject({
      roleRef: { kind: "ClusterRole", name: FULLNAME },
      subjects: [{ kind: "ServiceAccount", name: FULLNAME, namespace: NAMESPACE }],
    });
  });
});

describe("provider-controller chart: missing, malformed and contradictory values fail rendering", () => {
  const secret = REQUIRED.kcp.kubeconfigSecret;
  const cases: [string, object, string][] = [
    ["no kcp kubeconfig Secret", {}, "kcp.kubeconfigSecret.name is required: the Secret (in the release namespace) holding the kubeconfig of kcp's provider workspace"],
    ["a Secret without its key", { kcp: { kubeconfigSecret: { name: secret.name } } }, "kcp.kubeconfigSecret.key is required"],
    ["replicas without leader election", { ...REQUIRED, leaderElection: { enabled: false } }, "replicas > 1 needs leaderElection.enabled or sharding.enabled"],
    ["sharding beside leader election", { ...REQUIRED, sharding: { enabled: true } }, "sharding.enabled replaces the single leader: set leaderElection.enabled=false"],
    ["sharding over no slots", { ...REQUIRED, leaderElection: { enabled: false }, sharding: { enabled: true, slots: 0 } }, "at '/sharding/slots'"],
    ["one port for metrics and probes", { ...REQUIRED, metrics: { port: 9000 }, healthProbe: { port: 9000 } }, "metrics.port and healthProbe.port must differ"],
    // values.schema.json
    ["a misspelt value", { ...REQUIRED, kcp: { kubeconfigSecret: { ...secret, namespace: "x" } } }, "additional properties 'namespace' not allowed"],
    ["an auth URL that is no prefix with a path", { ...REQUIRED, otc: { allowedAuthUrls: ["iam.eu-de.otc.t-systems.com"] } }, "at '/otc/allowedAuthUrls/0'"],
    ["no auth URL at all", { ...REQUIRED, otc: { allowedAuthUrls: [] } }, "at '/otc/allowedAuthUrls'"],
    ["a duration the controller cannot parse", { ...REQUIRED, otc: { timeout: "20 seconds" } }, "at '/otc/timeout'"],
    ["a number where a duration belongs", { ...REQUIRED, credentialCacheTtl: 600 }, "at '/credentialCacheTtl': got number, want string"],
    ["zero reconciles", { ...REQUIRED, maxConcurrentReconciles: 0 }, "at '/maxConcurrentReconciles'"],
    ["kubeconfigs valid for 0 days", { ...REQUIRED, kubeconfigValidityDays: 0 }, "at '/kubeconfigValidityDays': minimum: got 0, want 1"],
    ["kubeconfigs valid for more than five years", { ...REQUIRED, kubeconfigValidityDays: 1826 }, "at '/kubeconfigValidityDays': maximum: got 1,826, want 1,825"],
    ["an invalid Secret name", { kcp: { kubeconfigSecret: { ...secret, name: "Kcp_Secret" } } }, "at '/kcp/kubeconfigSecret/name'"],
    ["an empty command", { ...REQUIRED, command: [] }, "at '/command'"],
    ["template kinds without Cluster API", { ...REQUIRED, clusterApi: { templateResources: CLUSTER_API.clusterApi.templateResources } }, "clusterApi.templateResources needs clusterApi.enabled"],
    ["a wildcard template kind", { ...REQUIRED, clusterApi: { enabled: true, templateResources: [{ apiGroups: ["infrastructure.cluster.x-k8s.io"], resources: ["*"] }] } }, "at '/clusterApi/templateResources/0/resources/0'"],
    ["a template kind without group", { ...REQUIRED, clusterApi: { enabled: true, templateResources: [{ resources: ["awsmanagedclusters"] }] } }, "at '/clusterApi/templateResources/0'"],
  ];

  it.each(cases)("%s", async (_name, values, message) => {
    expect(await chart.templateFailure(values)).toContain(message);
  });

  it("even when only the ServiceAccount is shown", async () => {
    expect(await chart.templateFailure({}, { showOnly: "templates/serviceaccount.yaml" })).toContain("kcp.kubeconfigSecret.name is required");
  });

  it("helm lint --strict passes with the required values", async () => {
    expect(await chart.helm(["lint", "--strict", chart.chart, "-f", chart.valuesFile(REQUIRED)])).toContain("1 chart(s) linted, 0 chart(s) failed");
  });
});

describeInfra(`provider-controller chart against the infrastructure cluster (${state.infra.mode})`, () => {
  const client = infra as RestClient;
  const namespace = `pc-chart-${randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`).catch(() => undefined);
  });

  const valueSets: [string, object][] = [
    ["the required values", REQUIRED],
    [
      "every flag set",
      {
        ...REQUIRED,
        maxConcurrentReconciles: 4,
        otc: { allowedAuthUrls: ["https://iam.eu-de.otc.t-systems.com/", "https://iam.eu-nl.otc.t-systems.com/"], concurrencyPerCredentials: 1, timeout: "5s" },
        credentialCacheTtl: "1h",
        kubeconfigValidityDays: 30,
        imagePullSecrets: ["swr"],
        podAnnotations: { a: "b" },
        env: [{ name: "NODE_OPTIONS", value: "--max-old-space-size=384" }],
      },
    ],
    ["one replica without leader election", { ...REQUIRED, replicas: 1, leaderElection: { enabled: false } }],
    ["three sharded replicas", { ...REQUIRED, replicas: 3, leaderElection: { enabled: false }, sharding: { enabled: true } }],
    ["Cluster API with template kinds", CLUSTER_API],
  ];

  it.each(valueSets)("accepts every object rendered for %s", async (_name, values) => {
    const objects = await chart.template(values, { namespace });
    expect(objects.length).toBeGreaterThanOrEqual(4);
    const accepted = await dryRunAll(client, objects);
    expect(accepted.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual(objects.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.name ?? ""}`));
  });

  it("admits a pod of the Deployment's template", async () => {
    const objects = await chart.template(REQUIRED, { namespace });
    // Pod admission looks the service account up; the dry-runs above stored nothing.
    await client.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, only(objects, "ServiceAccount")).catch((err: unknown) => {
      if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
    });
    const { spec, metadata } = only<Deployment>(objects, "Deployment").spec.template;
    const pod = await dryRunCreate(client, { apiVersion: "v1", kind: "Pod", metadata: { ...metadata, name: "provider-controller", namespace }, spec });
    const admitted = pod.spec as PodSpec;
    expect(admitted.containers[0]?.args).toEqual(DEFAULT_ARGS.map((arg) => arg.replace(NAMESPACE, namespace)));
    expect(admitted.containers[0]?.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it("rejects an unknown field, so the dry-runs above prove something", async () => {
    const deployment = only<Deployment>(await chart.template(REQUIRED, { namespace }), "Deployment");
    const broken = { ...deployment, spec: { ...deployment.spec, template: { ...deployment.spec.template, spec: { ...deployment.spec.template.spec, hostNetwrok: true } } } };
    const err = await rejection(dryRunCreate(client, broken));
    expect([400, 422]).toContain(err.status);
    expect(err.message).toContain("hostNetwrok");
  });

  it("helm install --dry-run=server renders the notes against the cluster", async () => {
    const kubeconfig = "kubeconfig" in state.infra ? state.infra.kubeconfig : "";
    const output = await chart.helm(["install", "notes", chart.chart, "--dry-run=server", "--namespace", namespace, "--kubeconfig", kubeconfig, "-f", chart.valuesFile(REQUIRED)]);
    expect(output).toContain(`The provider-controller runs as Deployment ${namespace}/notes-provider-controller (2 replicas)`);
    expect(output).toContain(`Secret ${namespace}/kcp-provider-workspace (key admin.kubeconfig)`);
  });
});
