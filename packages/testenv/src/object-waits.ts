/**
 * Waiting on API objects, as tests and demos do against controllers: until
 * an object satisfies a check, until it is gone, or what HTTP status a read
 * of it gets (to show a permission is granted or refused).
 */
import { HttpStatusError, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import { eventually, holds } from "./eventually.js";

/** The object at `path` once `check` holds for it; the last state read is in the timeout's message. */
export async function waitForObject<T extends KubeObject>(client: RestClient, path: string, description: string, check: (obj: T) => boolean, timeoutMs = 60_000): Promise<T> {
  return eventually(
    async () => {
      const obj = await client.get<T>(path);
      return holds(check(obj), `now ${JSON.stringify({ metadata: obj.metadata, status: obj.status })}`, obj);
    },
    { timeoutMs, description },
  );
}

/** Resolves once a read of `path` answers 404. */
export async function waitUntilGone(client: RestClient, path: string, options: { readonly timeoutMs?: number; readonly description?: string } = {}): Promise<void> {
  await eventually(async () => holds((await httpStatus(client, path)) === 404, `${path} still exists`), {
    timeoutMs: options.timeoutMs ?? 60_000,
    description: options.description ?? `${path} gone`,
  });
}

/** 200 when a GET of `path` succeeds, else the API server's status code. */
export async function httpStatus(client: RestClient, path: string): Promise<number> {
  try {
    await client.get(path);
    return 200;
  } catch (err) {
    if (err instanceof HttpStatusError) return err.status;
    throw err;
  }
}
