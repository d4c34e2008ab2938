/**
 * Exits of processes a test relies on (the provider-controller, the
 * Crossplane OTC provider simulator: each `ServerProcess.watchExit()`) that
 * their owner did not ask for. Once one of them has died, every wait of this
 * process (`eventually`) ends at once with its ServerExitedError, naming the
 * process, its exit and its last log lines, instead of polling until its
 * timeout for a condition that nothing will make true any more. Stopping or
 * killing that process (as a test does before it starts another) withdraws
 * its exit.
 *
 * One registry per module instance: per test file under Jest, per process
 * elsewhere.
 */
import type { ServerExitedError } from "./errors.js";

const exits = new Map<object, ServerExitedError>();
let current = new AbortController();

/** Aborted, with the ServerExitedError as its reason, while a watched process has died unasked. */
export function unexpectedExitSignal(): AbortSignal {
  return current.signal;
}

export function reportUnexpectedExit(process: object, error: ServerExitedError): void {
  exits.set(process, error);
  if (!current.signal.aborted) current.abort(error);
}

/** The owner stopped or killed `process`: its exit, if any, no longer ends waits. */
export function withdrawUnexpectedExit(process: object): void {
  if (!exits.delete(process)) return;
  current = new AbortController();
  const [next] = exits.values();
  if (next !== undefined) current.abort(next);
}
