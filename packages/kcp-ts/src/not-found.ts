/** Reads and deletes for which an absent object is an answer, not an error. */
import { HttpStatusError } from "./errors.js";
import type { RequestOptionsLite, RestClient } from "./rest-client.js";

export function isNotFound(err: unknown): boolean {
  return err instanceof HttpStatusError && err.status === 404;
}

/** The object at `path`, or undefined when the server answers 404. */
export async function getIfPresent<T>(client: Pick<RestClient, "get">, path: string, options?: RequestOptionsLite): Promise<T | undefined> {
  try {
    return await client.get<T>(path, options);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Deletes the object at `path`; one that is gone already counts as deleted. */
export async function deleteIfPresent(client: Pick<RestClient, "delete">, path: string, options?: RequestOptionsLite): Promise<void> {
  try {
    await client.delete(path, options);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
