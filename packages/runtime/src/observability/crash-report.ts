/**
 * What an uncaught error leaves behind. Node's own report prints the error
 * with `util.inspect` to stderr: every enumerable field and the whole cause
 * chain, unscrubbed, so a crash could write a credential an error carried
 * (a request's headers, a regular expression built from a value) where
 * logs are collected. This report goes through the logger instead, and so
 * through redaction, and then ends the process as Node would: after an
 * uncaught error its state is unknown, and a restart is the safe answer.
 *
 * Unhandled promise rejections reach the same handler (Node's default
 * `--unhandled-rejections=throw` turns them into uncaught exceptions).
 */
import type { Logger } from "pino";
import { noteContainedFailure } from "@edgeconnect/redaction";

/** The exit status of a process ended by an uncaught error, as Node's own. */
export const UNCAUGHT_ERROR_EXIT_CODE = 1;

/**
 * Reports uncaught errors through `logger` and ends the process with
 * `exit(1)`. Returns what removes the handler (tests; a process installs it
 * once, first thing).
 */
export function reportUncaughtErrors(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const report = (err: unknown, origin: NodeJS.UncaughtExceptionOrigin): void => {
    try {
      logger.fatal({ err, origin }, "uncaught error; the process ends");
    } catch {
      noteContainedFailure("log");
    }
    exit(UNCAUGHT_ERROR_EXIT_CODE);
  };
  process.on("uncaughtException", report);
  return () => process.off("uncaughtException", report);
}
