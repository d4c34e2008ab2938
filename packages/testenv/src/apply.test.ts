import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { applyManifests, parseManifests, type ManifestTarget } from "./apply.js";

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
