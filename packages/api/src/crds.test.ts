/**
 * The CRDs (the source of truth) against what was generated from them: the
 * resource constants, the kcp objects in apiexports/, and the types, whose
 * fit with the CRDs' own examples tsc checks here.
 */
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import {
  API_EXPORT_NAME,
  PERMISSION_CLAIMS,
  SECRET_LABEL,
  PLATFORM_GROUP,
  PLATFORM_RESOURCES,
  PLATFORM_VERSION,
  TENANT_WORKSPACE_TYPE,
  type KubernetesCluster,
  type MachineCapabilities,
  type ProviderConfig,
  type ProviderMachineFlavor,
} from "./index.js";

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

interface CrdSpec {
  group: string;
  names: { kind: string; listKind: string; plural: string; singular: string };
  scope: string;
  versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: unknown }; subresources?: unknown }[];
}

const CRD_DIR = fileURLToPath(new URL("../crds/", import.meta.url));
const EXPORT_DIR = fileURLToPath(new URL("../../../apiexports/platform.edgeconnect.eu/", import.meta.url));

function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readFileSync(path, "utf8"))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

const crds = readdirSync(CRD_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .map((file) => {
    const manifests = readManifests(`${CRD_DIR}${file}`);
    if (manifests.length !== 1) throw new Error(`${file}: ${manifests.length} documents`);
    return { file, crd: manifests[0] as Manifest & { spec: CrdSpec } };
  });
const exportFiles = new Map(readdirSync(EXPORT_DIR).map((file) => [file, readManifests(`${EXPORT_DIR}${file}`)]));
const only = (file: string): Manifest => {
  const [manifest, ...rest] = exportFiles.get(file) ?? [];
  if (manifest === undefined || rest.length > 0) throw new Error(`${file}: expected one document`);
  return manifest;
};

describe("CRDs", () => {
  it("are one per kind of resources.ts and say the same", () => {
    expect(crds.map(({ crd }) => crd.spec.names.kind).sort()).toEqual(PLATFORM_RESOURCES.map((r) => r.kind).sort());
    for (const resource of PLATFORM_RESOURCES) {
      const found = crds.find(({ crd }) => crd.spec.names.kind === resource.kind);
      const spec = found?.crd.spec;
      expect(found?.file).toBe(`${resource.group}_${resource.plural}.yaml`);
      expect(found?.crd).toMatchObject({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" });
      expect(found?.crd.metadata.name).toBe(`${resource.plural}.${resource.group}`);
      expect(spec?.group).toBe(PLATFORM_GROUP);
      expect(spec?.scope).toBe(resource.scope);
      expect(spec?.names).toMatchObject({ kind: resource.kind, listKind: resource.listKind, plural: resource.plural, singular: resource.singular });
      expect(spec?.versions.map((v) => [v.name, v.served, v.storage])).toEqual([[PLATFORM_VERSION, true, true]]);
      expect(spec?.versions[0]?.subresources).toEqual({ status: {} });
    }
  });
});

describe("apiexports/platform.edgeconnect.eu", () => {
  const exported = PLATFORM_RESOURCES.filter((r) => r.exported);

  it("holds an APIResourceSchema per exported kind, equal to its CRD, named <prefix>.<plural>.<group>", () => {
    for (const resource of exported) {
      const schema = only(`apiresourceschema-${resource.plural}.${resource.group}.yaml`);
      const crd = crds.find(({ crd: c }) => c.spec.names.kind === resource.kind)?.crd.spec;
      expect(schema.apiVersion).toBe("apis.kcp.io/v1alpha1");
      expect(schema.metadata.name).toMatch(new RegExp(`^v\\d{6}-[0-9a-f]{8}\\.${resource.plural}\\.${resource.group.replaceAll(".", "\\.")}$`));
      expect(schema.spec).toEqual({
        ...crd,
        versions: crd?.versions.map(({ schema: s, ...rest }) => ({ ...rest, schema: s.openAPIV3Schema })),
      });
    }
  });

  it("exports exactly those schemas, claiming secrets and events as resources.ts says", () => {
    const apiExport = only(`apiexport-${API_EXPORT_NAME}.yaml`);
    expect(apiExport).toMatchObject({ apiVersion: "apis.kcp.io/v1alpha2", kind: "APIExport", metadata: { name: API_EXPORT_NAME } });
    expect(apiExport.spec.resources).toEqual(
      exported.map((r) => ({
        group: r.group,
        name: r.plural,
        schema: only(`apiresourceschema-${r.plural}.${r.group}.yaml`).metadata.name,
        storage: { crd: {} },
      })),
    );
    expect(apiExport.spec.permissionClaims).toEqual(PERMISSION_CLAIMS);
    expect(PERMISSION_CLAIMS).toEqual([
      { group: "", resource: "secrets", verbs: ["get", "list", "watch", "create", "patch", "delete"], defaultSelector: { matchLabels: { [SECRET_LABEL.key]: SECRET_LABEL.value } } },
      { group: "", resource: "events", verbs: ["create", "patch"] },
    ]);
  });

  it("has the WorkspaceType that binds the export from its own workspace", () => {
    expect(only(`workspacetype-${TENANT_WORKSPACE_TYPE}.yaml`)).toMatchObject({
      apiVersion: "tenancy.kcp.io/v1alpha1",
      kind: "WorkspaceType",
      metadata: { name: TENANT_WORKSPACE_TYPE },
      spec: { defaultAPIBindings: [{ export: API_EXPORT_NAME }], extend: { with: [{ name: "universal", path: "root" }] } },
    });
  });

  it("carries the catalogue CRD of every kind that is not exported, unchanged", () => {
    for (const resource of PLATFORM_RESOURCES.filter((r) => !r.exported)) {
      expect(only(`${resource.plural}.crd.yaml`)).toEqual(crds.find(({ crd }) => crd.spec.names.kind === resource.kind)?.crd);
    }
  });

  it("holds nothing else", () => {
    const expected = [
      ...PLATFORM_RESOURCES.map((r) => (r.exported ? `apiresourceschema-${r.plural}.${r.group}.yaml` : `${r.plural}.crd.yaml`)),
      `apiexport-${API_EXPORT_NAME}.yaml`,
      `workspacetype-${TENANT_WORKSPACE_TYPE}.yaml`,
    ];
    expect([...exportFiles.keys()].sort()).toEqual(expected.sort());
  });
});

describe("generated types", () => {
  it("fit the examples the API is documented with, and plain Kubernetes object types", () => {
    const capabilities: MachineCapabilities = {
      apiVersion: "platform.edgeconnect.eu/v1alpha1",
      kind: "MachineCapabilities",
      metadata: { name: "my-capabilities", namespace: "default" },
      spec: { vCPUCount: 4, memorySize: "8Gi", gpuModelName: "RTX3080" },
    };
    const config: ProviderConfig = {
      metadata: { name: "my-provider", namespace: "default" },
      spec: { credentials: { source: "Secret", secretRef: { namespace: "default", name: "provider-credentials", key: "credentials" } } },
      status: { authMode: "AccessKey", conditions: [{ type: "CredentialsValid", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", reason: "Authenticated", message: "" }] },
    };
    const spec: NonNullable<KubernetesCluster["spec"]> = {
      machineCapabilitiesRef: { name: "my-capabilities" },
      nodeCount: 3,
      nodeDiskSize: "100Gi",
      providerRef: { type: "OTC", configRef: { name: "my-provider" } },
      kubernetes: { version: "1.28.0" },
    };
    const cluster: KubernetesCluster = {
      metadata: { name: "my-cluster", namespace: "default" },
      spec,
      status: { phase: "Pending", flavor: { name: "s3.xlarge.4", zone: "random", source: "Matched", reason: "smallest match", rejected: [{ flavor: "s3.large.2", reason: "2 vCPUs" }] } },
    };
    const capi: KubernetesCluster = {
      metadata: { name: "capi-cluster", namespace: "default" },
      spec: { ...spec, providerRef: { type: "ClusterAPI", templateSet: "in-memory" }, kubernetes: { version: "v1.37" } },
    };
    const flavor: ProviderMachineFlavor = {
      metadata: { name: "otc-c3-large" },
      spec: { available: true, providerRef: { type: "OTC" }, flavor: "c3.large.x86", capabilities: { vCPUCount: 24, memorySize: "512Gi", gpuModelName: null }, availableZones: ["eu-de-01"] },
    };
    // What clients take (an index signature all the way down): our types are type aliases, so they fit.
    type Loose = { [key: string]: unknown; metadata?: { [key: string]: unknown } };
    const loose: Loose[] = [capabilities, config, cluster, capi, flavor];
    expect(loose).toHaveLength(5);
  });
});
