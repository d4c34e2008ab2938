import { describe, expect, it } from "@jest/globals";
import { crdManifests, crdObjects } from "./crds.js";
import { EXTERNAL_KINDS } from "./external/index.js";

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  default?: unknown;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-validations"?: { rule: string; message: string }[];
  [key: string]: unknown;
}

function schemaOf(name: string): Schema {
  const crd = crdObjects().find((candidate) => candidate.metadata?.name === name);
  if (crd === undefined) throw new Error(`no CRD ${name}`);
  return (crd.spec?.versions[0] as unknown as { schema: { openAPIV3Schema: Schema } }).schema.openAPIV3Schema;
}

/** Every property name below `schema`, however deep. */
function propertyNames(schema: Schema): string[] {
  return [
    ...Object.entries(schema.properties ?? {}).flatMap(([name, child]) => [name, ...propertyNames(child)]),
    ...(schema.items ? propertyNames(schema.items) : []),
  ];
}

function preservesUnknownFields(schema: Schema): boolean {
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return true;
  return [...Object.values(schema.properties ?? {}), ...(schema.items ? [schema.items] : [])].some(preservesUnknownFields);
}

describe("the provider's CRDs", () => {
  it("are one per file, named <group>_<plural>.yaml, for every kind reconciled and the provider configs", () => {
    const names = crdObjects().map((crd) => crd.metadata?.name);
    expect(names).toEqual([...crdManifests().keys()].map((file) => file.replace(/^(.*)_(.*)\.yaml$/, "$2.$1")));
    expect(names).toEqual(
      expect.arrayContaining([
        ...EXTERNAL_KINDS.map((kind) => `${kind.plural}.${kind.group}`),
        "providerconfigs.opentelekomcloud.m.crossplane.io",
        "clusterproviderconfigs.opentelekomcloud.m.crossplane.io",
        "providerconfigusages.opentelekomcloud.m.crossplane.io",
      ]),
    );
    expect(names).toHaveLength(9);
  });

  it("describe namespaced v1alpha1 MRs with the status subresource, categories and printer columns of upjet", () => {
    for (const kind of EXTERNAL_KINDS) {
      const crd = crdObjects().find((candidate) => candidate.metadata?.name === `${kind.plural}.${kind.group}`);
      expect(crd?.spec).toMatchObject({
        group: kind.group,
        scope: "Namespaced",
        names: { kind: kind.kind, plural: kind.plural, categories: ["crossplane", "managed", "opentelekomcloud"] },
        versions: [{ name: "v1alpha1", served: true, storage: true, subresources: { status: {} } }],
      });
      const columns = (crd?.spec?.versions[0] as unknown as { additionalPrinterColumns: { name: string }[] }).additionalPrinterColumns;
      expect(columns.map((column) => column.name)).toEqual(["SYNCED", "READY", "EXTERNAL-NAME", "AGE"]);
    }
  });

  it("have the common spec with its defaults, and keep no unknown field", () => {
    for (const kind of EXTERNAL_KINDS) {
      const schema = schemaOf(`${kind.plural}.${kind.group}`);
      const spec = schema.properties?.spec;
      expect(spec?.required).toEqual(["forProvider"]);
      expect(spec?.properties?.managementPolicies?.default).toEqual(["*"]);
      expect(spec?.properties?.providerConfigRef).toMatchObject({ default: { kind: "ClusterProviderConfig", name: "default" }, required: ["kind", "name"] });
      expect(spec?.properties?.initProvider).toEqual(spec?.properties?.forProvider);
      expect(Object.keys(schema.properties?.status?.properties ?? {})).toEqual(["atProvider", "conditions", "observedGeneration"]);
      expect(preservesUnknownFields(schema)).toBe(false);
    }
  });

  it("name properties as Go JSON tags do (a flow mapping's stray comma would make a property of prose)", () => {
    for (const crd of crdObjects()) {
      const schema = (crd.spec?.versions[0] as unknown as { schema: { openAPIV3Schema: Schema } }).schema.openAPIV3Schema;
      const odd = propertyNames(schema).filter((name) => !/^[A-Za-z][A-Za-z0-9]*$/.test(name));
      expect({ crd: crd.metadata?.name, odd }).toEqual({ crd: crd.metadata?.name, odd: [] });
    }
  });

  it("require parameters with upjet's CEL rules", () => {
    const rules = schemaOf("clusterv3s.cce.opentelekomcloud.m.crossplane.io").properties?.spec?.["x-kubernetes-validations"];
    expect(rules).toContainEqual({
      message: "spec.forProvider.clusterType is a required parameter",
      rule: "!('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies) || has(self.forProvider.clusterType) || (has(self.initProvider) && has(self.initProvider.clusterType))",
    });
    expect(rules?.map((rule) => rule.message)).toEqual([
      "spec.forProvider.clusterType is a required parameter",
      "spec.forProvider.containerNetworkType is a required parameter",
      "spec.forProvider.flavorId is a required parameter",
      "spec.forProvider.name is a required parameter",
    ]);
  });

  it("carry the fields the provider controller renders and the provider observes", () => {
    const atProvider = (name: string): string[] => Object.keys(schemaOf(name).properties?.status?.properties?.atProvider?.properties ?? {});
    expect(atProvider("subnetv1s.vpc.opentelekomcloud.m.crossplane.io")).toEqual(expect.arrayContaining(["id", "networkId", "subnetId", "status", "vpcId", "gatewayIp"]));
    expect(atProvider("eipv1s.vpc.opentelekomcloud.m.crossplane.io")).toEqual(expect.arrayContaining(["id", "address", "publicip", "status"]));
    expect(atProvider("clusterv3s.cce.opentelekomcloud.m.crossplane.io")).toEqual(
      expect.arrayContaining(["id", "status", "internal", "external", "certificateClusters", "certificateUsers", "eip", "ignoreCertificateUsersData"]),
    );
    expect(atProvider("nodepoolv3s.cce.opentelekomcloud.m.crossplane.io")).toEqual(expect.arrayContaining(["id", "status", "clusterId", "flavor", "availabilityZone", "initialNodeCount"]));
    const pool = schemaOf("nodepoolv3s.cce.opentelekomcloud.m.crossplane.io").properties?.spec?.properties?.forProvider?.properties ?? {};
    expect(pool.rootVolume?.items?.properties?.size?.type).toBe("number");
    expect(pool.keyPair?.type).toBe("string");
  });

  it("scope the provider configs as the provider does", () => {
    const scope = (name: string): string | undefined => crdObjects().find((crd) => crd.metadata?.name === name)?.spec?.scope;
    expect(scope("providerconfigs.opentelekomcloud.m.crossplane.io")).toBe("Namespaced");
    expect(scope("clusterproviderconfigs.opentelekomcloud.m.crossplane.io")).toBe("Cluster");
    expect(scope("providerconfigusages.opentelekomcloud.m.crossplane.io")).toBe("Namespaced");
    const secretRef = schemaOf("providerconfigs.opentelekomcloud.m.crossplane.io").properties?.spec?.properties?.credentials?.properties?.secretRef;
    expect(secretRef?.required).toEqual(["key", "name", "namespace"]);
  });
});
