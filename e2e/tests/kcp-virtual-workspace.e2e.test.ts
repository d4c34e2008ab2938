/**
 * Proves the kcp under test is real and behaves as the runtime will assume:
 * an APIExport bound by two tenants is served through its virtual workspace,
 * wildcard LIST and WATCH see both tenants' objects (told apart only by the
 * kcp.io/cluster annotation), and a claimed Secret written through one
 * tenant's path lands in that tenant only.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { clusterOf, type KubeObject, type RestClient, type WatchEvent } from "@edgeconnect/kcp-ts";
import {
  apiExportEndpoints,
  connectFromEnv,
  createWorkspace,
  deleteWorkspace,
  eventually,
  type Workspace,
} from "@edgeconnect/testenv";

import { bindWidgetExport, installWidgetExport, WIDGET_EXPORT, WIDGETS_PATH as WIDGETS } from "../src/widget-export.js";

describe("kcp APIExport virtual workspace", () => {
  const { kcp } = connectFromEnv();
  const suffix = randomBytes(3).toString("hex");
  let provider: Workspace;
  let tenants: Workspace[];
  let virtualWorkspace: RestClient;

  beforeAll(async () => {
    provider = await createWorkspace(kcp, `smoke-provider-${suffix}`);
    await installWidgetExport(provider);
    tenants = await Promise.all(["a", "b"].map((t) => createWorkspace(kcp, `smoke-tenant-${t}-${suffix}`)));
    for (const tenant of tenants) {
      await bindWidgetExport(tenant, provider);
      await tenant.client.create(`${WIDGETS}/namespaces/default/widgets`, {
        apiVersion: "smoke.edgeconnect.eu/v1alpha1",
        kind: "Widget",
        metadata: { name: "same-name", namespace: "default" },
        spec: { color: tenant.name },
      });
    }
    const [url] = await apiExportEndpoints(provider, WIDGET_EXPORT);
    virtualWorkspace = kcp.withServer(url ?? "");
  });

  afterAll(async () => {
    for (const ws of [...(tenants ?? []), provider]) if (ws) await deleteWorkspace(kcp, ws);
  });

  it("lists the same namespace/name from both tenants, told apart by kcp.io/cluster", async () => {
    const list = await virtualWorkspace.list(`/clusters/*${WIDGETS}/widgets`);
    const ours = list.items.filter((w) => w.metadata?.name === "same-name");
    expect(ours.map(clusterOf).sort()).toEqual(tenants.map((t) => t.cluster).sort());
    expect(new Set(ours.map((w) => `${w.metadata?.namespace}/${w.metadata?.name}`))).toEqual(new Set(["default/same-name"]));
    expect(list.metadata.resourceVersion).toBeTruthy();
  });

  it("watches across tenants: the initial state of both, then a live change", async () => {
    const abort = new AbortController();
    const seen: WatchEvent[] = [];
    const [tenantA] = tenants;
    if (tenantA === undefined) throw new Error("no tenant");
    const watching = (async () => {
      for await (const event of virtualWorkspace.watch(`/clusters/*${WIDGETS}/widgets`, { signal: abort.signal })) {
        seen.push(event);
        const live = event.type === "ADDED" && event.object.metadata?.name === "live-change";
        if (live) abort.abort();
      }
    })();
    // The watch starts with synthetic ADDED events for existing objects; the
    // live object is created once those have arrived.
    await eventually(
      () => {
        const initial = seen.filter((e) => e.object.metadata?.name === "same-name").length;
        return initial === 2 ? [true, undefined] : [false, `${initial} of 2 initial events`];
      },
      { intervalMs: 50, description: "initial watch events" },
    );
    await tenantA.client.create(`${WIDGETS}/namespaces/default/widgets`, {
      apiVersion: "smoke.edgeconnect.eu/v1alpha1",
      kind: "Widget",
      metadata: { name: "live-change", namespace: "default" },
    });
    await watching;
    const initial = seen.filter((e) => e.type === "ADDED" && e.object.metadata?.name === "same-name");
    expect(initial.map((e) => clusterOf(e.object)).sort()).toEqual(tenants.map((t) => t.cluster).sort());
    expect(clusterOf(seen[seen.length - 1]?.object ?? {})).toBe(tenantA.cluster);
  });

  it("writes a claimed Secret into one tenant only", async () => {
    const [tenantA, tenantB] = tenants;
    if (tenantA === undefined || tenantB === undefined) throw new Error("no tenants");
    const secrets = "/api/v1/namespaces/default/secrets";
    await virtualWorkspace.withServer(`${virtualWorkspace.server}/clusters/${tenantA.cluster}`).create(secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "from-provider" },
      stringData: { hello: "tenant-a" },
    });

    const inA = await tenantA.client.get<KubeObject & { data?: Record<string, string> }>(`${secrets}/from-provider`);
    expect(Buffer.from(inA.data?.hello ?? "", "base64").toString()).toBe("tenant-a");
    await expect(tenantB.client.get(`${secrets}/from-provider`)).rejects.toMatchObject({ status: 404 });

    const throughB = virtualWorkspace.withServer(`${virtualWorkspace.server}/clusters/${tenantB.cluster}`);
    await expect(throughB.get(`${secrets}/from-provider`)).rejects.toMatchObject({ status: 404 });
    const wildcard = await virtualWorkspace.list(`/clusters/*/api/v1/secrets`);
    const copies = wildcard.items.filter((s) => s.metadata?.name === "from-provider");
    expect(copies.map(clusterOf)).toEqual([tenantA.cluster]);
  });
});

