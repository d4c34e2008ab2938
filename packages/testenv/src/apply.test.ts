import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { applyCrds, applyManifests, parseManifests, type CrdTarget, type ManifestTarget } from "./apply.js";

const DISCOVERY: Record<string, unknown> = {
  "/api/v1": {
    resources: [
      { name: "configmaps", kind: "ConfigMap", namespaced: true },
      { name: "configmaps/status", kind: "ConfigMap", namespaced: true },
    ],
  },
  "/apis/tenancy.kcp.io/v1alpha1": { resources: [{ name: "workspaces", kind: "Workspace", namespaced: false }] },
};

function fakeServer(): ManifestTarget & { applied: { path: string; manager: string }[] } {
  const applied: { path: string; manager: string }[] = [];
  return {
    server: "https://kcp.test/clusters/root",
    applied,
    get: <T>(path: string) => Promise.resolve(DISCOVERY[path] as T),
    apply: <T>(path: string, body: unknown, manager: string) => {
      applied.push({ path, manager });
      return Promise.resolve(body as T);
    },
  };
}

describe("parseManifests", () => {
  it("returns the objects of a multi-document text, skipping empty documents", () => {
    const objects = parseManifests("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n# only a comment\n");
    expect(objects).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } }]);
  });
});

describe("applyManifests", () => {
  it("applies each object at the path discovery gives, namespaced or not", async () => {
    const server = fakeServer();
    await applyManifests(
      server,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: team}\n---\napiVersion: tenancy.kcp.io/v1alpha1\nkind: Workspace\nmetadata: {name: tenant}\n",
      "test-manager",
    );
    expect(server.applied).toEqual([
      { path: "/api/v1/namespaces/team/configmaps/settings", manager: "test-manager" },
      { path: "/apis/tenancy.kcp.io/v1alpha1/workspaces/tenant", manager: "test-manager" },
    ]);
  });

  it("puts namespaced objects without a namespace into default", async () => {
    const server = fakeServer();
    await applyManifests(server, [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }]);
    expect(server.applied[0]?.path).toBe("/api/v1/namespaces/default/configmaps/x");
  });

  it("says which kind the server does not serve", async () => {
    const unknown: KubeObject = { apiVersion: "v1", kind: "Gadget", metadata: { name: "g" } };
    await expect(applyManifests(fakeServer(), [unknown])).rejects.toThrow("does not serve Gadget in v1");
  });
});

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** CRDs of group x.example, each Established after `establishedAfter` reads of it (never when undefined). */
function fakeCrdServer(establishedAfter: number | undefined): CrdTarget & { applied: { path: string; manager: string }[]; listed: string[] } {
  const applied: { path: string; manager: string }[] = [];
  const listed: string[] = [];
  const reads = new Map<string, number>();
  return {
    server: "https://kube.test",
    applied,
    listed,
    get: <T>(path: string) => {
      if (path === "/apis/apiextensions.k8s.io/v1") {
        return Promise.resolve({ resources: [{ name: "customresourcedefinitions", kind: "CustomResourceDefinition", namespaced: false }] } as T);
      }
      const count = (reads.get(path) ?? 0) + 1;
      reads.set(path, count);
      const established = establishedAfter !== undefined && count >= establishedAfter;
      return Promise.resolve({ status: { conditions: [{ type: "Established", status: established ? "True" : "False" }] } } as T);
    },
    apply: <T>(path: string, body: unknown, manager: string) => {
      applied.push({ path, manager });
      return Promise.resolve(body as T);
    },
    list: <T>(path: string) => {
      listed.push(path);
      return Promise.resolve({ items: [] as T[] });
    },
  } as CrdTarget & { applied: { path: string; manager: string }[]; listed: string[] };
}

function crd(plural: string): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.x.example` },
    spec: { group: "x.example", names: { plural }, versions: [{ name: "v1", served: true }] },
  };
}

describe("applyCrds", () => {
  it("applies with the field manager given and waits until each is Established and lists", async () => {
    const server = fakeCrdServer(2);
    await applyCrds(server, [crd("widgets"), crd("gadgets")], { fieldManager: "test-manager", timeoutMs: 10_000 });
    expect(server.applied).toEqual([
      { path: `${CRDS}/widgets.x.example`, manager: "test-manager" },
      { path: `${CRDS}/gadgets.x.example`, manager: "test-manager" },
    ]);
    expect(server.listed).toEqual(["/apis/x.example/v1/widgets", "/apis/x.example/v1/gadgets"]);
  });

  it("bounds the whole wait by timeoutMs", async () => {
    const started = Date.now();
    await expect(applyCrds(fakeCrdServer(undefined), [crd("widgets"), crd("gadgets")], { timeoutMs: 600 })).rejects.toThrow(
      /2 CRDs served did not hold within \d+ ms: widgets\.x\.example not Established yet/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("applies with testenv's field manager when given none", async () => {
    const server = fakeCrdServer(1);
    await applyCrds(server, [crd("widgets")]);
    expect(server.applied).toEqual([{ path: `${CRDS}/widgets.x.example`, manager: "edgeconnect-testenv" }]);
  });
});
