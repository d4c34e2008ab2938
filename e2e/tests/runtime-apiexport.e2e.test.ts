/**
 * The runtime against real kcp: an example controller on an APIExport's
 * virtual workspace, started before any workspace binds the export, across
 * several tenants, through bind and unbind while running, and across a
 * restart that must not miss what changed while it was down.
 *
 * One kcp process is one shard, so the endpoint slice lists one URL; a second
 * shard needs kcp's sharded setup, which the test environment does not run.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { clusterOf, type RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv, createWorkspace, deleteWorkspace, e2eLogStream, eventually, type Workspace } from "@edgeconnect/testenv";
import { createLogger } from "@edgeconnect/runtime";
import { WidgetController, type Widget } from "../src/widget-controller.js";
import { bindWidgetExport, installWidgetExport, WIDGET_EXPORT, WIDGETS_PATH } from "../src/widget-export.js";

const FAST = { inactivityTimeoutMs: 30_000, backoff: { initialMs: 100, maxMs: 2_000 } };

describe("runtime on an APIExport virtual workspace", () => {
  const { kcp } = connectFromEnv();
  const suffix = randomBytes(3).toString("hex");
  let provider: Workspace;
  const tenants: Workspace[] = [];
  let controller: WidgetController | undefined;

  const widgets = `${WIDGETS_PATH}/namespaces/default/widgets`;
  const createWidget = (ws: Workspace, name: string, color: string): Promise<Widget> =>
    ws.client.create<Widget>(widgets, {
      apiVersion: "smoke.edgeconnect.eu/v1alpha1",
      kind: "Widget",
      metadata: { name },
      spec: { color },
    });
  const observed = async (ws: Workspace, name: string, color: string): Promise<void> => {
    await eventually(
      async () => {
        const widget = await ws.client.get<Widget>(`${widgets}/${name}`);
        const ready = widget.status?.conditions?.find((c) => c.type === "Ready");
        return widget.status?.observed === color && ready?.observedGeneration === widget.metadata?.generation
          ? [true, undefined]
          : [false, `status ${JSON.stringify(widget.status)}`];
      },
      { timeoutMs: 60_000, description: `${ws.path} widget ${name} observed as ${color}` },
    );
  };
  const startController = (): WidgetController => {
    const started = new WidgetController({ provider: provider.client, reflector: FAST, logger: createLogger({ level: "info", destination: e2eLogStream("widget-controller") }) });
    started.start();
    return started;
  };

  beforeAll(async () => {
    provider = await createWorkspace(kcp, `runtime-provider-${suffix}`);
    await installWidgetExport(provider);
    for (const name of ["a", "b", "c"]) tenants.push(await createWorkspace(kcp, `runtime-tenant-${name}-${suffix}`));
  });

  afterAll(async () => {
    await controller?.stopAndWait();
    for (const ws of [...tenants, provider]) if (ws) await deleteWorkspace(kcp, ws);
  });

  it("starts cleanly while no workspace binds the export (no endpoints yet)", async () => {
    controller = startController();
    const source = controller.source;
    await eventually(() => (source.hasSynced ? [true, undefined] : [false, "not synced"]), { description: "source synced" });
    expect(source.endpoints()).toEqual([]);
    expect(source.boundClusters()).toEqual([]);
  });

  it("picks up the endpoint when the first tenant binds, and reconciles every tenant's objects", async () => {
    for (const ws of tenants) await bindWidgetExport(ws, provider);
    const source = controller?.source;
    await eventually(() => ((source?.endpoints().length ?? 0) === 1 ? [true, undefined] : [false, "no endpoint"]));
    for (const ws of tenants) await createWidget(ws, "shared-name", ws.name);
    for (const ws of tenants) await observed(ws, "shared-name", ws.name);
    await eventually(() => {
      const bound = source?.boundClusters().sort() ?? [];
      const want = tenants.map((t) => t.cluster).sort();
      return JSON.stringify(bound) === JSON.stringify(want) ? [true, undefined] : [false, `bound ${bound.join(",")}`];
    });
  });

  it("reconciles a spec change again", async () => {
    const [a] = tenants;
    if (a === undefined) throw new Error("no tenant");
    const path = `${widgets}/shared-name`;
    const current = await a.client.get<Widget>(path);
    await a.client.replace(path, { ...current, spec: { color: "repainted" } });
    await observed(a, "shared-name", "repainted");
  });

  it("forgets a tenant that unbinds while running; kcp deletes its objects", async () => {
    const b = tenants[1];
    if (b === undefined) throw new Error("no tenant");
    await b.client.delete(`/apis/apis.kcp.io/v1alpha2/apibindings/${WIDGET_EXPORT}`);
    const source = controller?.source;
    await eventually(
      () => {
        const bound = source?.boundClusters() ?? [];
        const objects = (controller === undefined ? [] : controller.source.list(controller.widgets)).filter((w) => clusterOf(w) === b.cluster);
        return !bound.includes(b.cluster) && objects.length === 0 ? [true, undefined] : [false, `${objects.length} objects, bound ${bound.length}`];
      },
      { timeoutMs: 60_000, description: "unbound tenant gone from the source" },
    );
    // The others keep working.
    const c = tenants[2];
    if (c === undefined) throw new Error("no tenant");
    await createWidget(c, "after-unbind", "green");
    await observed(c, "after-unbind", "green");
  });

  it("resumes after a restart without missing what changed while it was down", async () => {
    await controller?.stopAndWait();
    const [a, , c] = tenants;
    if (a === undefined || c === undefined) throw new Error("no tenants");
    await createWidget(a, "while-down", "blue");
    const path = `${widgets}/after-unbind`;
    const current = await c.client.get<Widget>(path);
    await c.client.replace(path, { ...current, spec: { color: "changed-while-down" } });
    controller = startController();
    await observed(a, "while-down", "blue");
    await observed(c, "after-unbind", "changed-while-down");
  });

  it("writes through the shard that serves the tenant, nowhere else", () => {
    const source = controller?.source;
    const [a, b] = tenants;
    const signal = new AbortController().signal;
    const client: RestClient | undefined = source?.scopeFor(a?.cluster ?? "", signal)?.client;
    expect(client?.server).toMatch(new RegExp(`/services/apiexport/.+/${WIDGET_EXPORT.replaceAll(".", "\\.")}/clusters/${a?.cluster ?? ""}$`));
    expect(source?.scopeFor(b?.cluster ?? "", signal)).toBeUndefined();
  });
});
