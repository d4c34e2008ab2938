/**
 * Work done once per key for the life of the process, for results that never
 * change for that key: the files of a pinned module version in the Go module
 * cache, and what is built from them. Callers share the first call's promise,
 * so concurrent callers also wait for one run instead of starting their own.
 */

/**
 * `cache`'s promise for `key`, made by `make` when there is none. A rejected
 * promise is dropped, so that the next call tries again: a failed download
 * (no network, no `go`) is no answer for good.
 */
export function cachedPromise<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const made = make();
  cache.set(key, made);
  // Only ours: a retry may already have put a newer promise under the key.
  void made.catch(() => {
    if (cache.get(key) === made) cache.delete(key);
  });
  return made;
}
