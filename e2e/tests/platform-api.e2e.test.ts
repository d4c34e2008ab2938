/**
 * The platform.edgeconnect.eu API against real kcp: apiexports/platform.edgeconnect.eu/
 * applied as a platform team would (every file, in the order `kubectl apply -f`
 * takes them) in a provider workspace; a tenant workspace of the
 * edgeconnect-tenant type gets the export bound with its claims accepted; the
 * server accepts valid objects and rejects invalid ones with a message that
 * names the field.
 *
 * The test reads the generated files rather than importing @edgeconnect/api:
 * what is proven is what gets applied.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import {
  applyManifests,
  connectFromEnv,
  createWorkspace,
  deleteWorkspace,
  eventually,
  FatalError,
  holds,
  parseManifests,
  REPO_ROOT,
  waitForObject,
  type Workspace,
} from "@edgeconnect/testenv";

const EXPORT_DIR = join(REPO_ROOT, "apiexports", "platform.edgeconnect.eu");
const EXPORT_NAME = "platform.edgeconnect.eu";
const API_VERSION = "platform.edgeconnect.eu/v1alpha1";
const API = `/apis/${API_VERSION}`;
const CLUSTERS = `${API}/namespaces/default/kubernetesclusters`;
const CONFIGS = `${API}/namespaces/default/providerconfigs`;
const CAPABILITIES = `${API}/namespaces/default/machinecapabilities`;
const FLAVORS = `${API}/providermachineflavors`;
const FLAVOR_CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/providermachineflavors.platform.edgeconnect.eu";

const VPC = "0b7a3c5e-8f61-4d2a-9e3b-1c4d5e6f7a8b";
const SUBNET = "5d6e7f80-91a2-4b3c-8d4e-5f60718293a4";

type Spec = Record<string, unknown>;
interface Cluster extends KubeObject {
  spec: Spec & { nodeAvailableZone?: string; providerRef?: Spec };
  status?: Record<string, unknown>;
}

interface Condition {
  type: string;
  status: string;
}

interface Claim {
  group?: string;
  resource: string;
  verbs: string[];
  state?: string;
  selector?: unknown;
}

interface Binding extends KubeObject {
  spec: { reference: { export?: { path?: string; name: string } }; permissionClaims?: Claim[] };
  status?: {
    phase?: string;
    conditions?: Condition[];
    boundResources?: { group: string; resource: string }[];
    appliedPermissionClaims?: Claim[];
  };
}

/** The seed's example cluster. */
const clusterSpec = (): Spec => ({
  machineCapabilitiesRef: { name: "my-capabilities" },
  nodeCount: 3,
  nodeDiskSize: "100Gi",
  providerRef: { type: "OTC", configRef: { name: "my-provider" } },
  kubernetes: { version: "1.28.0" },
});

const cluster = (name: string, spec: Spec): KubeObject => ({ apiVersion: API_VERSION, kind: "KubernetesCluster", metadata: { name }, spec });

/** The server's message for a write it refused as invalid (422). */
async function rejection(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 422) return err.statusObject?.message ?? err.message;
    throw err;
  }
  throw new Error("the server accepted the object");
}

describe("platform.edgeconnect.eu API on kcp", () => {
  const { kcp } = connectFromEnv();
  const suffix = randomBytes(3).toString("hex");
  let provider: Workspace | undefined;
  let tenant: Workspace | undefined;
  const tenantWs = (): Workspace => {
    if (tenant === undefined) throw new Error("no tenant workspace");
    return tenant;
  };
  const providerWs = (): Workspace => {
    if (provider === undefined) throw new Error("no provider workspace");
    return provider;
  };

  beforeAll(async () => {
    provider = await createWorkspace(kcp, `platform-api-provider-${suffix}`);
    const files = readdirSync(EXPORT_DIR).filter((f) => f.endsWith(".yaml")).sort();
    const manifests = files.flatMap((f) => parseManifests(readFileSync(join(EXPORT_DIR, f), "utf8")));
    await applyManifests(provider.client, manifests);
    const type = { name: "edgeconnect-tenant", path: provider.path };
    // Workspace admission looks the type up in a cache that can lag its
    // creation by a moment ("workspacetypes ... not found"); anything else fails at once.
    tenant = await eventually<Workspace>(
      async () => {
        try {
          return [true, await createWorkspace(kcp, `platform-api-tenant-${suffix}`, { type, timeoutMs: 120_000 })];
        } catch (err) {
          if (err instanceof HttpStatusError && err.status === 403 && /workspacetypes.* not found/.test(err.message)) return [false, err.message];
          throw new FatalError(err instanceof Error ? err.message : String(err), { cause: err });
        }
      },
      { timeoutMs: 150_000, description: "tenant workspace of the edgeconnect-tenant type created" },
    );
  });

  afterAll(async () => {
    for (const ws of [tenant, provider]) if (ws !== undefined) await deleteWorkspace(kcp, ws);
  });

  it("binds the export in a tenant workspace of the edgeconnect-tenant type, with both claims accepted", async () => {
    const ws = tenantWs();
    const binding = await eventually<Binding>(
      async () => {
        const list = await ws.client.list<Binding>("/apis/apis.kcp.io/v1alpha2/apibindings");
        const found = list.items.find((b) => b.spec.reference.export?.name === EXPORT_NAME);
        const ready = found?.status?.conditions?.find((c) => c.type === "Ready")?.status;
        return found?.status?.phase === "Bound" && ready === "True"
          ? [true, found]
          : [false, found === undefined ? "no binding to the export" : `phase ${found.status?.phase ?? "unset"}, Ready ${ready ?? "unset"}`];
      },
      { description: "default APIBinding Bound" },
    );
    // The WorkspaceType names no path: kcp resolves the export in the type's own workspace.
    expect([providerWs().cluster, providerWs().path]).toContain(binding.spec.reference.export?.path);
    expect((binding.status?.boundResources ?? []).map((r) => `${r.resource}.${r.group}`).sort()).toEqual([
      "kubernetesclusters.platform.edgeconnect.eu",
      "machinecapabilities.platform.edgeconnect.eu",
      "providerconfigs.platform.edgeconnect.eu",
    ]);
    const claims = [
      { resource: "events", verbs: ["create", "patch"] },
      { resource: "secrets", verbs: ["get", "list", "watch", "create", "patch", "delete"] },
    ];
    const accepted = (binding.spec.permissionClaims ?? []).map(({ resource, verbs, state, group }) => ({ group: group ?? "", resource, verbs, state }));
    expect(accepted.sort((a, b) => a.resource.localeCompare(b.resource))).toEqual(claims.map((c) => ({ group: "", ...c, state: "Accepted" })));
    const applied = (binding.status?.appliedPermissionClaims ?? []).map(({ resource, verbs }) => ({ resource, verbs }));
    expect(applied.sort((a, b) => a.resource.localeCompare(b.resource))).toEqual(claims);
    expect(binding.status?.conditions?.find((c) => c.type === "PermissionClaimsApplied")?.status).toBe("True");

    await eventually(
      async () => {
        const discovery = await ws.client.get<{ resources: { name: string }[] }>(API);
        const names = discovery.resources.map((r) => r.name);
        return holds(names.includes("kubernetesclusters") && names.includes("machinecapabilities") && names.includes("providerconfigs"), names.join(","));
      },
      { description: "tenant serves the platform kinds" },
    );
  });

  it("accepts valid objects and fills in the defaults", async () => {
    const ws = tenantWs();
    const config = await ws.client.create<KubeObject & { spec: { credentials: { secretRef: Spec } } }>(CONFIGS, {
      apiVersion: API_VERSION,
      kind: "ProviderConfig",
      metadata: { name: "my-provider" },
      spec: { credentials: { source: "Secret", secretRef: { name: "provider-credentials" } } },
    });
    expect(config.spec.credentials.secretRef).toEqual({ name: "provider-credentials", key: "credentials" });
    await ws.client.create(CAPABILITIES, {
      apiVersion: API_VERSION,
      kind: "MachineCapabilities",
      metadata: { name: "my-capabilities" },
      spec: { vCPUCount: 4, memorySize: "8Gi", gpuModelName: "RTX3080" },
    });
    await ws.client.create(CAPABILITIES, {
      apiVersion: API_VERSION,
      kind: "MachineCapabilities",
      metadata: { name: "in-bytes-no-gpu" },
      spec: { vCPUCount: 2, memorySize: 8589934592, gpuModelName: null },
    });

    const created = await ws.client.create<Cluster>(CLUSTERS, cluster("my-cluster", clusterSpec()));
    expect(created.spec.nodeAvailableZone).toBe("random");
    const edges: [string, Spec][] = [
      ["smallest-disk", { nodeDiskSize: "10Gi", nodeCount: 1 }],
      ["largest-disk", { nodeDiskSize: "32768Gi", nodeCount: 50 }],
      ["disk-in-bytes", { nodeDiskSize: 10 * 1024 ** 3 }],
      ["own-network", { vpcID: VPC, subnetID: SUBNET, availableZone: "eu-de-01", nodeAvailableZone: "eu-de-02", nodeFlavor: "s3.xlarge.4" }],
      ["release-version", { kubernetes: { version: "v1.31.6-r0" } }],
      ["cluster-api", { providerRef: { type: "ClusterAPI", templateSet: "in-memory" }, kubernetes: { version: "v1.37" } }],
      // configRef means nothing for ClusterAPI and is ignored there, as the other OTC-only fields are.
      ["cluster-api-with-config", { providerRef: { type: "ClusterAPI", templateSet: "in-memory", configRef: { name: "my-provider" } } }],
    ];
    for (const [name, overrides] of edges) await ws.client.create(CLUSTERS, cluster(name, { ...clusterSpec(), ...overrides }));
  });

  it("rejects invalid KubernetesClusters, naming the field", async () => {
    const ws = tenantWs();
    const withoutCapabilities = clusterSpec();
    delete withoutCapabilities.machineCapabilitiesRef;
    const cases: [string, Spec, RegExp][] = [
      ["missing required field", withoutCapabilities, /spec\.machineCapabilitiesRef: Required value/],
      ["unknown provider", { providerRef: { type: "AWS", configRef: { name: "my-provider" } } }, /spec\.providerRef\.type: Unsupported value: "AWS"/],
      ["OTC without configRef", { providerRef: { type: "OTC" } }, /spec\.providerRef\.configRef: Invalid value: .*providerRef\.configRef is required for type OTC/],
      ["ClusterAPI without templateSet", { providerRef: { type: "ClusterAPI" } }, /spec\.providerRef\.templateSet: Invalid value: .*providerRef\.templateSet is required for type ClusterAPI and not allowed for OTC/],
      ["OTC with a templateSet", { providerRef: { type: "OTC", configRef: { name: "my-provider" }, templateSet: "in-memory" } }, /spec\.providerRef\.templateSet: Invalid value: .*templateSet is required for type ClusterAPI and not allowed for OTC/],
      ["templateSet not a DNS label", { providerRef: { type: "ClusterAPI", templateSet: "In.Memory" } }, /spec\.providerRef\.templateSet: Invalid value: "In\.Memory": .*should match/],
      ["bad version", { kubernetes: { version: "latest" } }, /spec\.kubernetes\.version: Invalid value: "latest": .*should match/],
      ["no nodes", { nodeCount: 0 }, /spec\.nodeCount: Invalid value: 0: .*greater than or equal to 1/],
      ["too many nodes", { nodeCount: 51 }, /spec\.nodeCount: Invalid value: 51: .*less than or equal to 50/],
      ["not a quantity", { nodeDiskSize: "100GB" }, /spec\.nodeDiskSize: Invalid value: "100GB": .*should match/],
      ["disk below 10Gi", { nodeDiskSize: "5Gi" }, /spec\.nodeDiskSize: Invalid value: .*nodeDiskSize must be between 10Gi and 32768Gi/],
      ["disk below 10Gi in bytes", { nodeDiskSize: 1024 }, /spec\.nodeDiskSize: Invalid value: .*nodeDiskSize must be between 10Gi and 32768Gi/],
      ["disk above 32768Gi", { nodeDiskSize: "40Ti" }, /spec\.nodeDiskSize: Invalid value: .*nodeDiskSize must be between 10Gi and 32768Gi/],
      ["vpcID without subnetID", { vpcID: VPC }, /spec: Invalid value: .*vpcID and subnetID must be set together/],
      ["subnetID without vpcID", { subnetID: SUBNET }, /spec: Invalid value: .*vpcID and subnetID must be set together/],
      ["vpcID not an ID", { vpcID: "my-vpc", subnetID: SUBNET }, /spec\.vpcID: Invalid value: "my-vpc": .*should match/],
      ["nodeAvailableZone not a zone", { nodeAvailableZone: "EU DE 01" }, /spec\.nodeAvailableZone: Invalid value: "EU DE 01": .*should match/],
    ];
    for (const [index, [what, overrides, expected]] of cases.entries()) {
      const spec = what === "missing required field" ? overrides : { ...clusterSpec(), ...overrides };
      const message = await rejection(ws.client.create(CLUSTERS, cluster(`invalid-${index}`, spec)));
      expect({ what, message }).toEqual({ what, message: expect.stringMatching(expected) });
    }
  });

  it("rejects updates of what cannot change, and accepts scaling", async () => {
    const ws = tenantWs();
    const replaceSpec = async (name: string, change: (spec: Spec) => Spec): Promise<Cluster> => {
      const current = await ws.client.get<Cluster>(`${CLUSTERS}/${name}`);
      return ws.client.replace<Cluster>(`${CLUSTERS}/${name}`, { ...current, spec: change(current.spec) });
    };
    const withoutNetwork = ({ vpcID: _v, subnetID: _s, ...rest }: Spec): Spec => rest;

    expect(await rejection(replaceSpec("own-network", (s) => ({ ...s, vpcID: "1b7a3c5e-8f61-4d2a-9e3b-1c4d5e6f7a8b" })))).toMatch(
      /spec\.vpcID: Invalid value: .*vpcID is immutable/,
    );
    const removed = await rejection(replaceSpec("own-network", withoutNetwork));
    expect(removed).toMatch(/spec\.vpcID: Invalid value: .*vpcID is immutable/);
    expect(removed).toMatch(/spec\.subnetID: Invalid value: .*subnetID is immutable/);
    expect(await rejection(replaceSpec("my-cluster", (s) => ({ ...s, vpcID: VPC, subnetID: SUBNET })))).toMatch(
      /spec\.vpcID: Invalid value: .*vpcID is immutable/,
    );
    expect(await rejection(replaceSpec("my-cluster", (s) => ({ ...s, providerRef: { ...(s.providerRef as Spec), type: "AWS" } })))).toMatch(
      /spec\.providerRef\.type: Unsupported value: "AWS"/,
    );
    expect(await rejection(replaceSpec("my-cluster", (s) => ({ ...s, providerRef: { type: "ClusterAPI", templateSet: "in-memory" } })))).toMatch(
      /spec\.providerRef\.type: Invalid value: .*providerRef\.type is immutable/,
    );
    expect(await rejection(replaceSpec("cluster-api", (s) => ({ ...s, providerRef: { type: "OTC", configRef: { name: "my-provider" } } })))).toMatch(
      /spec\.providerRef\.type: Invalid value: .*providerRef\.type is immutable/,
    );
    expect(await rejection(replaceSpec("cluster-api", (s) => ({ ...s, providerRef: { type: "ClusterAPI", templateSet: "aws-eks" } })))).toMatch(
      /spec\.providerRef\.templateSet: Invalid value: .*providerRef\.templateSet is immutable/,
    );
    expect(await rejection(replaceSpec("my-cluster", (s) => ({ ...s, nodeDiskSize: "1Gi" })))).toMatch(/spec\.nodeDiskSize: .*between 10Gi and 32768Gi/);

    const scaled = await replaceSpec("my-cluster", (s) => ({ ...s, nodeCount: 5 }));
    expect(scaled.spec.nodeCount).toBe(5);
    // The server takes a new version; the controller refuses the upgrade in a condition.
    const upgraded = await replaceSpec("own-network", (s) => ({ ...s, kubernetes: { version: "1.29" } }));
    expect(upgraded.spec.kubernetes).toEqual({ version: "1.29" });
  });

  it("takes status through the status subresource only, bounded", async () => {
    const ws = tenantWs();
    const path = `${CLUSTERS}/my-cluster`;
    const current = await ws.client.get<Cluster>(path);
    const condition = { type: "Ready", status: "False", observedGeneration: current.metadata?.generation, lastTransitionTime: "2026-01-01T00:00:00Z", reason: "Provisioning", message: "creating the network" };
    const flavor = (rejected: number): Spec => ({
      name: "s3.xlarge.4",
      zone: "random",
      source: "Matched",
      reason: "smallest flavor with 4 vCPUs and 8Gi",
      rejected: Array.from({ length: rejected }, (_, i) => ({ flavor: `s3.small.${i}`, reason: "too small" })),
      soldOut: [{ flavor: "s3.xlarge.2", zone: "eu-de-01" }],
    });
    const written = await ws.client.replace<Cluster>(`${path}/status`, {
      ...current,
      spec: { ...current.spec, nodeCount: 7 },
      status: { phase: "Provisioning", observedGeneration: current.metadata?.generation, conditions: [condition], flavor: flavor(10) },
    });
    expect(written.status?.phase).toBe("Provisioning");
    expect(written.spec.nodeCount).toBe(current.spec.nodeCount);

    expect(await rejection(ws.client.replace(`${path}/status`, { ...written, status: { ...written.status, flavor: flavor(11) } }))).toMatch(
      /status\.flavor\.rejected: Too many: 11: must have at most 10 items/,
    );
    expect(await rejection(ws.client.replace(`${path}/status`, { ...written, status: { ...written.status, phase: "Running" } }))).toMatch(
      /status\.phase: Unsupported value: "Running"/,
    );
    expect(await rejection(ws.client.replace(`${path}/status`, { ...written, status: { conditions: [{ ...condition, reason: "" }] } }))).toMatch(
      /status\.conditions\[0\]\.reason/,
    );
  });

  it("rejects invalid ProviderConfigs and MachineCapabilities, naming the field", async () => {
    const ws = tenantWs();
    const config = (name: string, credentials: Spec): KubeObject => ({ apiVersion: API_VERSION, kind: "ProviderConfig", metadata: { name }, spec: { credentials } });
    expect(await rejection(ws.client.create(CONFIGS, config("vault", { source: "Vault", secretRef: { name: "s" } })))).toMatch(
      /spec\.credentials\.source: Unsupported value: "Vault"/,
    );
    expect(await rejection(ws.client.create(CONFIGS, config("no-secret-name", { source: "Secret", secretRef: {} })))).toMatch(
      /spec\.credentials\.secretRef\.name: Required value/,
    );
    const capabilities = (name: string, spec: Spec): KubeObject => ({ apiVersion: API_VERSION, kind: "MachineCapabilities", metadata: { name }, spec });
    expect(await rejection(ws.client.create(CAPABILITIES, capabilities("no-memory", { vCPUCount: 2, memorySize: "0" })))).toMatch(
      /spec\.memorySize: Invalid value: .*memorySize must be above zero/,
    );
    expect(await rejection(ws.client.create(CAPABILITIES, capabilities("no-cpu", { vCPUCount: 0, memorySize: "1Gi" })))).toMatch(
      /spec\.vCPUCount: Invalid value: 0: .*greater than or equal to 1/,
    );
  });

  it("serves the flavor catalogue in the provider workspace only", async () => {
    const ws = providerWs();
    await waitForObject<KubeObject & { status?: { conditions?: Condition[] } }>(
      ws.client,
      FLAVOR_CRD,
      "ProviderMachineFlavor CRD Established",
      (crd) => crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true,
      60_000,
    );
    const flavor = (name: string, spec: Spec): KubeObject => ({ apiVersion: API_VERSION, kind: "ProviderMachineFlavor", metadata: { name }, spec });
    const created = await ws.client.create<KubeObject & { spec: Spec }>(
      FLAVORS,
      flavor("otc-c3-large", {
        providerRef: { type: "OTC" },
        flavor: "c3.large.x86",
        capabilities: { vCPUCount: 24, memorySize: "512Gi", gpuModelName: null },
        availableZones: ["eu-de-01", "eu-de-02"],
      }),
    );
    expect(created.spec.available).toBe(true);
    expect(
      await rejection(
        ws.client.create(
          FLAVORS,
          flavor("nowhere", { providerRef: { type: "OTC" }, flavor: "s3.large.2", capabilities: { vCPUCount: 2, memorySize: "4Gi" }, availableZones: [] }),
        ),
      ),
    ).toMatch(/spec\.availableZones: Invalid value: 0: .*at least 1 items/);

    const tenantDiscovery = await tenantWs().client.get<{ resources: { name: string }[] }>(API);
    expect(tenantDiscovery.resources.map((r) => r.name)).not.toContain("providermachineflavors");
  });
});
