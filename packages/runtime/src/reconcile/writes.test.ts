import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { applyStatus, ensureFinalizer, removeFinalizer, type WriteClient } from "./writes.js";

interface Call {
  method: string;
  path: string;
  body: unknown;
  contentType?: string | undefined;
  fieldManager?: string;
}

function recordingClient(): WriteClient & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    request: <T>(method: string, path: string, options?: { body?: unknown; contentType?: string }) => {
      calls.push({ method, path, body: options?.body, contentType: options?.contentType });
      return Promise.resolve({ patched: true } as T);
    },
    apply: <T>(path: string, body: unknown, fieldManager: string) => {
      calls.push({ method: "APPLY", path, body, fieldManager });
      return Promise.resolve(body as T);
    },
  };
}

const path = "/apis/platform.edgeconnect.eu/v1alpha1/namespaces/team/kubernetesclusters/c1";
const object = (finalizers?: string[]): KubeObject => ({
  apiVersion: "platform.edgeconnect.eu/v1alpha1",
  kind: "KubernetesCluster",
  metadata: { name: "c1", namespace: "team", resourceVersion: "42", ...(finalizers ? { finalizers } : {}) },
});

describe("ensureFinalizer", () => {
  it("creates the list with a patch guarded by the resourceVersion", async () => {
    const client = recordingClient();
    await ensureFinalizer(client, path, object(), "platform.edgeconnect.eu/provider");
    expect(client.calls).toEqual([
      {
        method: "PATCH",
        path,
        contentType: "application/json-patch+json",
        body: [
          { op: "test", path: "/metadata/resourceVersion", value: "42" },
          { op: "add", path: "/metadata/finalizers", value: ["platform.edgeconnect.eu/provider"] },
        ],
      },
    ]);
  });

  it("appends to an existing list and does nothing when present", async () => {
    const client = recordingClient();
    await ensureFinalizer(client, path, object(["other"]), "mine");
    expect((client.calls[0]?.body as object[])[1]).toEqual({ op: "add", path: "/metadata/finalizers/-", value: "mine" });
    const unchanged = object(["mine"]);
    expect(await ensureFinalizer(client, path, unchanged, "mine")).toBe(unchanged);
    expect(client.calls).toHaveLength(1);
  });
});

describe("removeFinalizer", () => {
  it("removes by index, testing both the resourceVersion and the entry", async () => {
    const client = recordingClient();
    await removeFinalizer(client, path, object(["a", "mine", "b"]), "mine");
    expect(client.calls[0]?.body).toEqual([
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

describe("applyStatus", () => {
  it("applies only identity and status to /status with the field manager", async () => {
    const client = recordingClient();
    await applyStatus(client, path, { ...object(), spec: { nodeCount: 3 } }, { phase: "Ready" }, "provider-controller");
    expect(client.calls).toEqual([
      {
        method: "APPLY",
        path: `${path}/status`,
        fieldManager: "provider-controller",
        body: {
          apiVersion: "platform.edgeconnect.eu/v1alpha1",
          kind: "KubernetesCluster",
          metadata: { name: "c1", namespace: "team" },
          status: { phase: "Ready" },
        },
      },
    ]);
  });
});
