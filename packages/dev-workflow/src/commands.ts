/** Other programs a target runs (kind, helm, docker, the controller), with their output shown to the user. */
import { spawn } from "node:child_process";

export interface RunOptions {
  readonly signal: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs `command` with the user's terminal; resolves on exit 0, rejects with the exit status otherwise. Ctrl-C stops it too. */
export function runCommand(command: string, args: readonly string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env: options.env ?? process.env });
    const stop = (): void => {
      child.kill("SIGTERM");
    };
    options.signal.addEventListener("abort", stop, { once: true });
    child.once("error", (err) => {
      options.signal.removeEventListener("abort", stop);
      reject((err as NodeJS.ErrnoException).code === "ENOENT" ? new Error(`${command} is not installed (not on PATH)`) : err);
    });
    child.once("exit", (code, signal) => {
      options.signal.removeEventListener("abort", stop);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args[0] ?? ""} ended with ${signal ?? `exit status ${String(code)}`}`));
    });
  });
}
