/**
 * Where tests keep the output of processes they start, so that the e2e
 * run's credential guard reads it: `$EDGECONNECT_E2E_LOG_DIR`, set by the e2e
 * project's global setup. Outside that project nothing is kept.
 */
import { appendFileSync, createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";

export const E2E_LOG_DIR_ENV_VAR = "EDGECONNECT_E2E_LOG_DIR";

/** Appends `text` to the run's log `<name>.log`; a no-op outside the e2e project. */
export function keepE2eLog(name: string, text: string): void {
  const path = logPath(name);
  if (path !== undefined) appendFileSync(path, text);
}

/** A stream into the run's log `<name>.log` (an in-process logger's destination), or undefined outside the e2e project. */
export function e2eLogStream(name: string): WriteStream | undefined {
  const path = logPath(name);
  return path === undefined ? undefined : createWriteStream(path, { flags: "a" });
}

function logPath(name: string): string | undefined {
  const dir = process.env[E2E_LOG_DIR_ENV_VAR];
  return dir === undefined || dir === "" ? undefined : join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, "-")}.log`);
}
