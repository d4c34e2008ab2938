import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { finalize, type FinalizerHooks } from "./finalizer.js";
import type { Result } from "./reconciler.js";
import { oneObjectServer } from "./write-client.fixture.js";
import { StaleObjectError } from "./writes.js";

const FINALIZER = "platform.edgeconnect.eu/provider";
const path = "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/team/kubernetesclusters/c1";

function cluster(options: { finalizers?: string[]; deleting?: boolean; rv?: string } = {}): KubeObject {
  return {
    apiVersion: "platform.edgeconnect.eu/v1alpha1",
    kind: "KubernetesCluster",
    metadata: {
      name: "c1",
      namespace: "team",
      resourceVersion: options.rv ?? "10",
      ...(options.finalizers ? { finalizers: options.finalizers } : {}),
      ...(options.deleting ? { deletionTimestamp: "2026-11-30T10:00:00Z" } : {}),
    },
  };
}

/** Hooks that record what they were called with and answer as told. */
function hooks(answers: { apply?: Result; cleanup?: Result | Error } = {}): FinalizerHooks<KubeObject> & { seen: string[] } {
  const seen: string[] = [];
  const describeObj = (obj: KubeObject): string => `rv ${obj.metadata?.resourceVersion ?? ""} [${(obj.metadata?.finalizers ?? []).join(",")}]`;
  return {
    seen,
    apply: (obj) => {
      seen.push(`apply ${describeObj(obj)}`);
      return Promise.resolve(answers.apply);
    },
    cleanup: (obj) => {
      seen.push(`cleanup ${describeObj(obj)}`);
      return answers.cleanup instanceof Error ? Promise.reject(answers.cleanup) : Promise.resolve(answers.cleanup);
    },
  };
}

describe("finalize", () => {
  it("adds a missing finalizer to a live object, then applies the patched object", async () => {
    const server = oneObjectServer(path, cluster());
    const h = hooks({ apply: { requeueAfterMs: 60_000 } });
    expect(await finalize(server, path, cluster(), FINALIZER, h)).toEqual({ requeueAfterMs: 60_000 });
    expect(server.current()?.metadata?.finalizers).toEqual([FINALIZER]);
    expect(h.seen).toEqual([`apply rv 11 [${FINALIZER}]`]);
  });

  it("applies a live object that has the finalizer, without writing", async () => {
    const obj = cluster({ finalizers: ["other", FINALIZER] });
    const server = oneObjectServer(path, obj);
    const h = hooks();
    expect(await finalize(server, path, obj, FINALIZER, h)).toBeUndefined();
    expect(h.seen).toEqual([`apply rv 10 [other,${FINALIZER}]`]);
    expect(server.calls).toEqual([]);
  });

  it("cleans up an object being deleted, then removes the finalizer", async () => {
    const obj = cluster({ finalizers: [FINALIZER], deleting: true });
    const server = oneObjectServer(path, obj);
    const h = hooks();
    expect(await finalize(server, path, obj, FINALIZER, h)).toBeUndefined();
    expect(h.seen).toEqual([`cleanup rv 10 [${FINALIZER}]`]);
    expect(server.current()).toBeUndefined();
  });

  it("keeps the finalizer while cleanup asks to be called again", async () => {
    const obj = cluster({ finalizers: [FINALIZER], deleting: true });
    const server = oneObjectServer(path, obj);
    expect(await finalize(server, path, obj, FINALIZER, hooks({ cleanup: { requeueAfterMs: 5_000 } }))).toEqual({ requeueAfterMs: 5_000 });
    expect(server.calls).toEqual([]);
    expect(server.current()?.metadata?.finalizers).toEqual([FINALIZER]);
  });

  it("keeps the finalizer when cleanup throws", async () => {
    const obj = cluster({ finalizers: [FINALIZER], deleting: true });
    const server = oneObjectServer(path, obj);
    await expect(finalize(server, path, obj, FINALIZER, hooks({ cleanup: new Error("ELB still in use") }))).rejects.toThrow("ELB still in use");
    expect(server.calls).toEqual([]);
    expect(server.current()?.metadata?.finalizers).toEqual([FINALIZER]);
  });

  it("does nothing for an object being deleted without its finalizer", async () => {
    const obj = cluster({ finalizers: ["other"], deleting: true });
    const server = oneObjectServer(path, obj);
    const h = hooks();
    expect(await finalize(server, path, obj, FINALIZER, h)).toBeUndefined();
    expect(h.seen).toEqual([]);
    expect(server.calls).toEqual([]);
  });

  it("fails as stale, before apply, when the object changed since it was read", async () => {
    const server = oneObjectServer(path, cluster({ rv: "12" }));
    const h = hooks();
    await expect(finalize(server, path, cluster({ rv: "10" }), FINALIZER, h)).rejects.toThrow(StaleObjectError);
    expect(h.seen).toEqual([]);
    expect(server.current()?.metadata?.finalizers).toBeUndefined();
  });

  it("fails as stale on removal and keeps the finalizer when the object changed during cleanup", async () => {
    const server = oneObjectServer(path, cluster({ finalizers: [FINALIZER], deleting: true, rv: "12" }));
    await expect(finalize(server, path, cluster({ finalizers: [FINALIZER], deleting: true, rv: "10" }), FINALIZER, hooks())).rejects.toThrow(
      StaleObjectError,
    );
    expect(server.current()?.metadata?.finalizers).toEqual([FINALIZER]);
  });

  it("takes an object gone while its finalizer was removed as released: cleanup again, then nothing to throw", async () => {
    const stale = cluster({ finalizers: [FINALIZER], deleting: true });
    const server = oneObjectServer(path, stale);
    const h = hooks();
    await finalize(server, path, stale, FINALIZER, h);
    expect(server.current()).toBeUndefined();
    // A reconcile from a cache that still holds the object with the finalizer.
    expect(await finalize(server, path, stale, FINALIZER, h)).toBeUndefined();
    expect(h.seen).toEqual([`cleanup rv 10 [${FINALIZER}]`, `cleanup rv 10 [${FINALIZER}]`]);
  });

  it("applies nothing for a live object that is gone before its finalizer could be added", async () => {
    const server = oneObjectServer(path, cluster({ deleting: true, finalizers: ["other"] }));
    await server.request("PATCH", path, { body: [{ op: "remove", path: "/metadata/finalizers/0" }], contentType: "application/json-patch+json" });
    expect(server.current()).toBeUndefined();
    const h = hooks();
    expect(await finalize(server, path, cluster(), FINALIZER, h)).toBeUndefined();
    expect(h.seen).toEqual([]);
  });

  it("passes the signal to every write", async () => {
    const signal = new AbortController().signal;
    const server = oneObjectServer(path, cluster());
    await finalize(server, path, cluster(), FINALIZER, hooks(), { signal });
    await finalize(server, path, cluster({ finalizers: [FINALIZER], deleting: true, rv: "11" }), FINALIZER, hooks(), { signal });
    expect(server.calls.map((call) => call.options?.signal)).toEqual([signal, signal]);
  });
});
