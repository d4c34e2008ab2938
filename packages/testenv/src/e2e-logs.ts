/**
 * Where tests keep the output of processes they start, so that the e2e
 * run's credential guard reads it: `$EDGECONNECT_E2E_LOG_DIR`, set by the e2e
 * project's global setup. Outside that project nothing is kept.
 *
 * Next to it, not in it, the credentials a run generated (a Platform's
 * tenant passwords, the chaos run's generated input): the guard searches
 * the logs for them. Not in the log directory, which the guard scans as
 * text: there the records would be found as leaks of themselves.
 */
import { appendFileSync, createWriteStream, mkdirSync, readdirSync, readFileSync, writeFileSync, type WriteStream } from "node:fs";
import { basename, dirname, join } from "node:path";

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

/** A credential a run generated, for the guard to search for: `origin` names it in findings, never `value`. */
export interface RecordedCredential {
  readonly origin: string;
  readonly value: string;
}

/** The directory of the credentials records that belongs to the log directory `logDir` (a sibling of it); undefined without one. */
export function e2eCredentialsDir(logDir: string | undefined = process.env[E2E_LOG_DIR_ENV_VAR]): string | undefined {
  return logDir === undefined || logDir === "" ? undefined : join(dirname(logDir), `${basename(logDir)}-credentials`);
}

/**
 * Records credentials the caller generated as `<name>.json` (mode 0600) in
 * the run's credentials directory, replacing an earlier record of that
 * name; a no-op outside the e2e project. Returns the file, if written.
 */
export function recordE2eCredentials(name: string, credentials: readonly RecordedCredential[], logDir?: string): string | undefined {
  const dir = e2eCredentialsDir(logDir);
  if (dir === undefined) return undefined;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, "-")}.json`);
  writeFileSync(path, JSON.stringify(credentials), { mode: 0o600 });
  return path;
}

/** Every credential recorded in `dir` (`recordE2eCredentials`); none when it does not exist. */
export function recordedE2eCredentials(dir: string | undefined): RecordedCredential[] {
  if (dir === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  return names.flatMap((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as RecordedCredential[]);
}
