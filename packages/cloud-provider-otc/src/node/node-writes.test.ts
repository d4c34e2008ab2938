import { describe, expect, it } from "@jest/globals";
import { HttpStatusError } from "@edgeconnect/kcp-ts";
import type { Node } from "../kube/objects.js";
import type { NodeClient } from "./node-controllers-options.js";
import { deleteNode, updateNode } from "./node-writes.js";

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/** A client whose answers are queued per method; every call is recorded. */
function fakeClient(answers: Record<string, (() => unknown)[]>): { client: NodeClient; calls: Call[] } {
  const calls: Call[] = [];
  const next = async (method: string, path: string, body?: unknown): Promise<never> => {
    calls.push({ method, path, body });
    const answer = answers[method]?.shift();
    if (answer === undefined) throw new Error(`unexpected ${method} ${path}`);
    return answer() as never;
  };
  const client = {
    get: (path: string) => next("GET", path),
    delete: (path: string, options?: { body?: unknown }) => next("DELETE", path, options?.body),
    request: (method: string, path: string, options?: { body?: unknown }) => next(method, path, options?.body),
  } as unknown as NodeClient;
  return { client, calls };
}

const conflict = (): never => {
  throw new HttpStatusError("PATCH", "/api/v1/nodes/n", 409, '{"kind":"Status","reason":"Conflict"}');
};
const label = (value: string) => (node: Node): Node | undefined =>
  node.metadata?.labels?.x === value ? undefined : { ...node, metadata: { ...node.metadata, labels: { x: value } } };

describe("updateNode", () => {
  it("writes only what the change touched, guarded by the node's resourceVersion", async () => {
    const { client, calls } = fakeClient({ PATCH: [() => ({ metadata: { name: "n", resourceVersion: "2" } })] });
    // Fields the Node type does not know stand for what a newer kubelet writes: never sent back.
    const node = { metadata: { name: "n", resourceVersion: "1", labels: { x: "b" } }, spec: { podCIDR: "10.0.0.0/24" }, status: { capacity: { cpu: "2" } } } as unknown as Node;
    await updateNode(client, node, label("a"));
    expect(calls).toEqual([{ method: "PATCH", path: "/api/v1/nodes/n", body: { metadata: { labels: { x: "a" }, resourceVersion: "1" } } }]);
  });

  it("re-reads on conflict and applies the change to the fresh node", async () => {
    const fresh = { metadata: { name: "n", resourceVersion: "5", labels: { y: "kubelet" } } };
    const { client, calls } = fakeClient({ PATCH: [conflict, () => ({ metadata: { name: "n", resourceVersion: "6" } })], GET: [() => fresh] });
    await updateNode(client, { metadata: { name: "n", resourceVersion: "1" } }, (node) => ({ ...node, metadata: { ...node.metadata, labels: { ...node.metadata?.labels, x: "a" } } }));
    expect(calls.map((call) => call.method)).toEqual(["PATCH", "GET", "PATCH"]);
    expect(calls[2]?.body).toEqual({ metadata: { resourceVersion: "5", labels: { x: "a" } } });
  });

  it("stops when the fresh node needs nothing, and gives up after repeated conflicts", async () => {
    const done = fakeClient({ PATCH: [conflict], GET: [() => ({ metadata: { name: "n", labels: { x: "a" } } })] });
    expect(await updateNode(done.client, { metadata: { name: "n" } }, label("a"))).toEqual({ metadata: { name: "n", labels: { x: "a" } } });
    const busy = fakeClient({ PATCH: Array.from({ length: 5 }, () => conflict), GET: Array.from({ length: 4 }, () => () => ({ metadata: { name: "n" } })) });
    await expect(updateNode(busy.client, { metadata: { name: "n" } }, label("a"))).rejects.toMatchObject({ status: 409 });
  });
});

describe("deleteNode", () => {
  it("deletes the node by name, only if it is still the node that was judged (its UID)", async () => {
    const { client, calls } = fakeClient({ DELETE: [() => ""] });
    expect(await deleteNode(client, { metadata: { name: "n", uid: "u-1" } })).toBe(true);
    expect(calls).toEqual([
      { method: "DELETE", path: "/api/v1/nodes/n", body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: "u-1" } } },
    ]);
  });

  it("is done when the node is gone or replaced, and throws otherwise", async () => {
    const fail = (status: number) => (): never => {
      throw new HttpStatusError("DELETE", "/api/v1/nodes/n", status, "");
    };
    const { client } = fakeClient({ DELETE: [fail(404), fail(409), fail(500)] });
    expect(await deleteNode(client, { metadata: { name: "n", uid: "u-1" } })).toBe(false);
    expect(await deleteNode(client, { metadata: { name: "n", uid: "u-1" } })).toBe(false);
    await expect(deleteNode(client, { metadata: { name: "n", uid: "u-1" } })).rejects.toMatchObject({ status: 500 });
  });
});
