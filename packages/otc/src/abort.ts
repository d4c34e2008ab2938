/**
 * Waiting that an AbortSignal ends at once, shared by the client's attempts,
 * its backoff and the callers of a shared IAM token request.
 */

/**
 * `work`, or `signal.reason` as soon as the signal aborts: whatever `work`
 * does on abort (an injected sleep may ignore it, a socket error may come
 * later), the caller learns at once and by the signal's reason.
 */
export async function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const done = await Promise.race([work.then((value) => ({ value })), aborted]);
    if (done === undefined) throw signal.reason;
    return done.value;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
