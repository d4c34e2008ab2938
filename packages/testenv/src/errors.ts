/**
 * Errors of the test environment, each named after the step that failed. None
 * is retried by the environment itself: they end a test run with a message
 * that says what to do.
 */
import type { ExitStatus } from "./server-process.js";

/** An error that no amount of waiting fixes: `eventually` rethrows it at once. */
export class FatalError extends Error {}

/** A server binary is neither given, on PATH at the pinned version, nor buildable. */
export class BinaryUnavailableError extends FatalError {
  override readonly name = "BinaryUnavailableError";
}

/** A server process ended while it was expected to run. */
export class ServerExitedError extends FatalError {
  override readonly name = "ServerExitedError";

  constructor(
    readonly server: string,
    readonly status: ExitStatus | undefined,
    readonly logTail: string,
  ) {
    const how = status === undefined ? "could not be started" : `exited (code ${status.code}, signal ${status.signal})`;
    super(`${server} ${how}; last log lines:\n${logTail}`);
  }
}

/** A condition polled by `eventually` did not hold in time. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

