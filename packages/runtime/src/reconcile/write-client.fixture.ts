/**
 * Fake WriteClients for unit tests of the writes and the finalizer flow, and
 * the API server's answer to a JSON patch that could not be applied.
 */
import { HttpStatusError, type KubeObject, type RequestOptionsLite } from "@edgeconnect/kcp-ts";
import type { WriteClient } from "./writes.js";

export interface Call {
  method: string;
  path: string;
  options: RequestOptionsLite | undefined;
}

/** Answers every request with `answer`: an object to return, or an error to throw. */
export function recordingClient(answer: unknown = { patched: true }): WriteClient & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    request: <T>(method: string, path: string, options?: RequestOptionsLite) => {
      calls.push({ method, path, options });
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer as T);
    },
  };
}

/** What kube-apiserver v1.34 answers when an op of a JSON patch fails (finalizer.int.test.ts checks it). */
export const FAILED_PATCH_BODY = JSON.stringify({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server rejected our request due to an error in our request",
  reason: "Invalid",
  details: {},
  code: 422,
});

/**
 * One object behind a fake API server that answers JSON patches on `path` as
 * kube-apiserver does for the finalizer writes: `test` ops against the
 * current object, `add`/`remove` of finalizers, a new resourceVersion per
 * write, 422 (FAILED_PATCH_BODY) when an op fails, and the object gone once
 * it is being deleted and has no finalizers left.
 */
export function oneObjectServer(path: string, initial: KubeObject): WriteClient & { calls: Call[]; current(): KubeObject | undefined } {
  const calls: Call[] = [];
  let object: KubeObject | undefined = structuredClone(initial);
  let version = Number(initial.metadata?.resourceVersion ?? "1");
  const fail = (): HttpStatusError => new HttpStatusError("PATCH", `https://infra.example${path}`, 422, FAILED_PATCH_BODY);
  return {
    calls,
    current: () => object,
    request: <T>(method: string, target: string, options?: RequestOptionsLite) => {
      calls.push({ method, path: target, options });
      if (method !== "PATCH" || target !== path || options?.contentType !== "application/json-patch+json") {
        return Promise.reject(new Error(`unexpected ${method} ${target}`));
      }
      if (object === undefined) return Promise.reject(new HttpStatusError(method, target, 404, ""));
      const next = structuredClone(object);
      const metadata = (next.metadata ??= {});
      for (const op of options.body as { op: string; path: string; value?: unknown }[]) {
        const index = /^\/metadata\/finalizers\/(\d+|-)$/.exec(op.path)?.[1];
        const finalizers = metadata.finalizers ?? [];
        if (op.op === "test") {
          const actual = op.path === "/metadata/resourceVersion" ? metadata.resourceVersion : finalizers[Number(index)];
          if (actual !== op.value) return Promise.reject(fail());
        } else if (op.op === "add" && op.path === "/metadata/finalizers") {
          metadata.finalizers = op.value as string[];
        } else if (op.op === "add" && index === "-") {
          metadata.finalizers = [...finalizers, op.value as string];
        } else if (op.op === "remove" && index !== undefined && Number(index) < finalizers.length) {
          metadata.finalizers = finalizers.filter((_, i) => i !== Number(index));
        } else {
          return Promise.reject(fail());
        }
      }
      metadata.resourceVersion = String(++version);
      object = metadata.deletionTimestamp !== undefined && (metadata.finalizers ?? []).length === 0 ? undefined : next;
      return Promise.resolve(structuredClone(next) as T);
    },
  };
}
