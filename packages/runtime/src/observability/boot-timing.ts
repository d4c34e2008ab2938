/**
 * How long a process has been up, for the log lines that mark its boot
 * (modules loaded, caches synced, first reconcile): `performance.now()`
 * counts from the process's start (`performance.timeOrigin`), so these
 * figures need no clock shared with whoever reads them.
 */
export function sinceProcessStartMs(): number {
  return Math.round(performance.now());
}
