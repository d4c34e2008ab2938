/** Reads and deletes for which an absent object is an answer, not an error. */
import { HttpStatusError, type RestClient } from "@edgeconnect/kcp-ts";

export function isNotFound(err: unknown): boolean {
  return err instanceof HttpStatusError && err.status === 404;
}

export async function getIfPresent<T>(client: Pick<RestClient, "get">, path: string): Promise<T | undefined> {
  try {
    return await client.get<T>(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function deleteIfPresent(client: Pick<RestClient, "delete">, path: string): Promise<void> {
  try {
    await client.delete(path);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
