import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { DeepReadonly } from "../reflector/store.js";
import { combineHandlers, enqueueMapped, enqueueObject, requestFor } from "./handlers.js";
import type { Request } from "./request.js";

function sink(): { enqueue(r: Request): void; requests: Request[] } {
  const requests: Request[] = [];
  return { requests, enqueue: (r) => void requests.push(r) };
}

const widget = (patch: { generation?: number; labels?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string; status?: unknown } = {}): KubeObject => ({
  metadata: {
    name: "w",
    namespace: "default",
    annotations: { "kcp.io/cluster": "tenant-a" },
    generation: patch.generation ?? 1,
    ...(patch.labels ? { labels: patch.labels } : {}),
    ...(patch.finalizers ? { finalizers: patch.finalizers } : {}),
    ...(patch.deletionTimestamp ? { deletionTimestamp: patch.deletionTimestamp } : {}),
  },
  status: patch.status,
});

describe("requestFor", () => {
  it("stamps the logical cluster from the kcp.io/cluster annotation", () => {
    expect(requestFor(widget())).toEqual({ cluster: "tenant-a", namespace: "default", name: "w" });
    expect(requestFor({ metadata: { name: "node-1" } })).toEqual({ cluster: "", namespace: "", name: "node-1" });
  });
});

describe("enqueueObject", () => {
  it("enqueues adds and deletes", () => {
    const s = sink();
    const handlers = enqueueObject(s);
    handlers.added?.(widget());
    handlers.deleted?.(widget());
    expect(s.requests).toHaveLength(2);
  });

  it("ignores updates that changed only the status (the controller's own writes)", () => {
    const s = sink();
    enqueueObject(s).updated?.(widget({ status: { observed: "a" } }), widget({ status: { observed: "b" } }));
    expect(s.requests).toEqual([]);
  });

  it("enqueues spec (generation), label, finalizer and deletion changes", () => {
    const s = sink();
    const { updated } = enqueueObject(s);
    updated?.(widget(), widget({ generation: 2 }));
    updated?.(widget(), widget({ labels: { tier: "gold" } }));
    updated?.(widget(), widget({ finalizers: ["x"] }));
    updated?.(widget(), widget({ deletionTimestamp: "2026-11-30T10:00:00Z" }));
    expect(s.requests).toHaveLength(4);
  });

  it("enqueues every update of objects without a generation (core kinds like Secrets)", () => {
    const s = sink();
    enqueueObject(s).updated?.({ metadata: { name: "s" } }, { metadata: { name: "s" } });
    expect(s.requests).toHaveLength(1);
  });
});

describe("enqueueMapped", () => {
  it("enqueues the owners named by the map for old and new on update", () => {
    const s = sink();
    const owner = (obj: DeepReadonly<KubeObject>): Request[] => [{ cluster: "tenant-a", namespace: "default", name: obj.metadata?.labels?.owner ?? "" }];
    const handlers = enqueueMapped(s, owner);
    handlers.updated?.(widget({ labels: { owner: "old" } }), widget({ labels: { owner: "new" } }));
    expect(s.requests.map((r) => r.name)).toEqual(["old", "new"]);
  });

  it("with ignoreStatus, skips an update of the status alone and still maps a spec change", () => {
    const s = sink();
    const owner = (obj: DeepReadonly<KubeObject>): Request[] => [{ cluster: "tenant-a", namespace: "default", name: obj.metadata?.labels?.owner ?? "" }];
    const handlers = enqueueMapped(s, owner, { ignoreStatus: true });
    handlers.updated?.({ ...widget({ labels: { owner: "a" } }), status: { phase: "Pending" } }, { ...widget({ labels: { owner: "a" } }), status: { phase: "Ready" } });
    expect(s.requests).toEqual([]);
    handlers.updated?.(widget({ labels: { owner: "a" }, generation: 1 }), widget({ labels: { owner: "a" }, generation: 2 }));
    expect(s.requests.map((r) => r.name)).toEqual(["a", "a"]);
  });
});

describe("combineHandlers", () => {
  it("passes every event to each handler set in order, skipping what a set does not handle", () => {
    const seen: string[] = [];
    const combined = combineHandlers<KubeObject>(
      { added: (obj) => seen.push(`a:added:${obj.metadata?.name}`), deleted: (obj) => seen.push(`a:deleted:${obj.metadata?.name}`) },
      { added: (obj) => seen.push(`b:added:${obj.metadata?.name}`), updated: (_old, obj) => seen.push(`b:updated:${obj.metadata?.name}`) },
    );
    combined.added?.(widget());
    combined.updated?.(widget(), widget());
    combined.deleted?.(widget());
    expect(seen).toEqual(["a:added:w", "b:added:w", "b:updated:w", "a:deleted:w"]);
  });
});
