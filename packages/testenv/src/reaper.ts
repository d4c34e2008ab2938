/**
 * The client side of `reaper.mjs`: a guard process that cleans up servers and
 * temporary directories if this process dies before it can do so itself.
 *
 * Registration is best effort by design: a normal shutdown never needs the
 * reaper, and a dead reaper only loses the crash-time cleanup.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../reaper.mjs", import.meta.url));

export class Reaper {
  private constructor(private readonly child: ChildProcess) {}

  /** Starts a reaper owned by the current process. */
  static start(): Reaper {
    const child = spawn(process.execPath, [script], {
      // Its own process group, so a Ctrl-C aimed at the test runner does not
      // take the reaper down before it has done its job.
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.unref();
    return new Reaper(child);
  }

  watchProcessGroup(pgid: number): void {
    this.send(`pid ${pgid}`);
  }

  forgetProcessGroup(pgid: number): void {
    this.send(`unpid ${pgid}`);
  }

  removeOnExit(dir: string): void {
    this.send(`dir ${dir}`);
  }

  forgetDirectory(dir: string): void {
    this.send(`undir ${dir}`);
  }

  /** Ends the reaper; it then cleans whatever is still registered and exits. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    // Unref'd at start so that it never holds a process open; while we wait
    // for it, it must.
    this.child.ref();
    this.child.stdin?.end();
    await exited;
  }

  private send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }
}
