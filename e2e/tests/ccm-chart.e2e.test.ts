/**
 * The OTC CCM's Helm chart (deploy/otc-cloud-controller-manager): what it
 * renders for each kind of configuration, that contradictions fail with a
 * message, and that every object it renders, and every object of the
 * ClusterResourceSet delivery, is accepted by a real kube-apiserver
 * (server-side dry-run with strict field validation). The ClusterResourceSet
 * itself is checked against Cluster API's own CRD, taken from the Go module
 * proxy at a pinned version and checksum.
 *
 * helm is the repository's pinned build (`pnpm binaries helm`, or HELM_BIN).
 * Rendering needs no cluster; the dry-runs are skipped with the reason when
 * the infrastructure cluster is.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, eventually, FatalError, parseManifests, REPO_ROOT, waitForObject } from "@edgeconnect/testenv";
import { dryRunCreate, HelmChart, only, rejection, run } from "../src/helm-chart.js";

const CHART = join(REPO_ROOT, "deploy", "otc-cloud-controller-manager");
const RENDER_CRS = join(REPO_ROOT, "scripts", "render-ccm-crs.sh");
const RELEASE = "otc-ccm";
const FULLNAME = "otc-ccm-otc-cloud-controller-manager";

// Cluster API publishes its CRDs only inside the module; the checksum is the
// one the Go checksum database holds for this version, so the CRD is the same
// on every machine.
const CAPI_MODULE = "sigs.k8s.io/cluster-api";
const CAPI_VERSION = "v1.14.2";
const CAPI_SUM = "h1:o3GFNaeNFAOEEMpDPfhCK+2CjmV6gtQ8yLEcUwCg7bA=";
const CRS_CRD = "core/config/crd/bases/addons.cluster.x-k8s.io_clusterresourcesets.yaml";

const { state, infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;
if ("skipped" in infra) console.warn(`CCM chart dry-runs against the infrastructure cluster skipped: ${infra.skipped}`);

/** The values the Go CCM's chart documents for ClusterResourceSet delivery. */
const SEED_VALUES = {
  cloudConfig: {
    create: true,
    accessKey: "AKTESTACCESSKEY",
    secretKey: "sk;with#comment-chars",
    domainName: "OTC-EU-DE-00000000001000000001",
    projectName: "eu-de_ccm",
    subnetId: "0b3c1e6e-2f6d-4a33-9d1b-subnet",
    networkId: "5d1f6b0a-8e2c-4f7b-a9c3-network",
    clusterName: "capi-one",
  },
};

const SEED_CLOUD_CONF = `[Global]
access-key = "AKTESTACCESSKEY"
secret-key = "sk;with#comment-chars"
region = "eu-de"
project-name = "eu-de_ccm"
domain-name = "OTC-EU-DE-00000000001000000001"

[LoadBalancer]
subnet-id = "0b3c1e6e-2f6d-4a33-9d1b-subnet"
network-id = "5d1f6b0a-8e2c-4f7b-a9c3-network"
bandwidth-mbit = "100"
cluster-name = "capi-one"
`;

const ALWAYS_TOLERATED = [
  { key: "node.cloudprovider.kubernetes.io/uninitialized", operator: "Equal", value: "true", effect: "NoSchedule" },
  { key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
];

const DEFAULT_ARGS = [
  "--cloud-provider=otc",
  "--cloud-config=/etc/otc/cloud.conf",
  "--controllers=*",
  "--leader-elect=true",
  "--leader-elect-resource-namespace=kube-system",
  "--leader-elect-resource-name=cloud-controller-manager",
  "--metrics-bind-address=:10258",
  "--health-probe-bind-address=:10268",
];

interface Container {
  name: string;
  image: string;
  args: string[];
  env?: { name: string; value: string }[];
  ports: { name: string; containerPort: number; hostPort?: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName: string;
  priorityClassName: string;
  hostNetwork: boolean;
  dnsPolicy: string;
  nodeSelector?: Record<string, string>;
  affinity?: { podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { topologyKey: string }[] } };
  tolerations: Record<string, string>[];
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string; defaultMode: number; items: { key: string; path: string }[] } }[];
}

interface Workload extends KubeObject {
  spec: {
    replicas?: number;
    strategy?: { type: string; rollingUpdate?: Record<string, unknown> };
    updateStrategy?: { type: string; rollingUpdate?: Record<string, unknown> };
    template: { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
}

interface SecretObject extends KubeObject {
  type?: string;
  data: Record<string, string>;
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const chart = new HelmChart({ chart: CHART, release: RELEASE, namespace: "kube-system", scratchPrefix: "ccm-chart-" });
const { scratch, env: helmEnv } = chart;

beforeAll(() => chart.init());

afterAll(() => chart.close());

const valuesFile = (values: object): string => chart.valuesFile(values);
const helmOutput = (args: readonly string[]): Promise<{ stdout: string; stderr: string }> => chart.output(args);
const helm = (args: readonly string[]): Promise<string> => chart.helm(args);
const helmFailure = (args: readonly string[]): Promise<string> => chart.failure(args);
const template = (values: object, options: { namespace?: string; showOnly?: string } = {}): Promise<KubeObject[]> => chart.template(values, options);

function cloudConf(objects: readonly KubeObject[]): string {
  return Buffer.from(only<SecretObject>(objects, "Secret").data["cloud.conf"] ?? "", "base64").toString("utf8");
}

function podSpec(objects: readonly KubeObject[], kind = "DaemonSet"): PodSpec {
  return only<Workload>(objects, kind).spec.template.spec;
}

function container(objects: readonly KubeObject[], kind = "DaemonSet"): Container {
  const [first] = podSpec(objects, kind).containers;
  if (first === undefined) throw new Error(`${kind} has no container`);
  return first;
}

describe("CCM chart: cloud.conf", () => {
  it("renders the seed's values, each key quoted, in the CCM's sections", async () => {
    const objects = await template(SEED_VALUES);
    expect(cloudConf(objects)).toBe(SEED_CLOUD_CONF);
    expect(only<SecretObject>(objects, "Secret")).toMatchObject({
      type: "Opaque",
      metadata: { name: "otc-cloud-config", namespace: "kube-system" },
    });
  });

  it("renders every optional key once it is set", async () => {
    const objects = await template({
      cloudConfig: {
        ...SEED_VALUES.cloudConfig,
        securityToken: "token-123",
        region: "eu-nl",
        projectId: "0123456789abcdef0123456789abcdef",
        authUrl: "https://iam.eu-nl.otc.t-systems.com/v3",
        bandwidthMbit: 300,
        availabilityZones: ["eu-nl-01", "eu-nl-02"],
        endpoints: { elb: "http://127.0.0.1:9000", iam: "http://127.0.0.1:9001" },
      },
    });
    expect(cloudConf(objects)).toBe(`[Global]
access-key = "AKTESTACCESSKEY"
secret-key = "sk;with#comment-chars"
security-token = "token-123"
region = "eu-nl"
project-id = "0123456789abcdef0123456789abcdef"
project-name = "eu-de_ccm"
domain-name = "OTC-EU-DE-00000000001000000001"
auth-url = "https://iam.eu-nl.otc.t-systems.com/v3"

[LoadBalancer]
subnet-id = "0b3c1e6e-2f6d-4a33-9d1b-subnet"
network-id = "5d1f6b0a-8e2c-4f7b-a9c3-network"
bandwidth-mbit = "300"
cluster-name = "capi-one"
availability-zones = "eu-nl-01,eu-nl-02"

[Endpoints]
iam = "http://127.0.0.1:9001"
elb = "http://127.0.0.1:9000"
`);
  });

  it("leaves the [LoadBalancer] section out without subnetId, whatever else is set", async () => {
    const objects = await template({ cloudConfig: { ...SEED_VALUES.cloudConfig, subnetId: "" } });
    expect(cloudConf(objects)).toBe(`[Global]
access-key = "AKTESTACCESSKEY"
secret-key = "sk;with#comment-chars"
region = "eu-de"
project-name = "eu-de_ccm"
domain-name = "OTC-EU-DE-00000000001000000001"
`);
  });

  it("rolls the pods when cloud.conf changes, through a checksum of it", async () => {
    const annotation = (objects: KubeObject[]): string | undefined =>
      only<Workload>(objects, "DaemonSet").spec.template.metadata.annotations?.["checksum/cloud-config"];
    const seed = await template(SEED_VALUES);
    expect(annotation(seed)).toBe(createHash("sha256").update(SEED_CLOUD_CONF).digest("hex"));
    const rotated = await template({ cloudConfig: { ...SEED_VALUES.cloudConfig, secretKey: "rotated" } });
    expect(annotation(rotated)).toBe(createHash("sha256").update(cloudConf(rotated)).digest("hex"));
    expect(annotation(rotated)).not.toBe(annotation(seed));
    // Without the Secret the chart cannot know its content.
    expect(annotation(await template({}))).toBeUndefined();
  });

  it("--show-only templates/secret.yaml gives the Secret alone", async () => {
    const objects = await template(SEED_VALUES, { showOnly: "templates/secret.yaml" });
    expect(objects.map((obj) => obj.kind)).toEqual(["Secret"]);
    expect(cloudConf(objects)).toBe(SEED_CLOUD_CONF);
  });
});

describe("CCM chart: workload", () => {
  it("by default renders a DaemonSet on control-plane nodes and no Secret", async () => {
    const objects = await template({});
    expect(objects.map((obj) => `${obj.kind}/${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual([
      `ServiceAccount/kube-system/${FULLNAME}`,
      `ClusterRole//${FULLNAME}`,
      `ClusterRoleBinding//${FULLNAME}`,
      `Role/kube-system/${FULLNAME}-leader-election`,
      `RoleBinding/kube-system/${FULLNAME}-leader-election`,
      `DaemonSet/kube-system/${FULLNAME}`,
    ]);
    const pod = podSpec(objects);
    expect(pod).toMatchObject({
      serviceAccountName: FULLNAME,
      priorityClassName: "system-cluster-critical",
      hostNetwork: true,
      dnsPolicy: "Default",
      nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
      securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
    });
    expect(pod.tolerations).toEqual(ALWAYS_TOLERATED);
    expect(pod.volumes.find((volume) => volume.name === "cloud-config")?.secret).toEqual({
      secretName: "otc-cloud-config",
      defaultMode: 0o440, // read as octal by the API server, whatever YAML parser reads the chart
      items: [{ key: "cloud.conf", path: "cloud.conf" }],
    });
    const ccm = container(objects);
    expect(ccm.image).toBe("ghcr.io/edgeconnect/otc-cloud-controller-manager:0.1.0");
    expect(ccm.args).toEqual(DEFAULT_ARGS);
    expect(ccm.ports.map((port) => [port.name, port.containerPort])).toEqual([
      ["metrics", 10258],
      ["healthz", 10268],
    ]);
    expect(ccm.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "healthz" });
    expect(ccm.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "healthz" });
    expect(ccm.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(ccm.volumeMounts).toContainEqual({ name: "cloud-config", mountPath: "/etc/otc", readOnly: true });
    expect(only<Workload>(objects, "DaemonSet").spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } });
  });

  it("renders a Deployment instead with kind=Deployment, never two replicas on one node", async () => {
    const objects = await template({ kind: "Deployment", replicas: 2, tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }] });
    expect(objects.filter((obj) => obj.kind === "DaemonSet")).toEqual([]);
    const deployment = only<Workload>(objects, "Deployment");
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    const pod = podSpec(objects, "Deployment");
    expect(pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey).toBe("kubernetes.io/hostname");
    expect(pod.tolerations).toEqual([...ALWAYS_TOLERATED, { key: "CriticalAddonsOnly", operator: "Exists" }]);
    expect(container(objects, "Deployment").args).toEqual(DEFAULT_ARGS);
  });

  it("passes --cluster-name only when cloud.conf does not name the cluster", async () => {
    const flag = await template({ clusterName: "from-flag" });
    expect(container(flag).args).toContain("--cluster-name=from-flag");
    const both = await template({ clusterName: "from-flag", cloudConfig: { ...SEED_VALUES.cloudConfig } });
    expect(container(both).args.filter((arg) => arg.startsWith("--cluster-name"))).toEqual([]);
    // The workload of a ClusterResourceSet render (create=false) must not differ per cluster either.
    const crs = await template({ clusterName: "from-flag", cloudConfig: { ...SEED_VALUES.cloudConfig, create: false } });
    expect(container(crs).args).toEqual(DEFAULT_ARGS);
  });

  it("builds the other flags from values", async () => {
    const objects = await template({
      kind: "Deployment",
      controllers: ["cloud-node", "service"],
      leaderElection: { enabled: false },
      metrics: { port: 9100 },
      healthProbe: { port: 9101 },
      nodeMonitorPeriod: "10s",
      nodeStatusUpdateFrequency: "10m",
      concurrentServiceSyncs: 2,
      extraArgs: ["--kubeconfig=/etc/kubernetes/ccm.conf"],
      apiServer: { host: "127.0.0.1", port: 6443 },
      image: { tag: "0.2.0-rc.1" },
    });
    const ccm = container(objects, "Deployment");
    expect(ccm.args).toEqual([
      "--cloud-provider=otc",
      "--cloud-config=/etc/otc/cloud.conf",
      "--controllers=cloud-node,service",
      "--leader-elect=false",
      "--metrics-bind-address=:9100",
      "--health-probe-bind-address=:9101",
      "--node-monitor-period=10s",
      "--node-status-update-frequency=10m",
      "--concurrent-service-syncs=2",
      "--kubeconfig=/etc/kubernetes/ccm.conf",
    ]);
    expect(ccm.env).toEqual([
      { name: "KUBERNETES_SERVICE_HOST", value: "127.0.0.1" },
      { name: "KUBERNETES_SERVICE_PORT", value: "6443" },
    ]);
    expect(ccm.image).toBe("ghcr.io/edgeconnect/otc-cloud-controller-manager:0.2.0-rc.1");
    expect(ccm.ports.map((port) => port.containerPort)).toEqual([9100, 9101]);
    // No Lease, no Role for it.
    expect(objects.map((obj) => obj.kind)).not.toContain("Role");
  });

  it("passes a controller turned off as -NAME", async () => {
    expect(container(await template({ controllers: ["*", "-service"] })).args).toContain("--controllers=*,-service");
  });

  it("mounts an existing Secret when the chart does not create one", async () => {
    const objects = await template({ cloudConfig: { create: false, existingSecret: "my-otc-credentials" } });
    expect(objects.map((obj) => obj.kind)).not.toContain("Secret");
    expect(podSpec(objects).volumes.find((volume) => volume.name === "cloud-config")?.secret?.secretName).toBe("my-otc-credentials");
  });

  it("grants what the CCM's controllers and its Lease need, the Lease by name", async () => {
    const objects = await template({});
    const verbsOf = (rules: Rule[], group: string, resource: string): string[] =>
      rules.filter((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource)).flatMap((rule) => rule.verbs).sort();
    const cluster = only<KubeObject & { rules: Rule[] }>(objects, "ClusterRole").rules;
    expect(verbsOf(cluster, "", "nodes")).toEqual(["delete", "get", "list", "patch", "update", "watch"]);
    expect(verbsOf(cluster, "", "nodes/status")).toEqual(["patch", "update"]);
    expect(verbsOf(cluster, "", "services")).toEqual(["get", "list", "patch", "update", "watch"]);
    expect(verbsOf(cluster, "", "services/status")).toEqual(["patch", "update"]);
    expect(verbsOf(cluster, "", "events")).toEqual(["create", "patch", "update"]);
    expect(verbsOf(cluster, "events.k8s.io", "events")).toEqual(["create", "patch", "update"]);
    expect(verbsOf(cluster, "coordination.k8s.io", "leases")).toEqual([]);
    const lease = only<KubeObject & { rules: Rule[] }>(objects, "Role");
    expect(lease.metadata?.namespace).toBe("kube-system");
    expect(lease.rules).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: ["cloud-controller-manager"], verbs: ["get", "update"] },
    ]);
    expect(only(objects, "RoleBinding")).toMatchObject({
      roleRef: { kind: "Role", name: `${FULLNAME}-leader-election` },
      subjects: [{ kind: "ServiceAccount", name: FULLNAME, namespace: "kube-system" }],
    });
  });
});

describe("CCM chart: contradictions and misspelt values fail rendering", () => {
  const cases: [string, object, string][] = [
    ["create=true without keys", { cloudConfig: { create: true } }, "cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey"],
    [
      "create=true without secretKey",
      { cloudConfig: { create: true, accessKey: "AK" } },
      "cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey",
    ],
    [
      "create=true with existingSecret",
      { cloudConfig: { ...SEED_VALUES.cloudConfig, existingSecret: "other" } },
      "cloudConfig.existingSecret is used only with cloudConfig.create=false",
    ],
    [
      "a double quote in a value",
      { cloudConfig: { ...SEED_VALUES.cloudConfig, projectName: 'eu-de"x' } },
      "cloudConfig.projectName must not contain double quotes, backslashes or line breaks",
    ],
    [
      "a backslash in a value",
      { cloudConfig: { ...SEED_VALUES.cloudConfig, secretKey: "a\\b" } },
      "cloudConfig.secretKey must not contain double quotes, backslashes or line breaks",
    ],
    [
      "a bandwidth that is not a positive integer",
      { cloudConfig: { ...SEED_VALUES.cloudConfig, bandwidthMbit: "fast" } },
      'cloudConfig.bandwidthMbit must be a positive integer (Mbit/s), not "fast"',
    ],
    ["an unknown kind", { kind: "StatefulSet" }, 'kind must be DaemonSet or Deployment, not "StatefulSet"'],
    ["an unknown controller", { controllers: ["route"] }, 'controllers: unknown controller "route"'],
    ["an unknown endpoint", { cloudConfig: { endpoints: { dns: "http://x" } } }, "cloudConfig.endpoints.dns is not a known service"],
    [
      "replicas without leader election",
      { kind: "Deployment", replicas: 2, leaderElection: { enabled: false } },
      "replicas > 1 needs leaderElection.enabled",
    ],
    ["a DaemonSet without leader election", { leaderElection: { enabled: false } }, "kind=DaemonSet runs one CCM per selected node"],
    ["one port for metrics and probes", { metrics: { port: 9000 }, healthProbe: { port: 9000 } }, "metrics.port and healthProbe.port must differ"],
    // values.schema.json
    ["a misspelt value", { cloudConfig: { subnetID: "x" } }, "at '/cloudConfig': additional properties 'subnetID' not allowed"],
    ["a number where cloud.conf needs text", { cloudConfig: { projectId: 123 } }, "at '/cloudConfig/projectId': got number, want string"],
  ];

  it.each(cases)("%s", async (_name, values, message) => {
    expect(await helmFailure(["template", RELEASE, CHART, "-f", valuesFile(values)])).toContain(message);
  });

  it("even when only the Secret is shown", async () => {
    expect(
      await helmFailure(["template", RELEASE, CHART, "-f", valuesFile({ cloudConfig: { create: true } }), "--show-only", "templates/secret.yaml"]),
    ).toContain("cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey");
  });
});

describe("CCM chart: helm lint", () => {
  it("passes --strict with the defaults, the seed's values and kind=Deployment", async () => {
    for (const values of [{}, SEED_VALUES, { ...SEED_VALUES, kind: "Deployment", replicas: 2 }]) {
      expect(await helm(["lint", "--strict", CHART, "-f", valuesFile(values)])).toContain("1 chart(s) linted, 0 chart(s) failed");
    }
  });

  it("fails on a misspelt value", async () => {
    const output = await helmFailure(["lint", "--strict", CHART, "-f", valuesFile({ cloudconfig: { create: true } })]);
    expect(output).toContain("additional properties 'cloudconfig' not allowed");
    expect(output).toContain("1 chart(s) failed");
  });

  it("reports a contradiction with the message", async () => {
    // Lint mode turns `fail` into a log line on stderr rather than an error (helm's engine does so on purpose).
    const { stderr } = await helmOutput(["lint", "--strict", CHART, "-f", valuesFile({ cloudConfig: { create: true } })]);
    expect(stderr).toContain("Fail: cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey");
  });
});

async function renderCrs(namespace: string): Promise<KubeObject[]> {
  const { stdout } = await run("bash", [RENDER_CRS, "-n", namespace, "--", "-f", valuesFile(SEED_VALUES)], {
    env: { ...helmEnv, HELM_BIN: chart.bin },
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseManifests(stdout);
}

/** The manifests inside the ConfigMap and the resource-set Secret. */
function deliveredObjects(rendered: readonly KubeObject[]): { workloadText: string; workload: KubeObject[]; cloudConfig: KubeObject[] } {
  const workloadText = only<KubeObject & { data: Record<string, string> }>(rendered, "ConfigMap").data["otc-ccm.yaml"] ?? "";
  const wrapper = only<SecretObject>(rendered, "Secret");
  const cloudConfig = parseManifests(Buffer.from(wrapper.data["otc-cloud-config.yaml"] ?? "", "base64").toString("utf8"));
  return { workloadText, workload: parseManifests(workloadText), cloudConfig };
}

describe("ClusterResourceSet delivery: rendering (scripts/render-ccm-crs.sh)", () => {
  it("renders a credential-free ConfigMap, the typed Secret and the set, in the namespace asked for", async () => {
    const rendered = await renderCrs("capi-system-test");
    expect(rendered.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual([
      "ConfigMap/capi-system-test/otc-ccm",
      "Secret/capi-system-test/otc-ccm-cloud-config",
      "ClusterResourceSet/capi-system-test/otc-ccm",
    ]);
    const { workloadText, workload, cloudConfig } = deliveredObjects(rendered);
    expect(workloadText).not.toContain(SEED_VALUES.cloudConfig.accessKey);
    expect(workloadText).not.toContain(SEED_VALUES.cloudConfig.secretKey);
    expect(workload.map((obj) => obj.kind)).toEqual(["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "DaemonSet"]);
    expect(workload.every((obj) => obj.kind?.startsWith("Cluster") === true || obj.metadata?.namespace === "kube-system")).toBe(true);
    expect(container(workload).args).toEqual(DEFAULT_ARGS);
    expect(podSpec(workload).volumes.find((volume) => volume.name === "cloud-config")?.secret?.secretName).toBe("otc-cloud-config");

    expect(only<SecretObject>(rendered, "Secret").type).toBe("addons.cluster.x-k8s.io/resource-set");
    expect(cloudConfig.map((obj) => `${obj.kind ?? ""}/${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`)).toEqual([
      "Secret/kube-system/otc-cloud-config",
    ]);
    expect(cloudConf(cloudConfig)).toBe(SEED_CLOUD_CONF);

    expect(only(rendered, "ClusterResourceSet")).toEqual({
      apiVersion: "addons.cluster.x-k8s.io/v1beta1",
      kind: "ClusterResourceSet",
      metadata: { name: "otc-ccm", namespace: "capi-system-test" },
      spec: {
        strategy: "Reconcile",
        clusterSelector: { matchLabels: { ccm: "otc" } },
        resources: [
          { kind: "ConfigMap", name: "otc-ccm" },
          { kind: "Secret", name: "otc-ccm-cloud-config" },
        ],
      },
    });
  });

  it("fails as the chart does, without output", async () => {
    const failed = run("bash", [RENDER_CRS, "--", "-f", valuesFile({ cloudConfig: { accessKey: "AK" } })], {
      env: { ...helmEnv, HELM_BIN: chart.bin },
    });
    await expect(failed).rejects.toMatchObject({
      stdout: "",
      stderr: expect.stringContaining("cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey") as unknown,
    });
  });
});

describeInfra(`CCM chart against the infrastructure cluster (${state.infra.mode})`, () => {
  const client = infra as RestClient;
  const namespace = `ccm-chart-${randomBytes(3).toString("hex")}`;
  let createdCrd = false;

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    await client.delete(`/api/v1/namespaces/${namespace}`).catch(() => undefined);
    if (createdCrd) await client.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterresourcesets.addons.cluster.x-k8s.io");
  });

  const valueSets: [string, object][] = [
    ["DaemonSet with the seed's cloud.conf", SEED_VALUES],
    ["Deployment with every flag", { ...SEED_VALUES, kind: "Deployment", replicas: 2, nodeMonitorPeriod: "10s", concurrentServiceSyncs: 3 }],
    ["an existing Secret", { cloudConfig: { create: false, existingSecret: "mine" }, imagePullSecrets: ["swr"], podAnnotations: { a: "b" } }],
  ];

  it.each(valueSets)("accepts every object rendered for %s", async (_name, values) => {
    const objects = await template(values, { namespace });
    expect(objects.length).toBeGreaterThanOrEqual(6);
    for (const obj of objects) {
      const accepted = await dryRunCreate(client, obj);
      expect(`${accepted.kind ?? ""}/${accepted.metadata?.name ?? ""}`).toBe(`${obj.kind ?? ""}/${obj.metadata?.name ?? ""}`);
    }
  });

  it.each(["DaemonSet", "Deployment"])("admits a pod of the %s's template", async (kind) => {
    const objects = await template({ ...SEED_VALUES, kind }, { namespace });
    // Pod admission looks the service account up; the dry-run above stored nothing.
    const serviceAccount = only(objects, "ServiceAccount");
    await client.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, serviceAccount).catch((err: unknown) => {
      if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
    });
    const { spec, metadata } = only<Workload>(objects, kind).spec.template;
    const pod = await dryRunCreate(client, { apiVersion: "v1", kind: "Pod", metadata: { ...metadata, name: `ccm-${kind.toLowerCase()}`, namespace }, spec });
    const admitted = pod.spec as PodSpec & { priority?: number; containers: Container[] };
    // The Priority admission plugin resolved the class, and defaulting gave hostNetwork pods their host ports.
    expect(admitted.priority).toBe(2_000_000_000);
    expect(admitted.containers[0]?.ports.map((port) => port.hostPort)).toEqual([10258, 10268]);
  });

  it("rejects a broken rendering, so the dry-runs above prove something", async () => {
    const daemonSet = only<Workload>(await template(SEED_VALUES, { namespace }), "DaemonSet");
    daemonSet.spec.template.spec.tolerations.push({ key: "x", operator: "Exists", effect: "Sometimes" });
    const err = await rejection(dryRunCreate(client, daemonSet));
    expect(err.status).toBe(422);
    expect(err.message).toContain("Sometimes");
  });

  it("helm install --dry-run=server renders the notes against the cluster", async () => {
    const kubeconfig = "kubeconfig" in state.infra ? state.infra.kubeconfig : "";
    const values = valuesFile({ cloudConfig: { ...SEED_VALUES.cloudConfig, subnetId: "" } });
    // A release of its own: helm refuses to adopt the ServiceAccount that the pod test created.
    const output = await helm(["install", "notes", CHART, "--dry-run=server", "--namespace", namespace, "--kubeconfig", kubeconfig, "-f", values]);
    expect(output).toContain(`The OTC cloud controller manager runs as DaemonSet ${namespace}/notes-otc-cloud-controller-manager`);
    expect(output).toContain("LoadBalancer support is OFF");
  });

  describe("ClusterResourceSet delivery (scripts/render-ccm-crs.sh)", () => {
    let rendered: KubeObject[];

    beforeAll(async () => {
      rendered = await renderCrs(namespace);
    });

    it("what CAPI applies in the workload cluster is valid there", async () => {
      const { workload, cloudConfig } = deliveredObjects(rendered);
      for (const obj of [...workload, ...cloudConfig]) await dryRunCreate(client, obj);
    });

    it("the management cluster accepts the ConfigMap and the typed Secret", async () => {
      for (const obj of rendered.filter((o) => o.kind !== "ClusterResourceSet")) {
        const accepted = await dryRunCreate(client, obj);
        expect(accepted.metadata?.namespace).toBe(namespace);
      }
    });

    it("the ClusterResourceSet is valid under Cluster API's CRD", async () => {
      const { stdout } = await run("go", ["mod", "download", "-json", `${CAPI_MODULE}@${CAPI_VERSION}`], {
        cwd: scratch,
        maxBuffer: 4 * 1024 * 1024,
        timeout: 300_000,
      });
      const module = JSON.parse(stdout) as { Dir: string; Sum: string };
      expect(module.Sum).toBe(CAPI_SUM);
      const crd = only(parseManifests(readFileSync(join(module.Dir, CRS_CRD), "utf8")), "CustomResourceDefinition");
      const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
      try {
        await client.create(crdPath, crd);
        createdCrd = true;
      } catch (err) {
        if (!(err instanceof HttpStatusError && err.status === 409)) throw err;
      }
      await waitForObject<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        client,
        `${crdPath}/clusterresourcesets.addons.cluster.x-k8s.io`,
        "ClusterResourceSet CRD established",
        (current) => current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false,
        30_000,
      );
      // Discovery of a fresh CRD lags its Established condition; a 422 is an answer, not a lag.
      const crs = only(rendered, "ClusterResourceSet");
      const accepted = await eventually(
        async () => {
          try {
            return [true, await dryRunCreate(client, crs)] as const;
          } catch (err) {
            if (err instanceof HttpStatusError && err.status === 422) throw new FatalError(err.message);
            throw err;
          }
        },
        { timeoutMs: 30_000, description: "ClusterResourceSet served" },
      );
      expect(accepted).toMatchObject({ spec: { strategy: "Reconcile", clusterSelector: { matchLabels: { ccm: "otc" } } } });

      const broken = { ...crs, spec: { ...(crs.spec as object), strategy: "Sometimes" } };
      const err = await rejection(dryRunCreate(client, broken));
      expect(err.status).toBe(422);
      expect(err.message).toContain("Sometimes");
    });
  });
});
