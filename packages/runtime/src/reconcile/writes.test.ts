import { describe, expect, it } from "@jest/globals";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { FAILED_PATCH_BODY, recordingClient } from "./write-client.fixture.js";
import { applyStatus, ensureFinalizer, FieldConflictError, removeFinalizer, StaleObjectError } from "./writes.js";

const INVALID_FINALIZER_BODY = JSON.stringify({
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  message: 'KubernetesCluster "c1" is invalid: metadata.finalizers[0]: Invalid value: "Not Valid!": name is neither a standard finalizer name nor is it fully qualified',
  reason: "Invalid",
  details: { name: "c1", kind: "KubernetesCluster", causes: [{ reason: "FieldValueInvalid", message: "Invalid value", field: "metadata.finalizers[0]" }] },
  code: 422,
});

const path = "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/team/kubernetesclusters/c1";
const object = (finalizers?: string[]): KubeObject => ({
  apiVersion: "platform.edgeconnect.eu/v1alpha1",
  kind: "KubernetesCluster",
  metadata: { name: "c1", namespace: "team", resourceVersion: "42", ...(finalizers ? { finalizers } : {}) },
});
const httpError = (status: number, body: string): HttpStatusError => new HttpStatusError("PATCH", `https://infra.example:6443${path}`, status, body);

describe("ensureFinalizer", () => {
  it("creates the list with a patch guarded by the resourceVersion, passing the signal", async () => {
    const client = recordingClient();
    const signal = new AbortController().signal;
    await ensureFinalizer(client, path, object(), "platform.edgeconnect.eu/provider", { signal });
    expect(client.calls).toEqual([
      {
        method: "PATCH",
        path,
        options: {
          contentType: "application/json-patch+json",
          signal,
          body: [
            { op: "test", path: "/metadata/resourceVersion", value: "42" },
            { op: "add", path: "/metadata/finalizers", value: ["platform.edgeconnect.eu/provider"] },
          ],
        },
      },
    ]);
  });

  it("appends to an existing list and does nothing when present", async () => {
    const client = recordingClient();
    await ensureFinalizer(client, path, object(["other"]), "mine");
    expect((client.calls[0]?.options?.body as object[])[1]).toEqual({ op: "add", path: "/metadata/finalizers/-", value: "mine" });
    const unchanged = object(["mine"]);
    expect(await ensureFinalizer(client, path, unchanged, "mine")).toBe(unchanged);
    expect(client.calls).toHaveLength(1);
  });
});

describe("removeFinalizer", () => {
  it("removes by index, testing both the resourceVersion and the entry, passing the signal", async () => {
    const client = recordingClient();
    const signal = new AbortController().signal;
    await removeFinalizer(client, path, object(["a", "mine", "b"]), "mine", { signal });
    expect(client.calls[0]?.options?.signal).toBe(signal);
    expect(client.calls[0]?.options?.body).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: "42" },
      { op: "test", path: "/metadata/finalizers/1", value: "mine" },
      { op: "remove", path: "/metadata/finalizers/1" },
    ]);
  });

  it("does nothing when the finalizer is absent", async () => {
    const client = recordingClient();
    await removeFinalizer(client, path, object(["a"]), "mine");
    expect(client.calls).toEqual([]);
  });
});

describe("guarded patches on a changed object", () => {
  it.each([
    ["a failed test op (422 without causes)", 422, FAILED_PATCH_BODY],
    ["a conflicting write (409)", 409, JSON.stringify({ kind: "Status", reason: "Conflict", code: 409 })],
  ])("turn %s into StaleObjectError", async (_what, status, body) => {
    const cause = httpError(status, body);
    await expect(ensureFinalizer(recordingClient(cause), path, object(), "mine")).rejects.toThrow(StaleObjectError);
    const error = await removeFinalizer(recordingClient(cause), path, object(["mine"]), "mine").catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StaleObjectError);
    expect((error as StaleObjectError).cause).toBe(cause);
  });

  it.each([
    ["an invalid value (422 with causes)", 422, INVALID_FINALIZER_BODY],
    ["a 422 that is not a Status", 422, "unprocessable"],
    ["a server failure", 500, ""],
  ])("leave %s as it is", async (_what, status, body) => {
    const cause = httpError(status, body);
    const error = await ensureFinalizer(recordingClient(cause), path, object(), "Not Valid!").catch((err: unknown) => err);
    expect(error).toBe(cause);
  });
});

describe("applyStatus", () => {
  it("applies only identity and the owned status to /status, forced by default, with the field manager and the signal", async () => {
    const client = recordingClient();
    const signal = new AbortController().signal;
    const observed = { ...object(), spec: { nodeCount: 3 } };
    await applyStatus(client, path, observed, { phase: "Ready" }, "provider-controller", { signal });
    expect(client.calls).toEqual([
      {
        method: "PATCH",
        path: `${path}/status`,
        options: {
          contentType: "application/apply-patch+yaml",
          query: { fieldManager: "provider-controller", force: true },
          signal,
          body: {
            apiVersion: "platform.edgeconnect.eu/v1alpha1",
            kind: "KubernetesCluster",
            metadata: { name: "c1", namespace: "team" },
            status: { phase: "Ready" },
          },
        },
      },
    ]);
  });

  it("surfaces a conflict with another field manager as FieldConflictError naming the fields", async () => {
    const body = JSON.stringify({
      kind: "Status",
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "other" using platform.edgeconnect.eu/v1alpha1: .status.phase',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "other"', field: ".status.phase" }] },
      code: 409,
    });
    const error = await applyStatus(recordingClient(httpError(409, body)), path, object(), { phase: "Ready" }, "mine", { force: false }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FieldConflictError);
    expect((error as FieldConflictError).fields).toEqual([".status.phase"]);
    expect((error as FieldConflictError).message).toContain('conflict with "other"');
    expect(error).not.toBeInstanceOf(StaleObjectError);
  });
});
