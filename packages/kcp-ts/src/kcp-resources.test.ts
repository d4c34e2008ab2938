import { describe, expect, it } from "@jest/globals";
import type { APIExportV1alpha2, WorkspaceV1alpha1 } from "./generated/index.js";
import { KCP_CRD_VERSIONS } from "./generated/index.js";
import {
  APIBINDING,
  APIEXPORT,
  APIEXPORT_ENDPOINT_SLICE,
  KCP_RESOURCES,
  LOGICAL_CLUSTER,
  WORKSPACE,
  defineResource,
  isObjectOf,
  resourcePath,
  type ObjectOf,
} from "./kcp-resources.js";
import type { KubeObject } from "./rest-client.js";

const CONFIGMAP = defineResource<{ apiVersion: "v1"; kind: "ConfigMap" }>({
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
});

const DEPLOYMENT = defineResource<{ apiVersion: "apps/v1"; kind: "Deployment" }>({
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  namespaced: true,
});

describe("resourcePath", () => {
  it("builds cluster-scoped paths", () => {
    expect(resourcePath(APIEXPORT)).toBe("/apis/apis.kcp.io/v1alpha2/apiexports");
    expect(resourcePath(APIEXPORT, { name: "edge" })).toBe("/apis/apis.kcp.io/v1alpha2/apiexports/edge");
    expect(resourcePath(LOGICAL_CLUSTER, { name: "cluster" })).toBe("/apis/core.kcp.io/v1alpha1/logicalclusters/cluster");
  });

  it("appends a subresource after the name", () => {
    expect(resourcePath(APIBINDING, { name: "edge", subresource: "status" })).toBe(
      "/apis/apis.kcp.io/v1alpha2/apibindings/edge/status",
    );
  });

  it("builds namespaced paths, and all-namespaces collection paths", () => {
    expect(resourcePath(DEPLOYMENT, { namespace: "ns", name: "web", subresource: "scale" })).toBe(
      "/apis/apps/v1/namespaces/ns/deployments/web/scale",
    );
    expect(resourcePath(DEPLOYMENT, { namespace: "ns" })).toBe("/apis/apps/v1/namespaces/ns/deployments");
    expect(resourcePath(DEPLOYMENT)).toBe("/apis/apps/v1/deployments");
  });

  it("uses /api/<version> for the core group", () => {
    expect(resourcePath(CONFIGMAP, { namespace: "kube-system", name: "cfg" })).toBe(
      "/api/v1/namespaces/kube-system/configmaps/cfg",
    );
    expect(resourcePath(CONFIGMAP)).toBe("/api/v1/configmaps");
    expect(CONFIGMAP.apiVersion).toBe("v1");
  });

  it("rejects combinations the API server has no path for", () => {
    expect(() => resourcePath(WORKSPACE, { namespace: "ns", name: "w" })).toThrow(/cluster-scoped/);
    expect(() => resourcePath(CONFIGMAP, { name: "cfg" })).toThrow(/needs a namespace/);
    expect(() => resourcePath(APIEXPORT, { subresource: "status" })).toThrow(/needs a name/);
  });

  it("rejects segments that would change the path", () => {
    for (const name of ["", ".", "..", "a/b", "a?b", "a#b", "a%2Fb"]) {
      expect(() => resourcePath(APIEXPORT, { name })).toThrow(TypeError);
    }
    expect(() => resourcePath(CONFIGMAP, { namespace: "", name: "x" })).toThrow(TypeError);
  });
});

describe("registry", () => {
  it("matches the kinds generated from kcp's CRDs", () => {
    for (const resource of KCP_RESOURCES) {
      const crd = KCP_CRD_VERSIONS.find(
        (v) => v.group === resource.group && v.version === resource.version && v.kind === resource.kind,
      );
      expect(crd).toBeDefined();
      expect({ plural: resource.plural, namespaced: resource.namespaced }).toEqual({
        plural: crd?.plural,
        namespaced: crd?.namespaced,
      });
      expect(resource.apiVersion).toBe(`${resource.group}/${resource.version}`);
    }
  });

  it("uses the version kcp stores", () => {
    for (const resource of KCP_RESOURCES) {
      const stored = KCP_CRD_VERSIONS.find((v) => v.group === resource.group && v.kind === resource.kind && v.storage);
      expect(`${resource.kind} ${resource.version}`).toBe(`${resource.kind} ${stored?.version}`);
    }
  });

  it("carries the generated apiVersion and kind literals", () => {
    // Compile-time: the entries' literals are the generated types' literals.
    const apiVersion: APIExportV1alpha2["apiVersion"] = APIEXPORT.apiVersion;
    const kind: WorkspaceV1alpha1["kind"] = WORKSPACE.kind;
    expect([apiVersion, kind]).toEqual(["apis.kcp.io/v1alpha2", "Workspace"]);
    expect(APIEXPORT_ENDPOINT_SLICE.apiVersion).toBe("apis.kcp.io/v1alpha1");
    expect(Object.isFrozen(APIEXPORT)).toBe(true);
  });

  it("refuses, at compile time, entries that disagree with their type", () => {
    const wrongVersion = () =>
      defineResource<APIExportV1alpha2>({
        group: "apis.kcp.io",
        // @ts-expect-error -- APIExportV1alpha2 is apis.kcp.io/v1alpha2
        version: "v1alpha1",
        kind: "APIExport",
        plural: "apiexports",
        namespaced: false,
      });
    const wrongKind = () =>
      defineResource<APIExportV1alpha2>({
        group: "apis.kcp.io",
        version: "v1alpha2",
        // @ts-expect-error -- APIExportV1alpha2 is an APIExport
        kind: "APIBinding",
        plural: "apibindings",
        namespaced: false,
      });
    expect(wrongVersion().apiVersion).toBe("apis.kcp.io/v1alpha1");
    expect(wrongKind().kind).toBe("APIBinding");
  });
});

describe("isObjectOf", () => {
  it("narrows to the resource's object type", () => {
    const sample: ObjectOf<typeof APIEXPORT> = {
      apiVersion: "apis.kcp.io/v1alpha2",
      kind: "APIExport",
      metadata: { name: "edge" },
      spec: { resources: [{ group: "edge.example.io", name: "sites", schema: "v1.sites.edge.example.io" }] },
    };
    // Generated types are plain object types, so they fit KubeObject's index signature.
    const loose: KubeObject = sample;
    expect(isObjectOf(APIEXPORT, loose)).toBe(true);
    if (isObjectOf(APIEXPORT, loose)) expect(loose.spec?.resources?.[0]?.name).toBe("sites");
    expect(isObjectOf(APIBINDING, loose)).toBe(false);
    expect(isObjectOf(APIEXPORT, { ...sample, apiVersion: "apis.kcp.io/v1alpha1" })).toBe(false);
    expect(isObjectOf(APIEXPORT, null)).toBe(false);
    expect(isObjectOf(APIEXPORT, "APIExport")).toBe(false);
  });
});
