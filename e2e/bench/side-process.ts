/**
 * The benchmark's handle on a side under test in its own process (a Node
 * child, side-child.ts, over IPC; or the Go peer, over JSON lines on its
 * stdin and stdout): starts it with its configuration, forwards its status
 * writes with their times on this process's clock, asks it for its figures,
 * reads its memory and CPU from /proc, and stops it. A child that dies early
 * is an `error`, so the run fails instead of waiting for reconciles that will
 * never come.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { CHILD_CONFIG_ENV, fromEpoch, type ChildMessage, type ChildStats, type ParentMessage, type SideConfig } from "./child-protocol.js";
import { processUsage, type ProcessUsage } from "./proc-stats.js";

const CHILD = fileURLToPath(new URL("./side-child.js", import.meta.url));
/** How long a stopped child may take to exit before it is killed. */
const EXIT_GRACE_MS = 30_000;

export interface SideProcessOptions {
  readonly config: SideConfig;
  /** Each status write: `cluster|namespace/name`, the color written, and when (this process's `performance.now()`). */
  readonly onReconciled: (key: string, observed: string, at: number) => void;
}

export class SideProcess {
  private failure: Error | undefined;
  private stopping = false;
  // Who waits for the next message of each type, oldest first.
  private readonly waiting = new Map<ChildMessage["type"], ((message: ChildMessage) => void)[]>();
  private readonly exited: Promise<unknown>;
  /** When the first status write after the start came (this process's clock). */
  private firstReconciledAt = Number.NaN;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: SideProcessOptions,
    /** When the process was started (this process's clock). */
    readonly spawnedAt: number,
  ) {
    this.exited = once(child, "exit");
    if (options.config.side === "go" && child.stdout !== null) {
      // A write to a peer that has gone fails with EPIPE; its exit is what reports that.
      child.stdin?.on("error", () => undefined);
      createInterface({ input: child.stdout }).on("line", (line) => {
        try {
          this.receive(JSON.parse(line) as ChildMessage);
        } catch (err) {
          // Each line is a whole message; anything else on stdout is a bug of the peer.
          this.failure ??= new Error(`the Go peer wrote ${JSON.stringify(line)}: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
    } else {
      child.on("message", (message: ChildMessage) => this.receive(message));
    }
    child.on("exit", (code, signal) => {
      if (!this.stopping) this.failure ??= new Error(`the benchmark side ${options.config.side} (pid ${child.pid}) exited early: ${signal ?? `code ${code}`}`);
    });
  }

  /** Starts the side's process and resolves once it has loaded, before it watches anything. */
  static async spawn(options: SideProcessOptions): Promise<SideProcess> {
    const { config } = options;
    const spawnedAt = performance.now();
    const child =
      config.side === "go"
        ? spawn(
            config.binary,
            [
              `--kubeconfig=${config.kubeconfig}`,
              `--provider=${config.provider}`,
              `--workers=${config.workers}`,
              `--noisy-ms=${config.noisyReconcileMs}`,
            ],
            { stdio: ["pipe", "pipe", "inherit"] },
          )
        : fork(CHILD, [], {
            env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(config) },
            stdio: ["ignore", "inherit", "inherit", "ipc"],
          });
    const handle = new SideProcess(child, options, spawnedAt);
    await handle.next("ready");
    return handle;
  }

  /** Process start to the first status write: loading, connecting, syncing and one reconcile. NaN before any write. */
  get bootMs(): number {
    return this.firstReconciledAt - this.spawnedAt;
  }

  get pid(): number {
    const { pid } = this.child;
    if (pid === undefined) throw new Error("the benchmark side has no pid");
    return pid;
  }

  /** Why the child is gone, if it went before `stop`. */
  get error(): Error | undefined {
    return this.failure;
  }

  usage(): ProcessUsage {
    return processUsage(this.pid);
  }

  /** Starts the side; resolves with the time it watched everything (ours: its source had synced). */
  async start(): Promise<number> {
    const synced = this.next("synced");
    this.send({ type: "start" });
    return fromEpoch((await synced).at);
  }

  async stats(): Promise<ChildStats> {
    const reply = this.next("stats");
    this.send({ type: "stats" });
    const { heapUsedBytes, reconcileResults, noisyAttempts, watchErrors } = await reply;
    return { heapUsedBytes, reconcileResults, noisyAttempts, watchErrors };
  }

  /** Stops the side (ours: reconciles in flight see their signal abort) and waits for the process to exit. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.channelOpen()) this.send({ type: "stop" });
    this.child.stdin?.end();
    // Unref'd: the child keeps this process alive until it exits; a ref'd grace timer would hold the run for its whole 30 s after every stop.
    const exited = await Promise.race([this.exited.then(() => true), delay(EXIT_GRACE_MS, false, { ref: false })]);
    if (!exited) {
      this.child.kill("SIGKILL");
      await this.exited;
      throw new Error(`the benchmark side did not exit within ${EXIT_GRACE_MS / 1000} s of stop; killed`);
    }
  }

  private channelOpen(): boolean {
    return this.options.config.side === "go" ? this.child.stdin?.writable === true : this.child.connected;
  }

  private send(message: ParentMessage): void {
    if (this.options.config.side === "go") this.child.stdin?.write(`${JSON.stringify(message)}\n`);
    else this.child.send(message);
  }

  private next<K extends ChildMessage["type"]>(type: K): Promise<Extract<ChildMessage, { type: K }>> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(type) ?? [];
      this.waiting.set(type, list);
      // Messages are routed by their type, so this one is of type K.
      list.push((message) => resolve(message as Extract<ChildMessage, { type: K }>));
      void this.exited.then(() => reject(this.failure ?? new Error(`the benchmark side exited before "${type}"`)));
    });
  }

  private receive(message: ChildMessage): void {
    if (message.type === "reconciled") {
      for (const [key, observed, at] of message.batch) {
        const here = fromEpoch(at);
        if (Number.isNaN(this.firstReconciledAt)) this.firstReconciledAt = here;
        this.options.onReconciled(key, observed, here);
      }
      return;
    }
    this.waiting.get(message.type)?.shift()?.(message);
  }
}
