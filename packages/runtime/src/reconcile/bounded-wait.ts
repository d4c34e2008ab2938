/**
 * Waiting with a bound: drains and hand-overs wait for reconciles to end,
 * but never longer than their timeout, so a reconcile that ignores its
 * signal cannot hold a shutdown or a slot's release.
 */

/** Whether `promise` settles within `ms` (it rejects as `promise` does); the timer keeps no process alive. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
