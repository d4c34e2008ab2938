/**
 * One long-running server binary (kcp, etcd, kube-apiserver) in its own
 * process group, its output in a log file. Owns start and stop of that one
 * process; readiness is the caller's concern.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { ServerExitedError } from "./errors.js";
import type { Reaper } from "./reaper.js";
import { reportUnexpectedExit, withdrawUnexpectedExit } from "./unexpected-exits.js";

export interface ServerProcessOptions {
  /** Name used in errors, e.g. "kcp". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** File that receives stdout and stderr; appended to. */
  readonly logFile: string;
  readonly cwd?: string;
  readonly reaper?: Reaper;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class ServerProcess {
  readonly exited: Promise<ExitStatus>;
  private exitStatus: ExitStatus | undefined;
  /** Set by `watchExit`: an exit nobody asked for ends every wait (see unexpected-exits.ts). */
  private watched = false;
  /** `stop` or `kill` was called: the exit that follows is the owner's doing. */
  private stopping = false;

  private constructor(
    private readonly options: ServerProcessOptions,
    private readonly child: ChildProcess,
    /** Where this process's lines begin in a log file that earlier processes wrote to as well. */
    private readonly logOffset: number,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitStatus = { code, signal };
        if (this.watched && !this.stopping) this.reportExit();
        resolve(this.exitStatus);
      });
    });
  }

  static start(options: ServerProcessOptions): ServerProcess {
    const log = openSync(options.logFile, "a");
    try {
      const logOffset = fstatSync(log).size;
      const child = spawn(options.command, [...options.args], {
        cwd: options.cwd,
        // A process group of its own: stop() signals the whole group, and the
        // reaper can do the same after this process is gone.
        detached: true,
        stdio: ["ignore", log, log],
      });
      const server = new ServerProcess(options, child, logOffset);
      child.once("error", () => undefined);
      if (child.pid !== undefined) options.reaper?.watchProcessGroup(child.pid);
      return server;
    } finally {
      closeSync(log);
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitStatus === undefined && this.child.pid !== undefined;
  }

  /** Throws ServerExitedError (with the log's tail) if the process has ended. */
  assertRunning(): void {
    if (this.child.pid === undefined || this.exitStatus !== undefined) {
      throw new ServerExitedError(this.options.name, this.exitStatus, this.logTail());
    }
  }

  /**
   * From now on, an exit that neither `stop` nor `kill` asked for ends every
   * wait (`eventually`) at once with this process's ServerExitedError. Called
   * once the process serves: a launch that fails on a taken port is retried
   * (`startOnFreePorts`), not reported.
   */
  watchExit(): void {
    this.watched = true;
    if (!this.running && !this.stopping) this.reportExit();
  }

  private reportExit(): void {
    reportUnexpectedExit(this, new ServerExitedError(this.options.name, this.exitStatus, this.logTail()));
  }

  /** The last lines this process wrote to its log, for error messages. */
  logTail(lines = 30): string {
    try {
      return readFileSync(this.options.logFile).subarray(this.logOffset).toString("utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  }

  /** SIGKILL to the group at once, as a crash or an OOM kill ends a process: nothing runs on the way out. */
  async kill(): Promise<void> {
    this.stopping = true;
    withdrawUnexpectedExit(this);
    const pid = this.child.pid;
    if (pid === undefined) return;
    signalGroup(pid, "SIGKILL");
    await this.exited;
    this.options.reaper?.forgetProcessGroup(pid);
  }

  /** SIGTERM to the group, then SIGKILL after `graceMs`. Idempotent. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    withdrawUnexpectedExit(this);
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (this.running) {
      signalGroup(pid, "SIGTERM");
      const timer = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
      if ((await Promise.race([this.exited, timer])) === "timeout") signalGroup(pid, "SIGKILL");
      await this.exited;
    }
    // Children of the server (none expected) go with the group.
    signalGroup(pid, "SIGKILL");
    this.options.reaper?.forgetProcessGroup(pid);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}
