/**
 * The finalizer flow on the real kube-apiserver of the test environment,
 * with ConfigMaps in a fresh namespace as objects: what the server answers
 * when a guarded patch meets a changed object (the shape the unit tests'
 * fixture copies), and the whole life of a finalized object.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { connectFromEnv } from "@edgeconnect/testenv";
import { randomBytes } from "node:crypto";
import { finalize, type FinalizerHooks } from "./finalizer.js";
import { FAILED_PATCH_BODY } from "./write-client.fixture.js";
import { ensureFinalizer, removeFinalizer, StaleObjectError } from "./writes.js";

const { infra } = connectFromEnv();
const describeInfra = "skipped" in infra ? describe.skip : describe;

const FINALIZER = "runtime.edgeconnect.eu/test";

describeInfra("the finalizer flow on a real API server", () => {
  const client = infra as RestClient;
  const namespace = `finalizer-${randomBytes(3).toString("hex")}`;
  const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
  let count = 0;

  beforeAll(async () => {
    await client.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  });

  afterAll(async () => {
    // A finalizer left behind by a failed test would keep the namespace terminating forever.
    const left = await client.list(configMaps);
    for (const cm of left.items) {
      await client.request("PATCH", `${configMaps}/${cm.metadata?.name ?? ""}`, {
        body: { metadata: { finalizers: null } },
        contentType: "application/merge-patch+json",
      });
    }
    await client.delete(`/api/v1/namespaces/${namespace}`);
  });

  async function configMap(): Promise<{ path: string; obj: KubeObject }> {
    const name = `cm-${++count}`;
    const obj = await client.create<KubeObject>(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } });
    return { path: `${configMaps}/${name}`, obj };
  }

  /** Another writer changes the object, so that what was read before is stale. */
  async function touch(path: string): Promise<void> {
    await client.request("PATCH", path, { body: { data: { touched: String(Date.now()) } }, contentType: "application/merge-patch+json" });
  }

  const gone = async (path: string): Promise<boolean> =>
    client.get(path).then(
      () => false,
      (err: unknown) => err instanceof HttpStatusError && err.status === 404,
    );

  it("answers a failed test op with 422 Invalid and no causes: StaleObjectError", async () => {
    const { path, obj } = await configMap();
    await touch(path);
    const raw = await client
      .request("PATCH", path, {
        body: [{ op: "test", path: "/metadata/resourceVersion", value: obj.metadata?.resourceVersion }],
        contentType: "application/json-patch+json",
      })
      .catch((err: unknown) => err);
    expect(raw).toBeInstanceOf(HttpStatusError);
    expect((raw as HttpStatusError).status).toBe(422);
    expect((raw as HttpStatusError).reason).toBe("Invalid");
    expect(JSON.parse((raw as HttpStatusError).body)).toEqual(JSON.parse(FAILED_PATCH_BODY));
  });

  it("fails as stale when adding to an object changed since it was read", async () => {
    const { path, obj } = await configMap();
    await touch(path);
    const error = await ensureFinalizer(client, path, obj, FINALIZER).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StaleObjectError);
    expect(((error as StaleObjectError).cause as HttpStatusError).status).toBe(422);
    expect((await client.get(path)).metadata?.finalizers).toBeUndefined();
  });

  it("fails as stale when removing from an object changed since it was read", async () => {
    const { path, obj } = await configMap();
    const withFinalizer = await ensureFinalizer(client, path, obj, FINALIZER);
    await touch(path);
    await expect(removeFinalizer(client, path, withFinalizer, FINALIZER)).rejects.toThrow(StaleObjectError);
    expect((await client.get(path)).metadata?.finalizers).toEqual([FINALIZER]);
  });

  it("does not take an invalid value for a stale object", async () => {
    const { path, obj } = await configMap();
    const error = await ensureFinalizer(client, path, obj, "Not Valid!").catch((err: unknown) => err);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).not.toBeInstanceOf(StaleObjectError);
    expect((error as HttpStatusError).status).toBe(422);
    expect((error as HttpStatusError).body).toContain("FieldValueInvalid");
  });

  /** Hooks that record their calls into `seen`; cleanup does what `cleanup` does. */
  function hooks(seen: string[], cleanup: () => Promise<void> = () => Promise.resolve()): FinalizerHooks<KubeObject> {
    return {
      apply: (current) => {
        seen.push(`apply ${(current.metadata?.finalizers ?? []).join(",")}`);
        return Promise.resolve();
      },
      cleanup: async () => {
        seen.push("cleanup");
        await cleanup();
      },
    };
  }

  it("adds the finalizer, applies, and after the delete cleans up and lets the object go", async () => {
    const { path, obj } = await configMap();
    const seen: string[] = [];
    const signal = new AbortController().signal;
    await finalize(client, path, obj, FINALIZER, hooks(seen), { signal });
    expect((await client.get(path)).metadata?.finalizers).toEqual([FINALIZER]);

    await client.delete(path);
    const deleting = await client.get(path);
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    await finalize(client, path, deleting, FINALIZER, hooks(seen), { signal });
    expect(seen).toEqual([`apply ${FINALIZER}`, "cleanup"]);
    expect(await gone(path)).toBe(true);
  });

  it("keeps the finalizer, and the object, when cleanup fails", async () => {
    const { path, obj } = await configMap();
    const seen: string[] = [];
    await finalize(client, path, obj, FINALIZER, hooks(seen));
    await client.delete(path);
    const deleting = await client.get(path);

    const failing = hooks(seen, () => Promise.reject(new Error("cloud still busy")));
    await expect(finalize(client, path, deleting, FINALIZER, failing)).rejects.toThrow("cloud still busy");
    const kept = await client.get(path);
    expect(kept.metadata?.finalizers).toEqual([FINALIZER]);
    expect(kept.metadata?.deletionTimestamp).toBeDefined();

    await finalize(client, path, kept, FINALIZER, hooks(seen));
    expect(seen).toEqual([`apply ${FINALIZER}`, "cleanup", "cleanup"]);
    expect(await gone(path)).toBe(true);
  });
});
