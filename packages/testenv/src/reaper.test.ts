import { afterEach, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "./eventually.js";
import { Reaper } from "./reaper.js";
import { ServerProcess } from "./server-process.js";

const reaperScript = fileURLToPath(new URL("../reaper.mjs", import.meta.url));

/** Whether any process of the group still runs; zombies awaiting their reaper do not count. */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command: state ppid pgrp ...
      const [state, , pgrp] = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

describe("ServerProcess", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("stops the whole process group, escalating to SIGKILL after the grace period", async () => {
    dir = mkdtempSync(join(tmpdir(), "server-process-test-"));
    // A server that ignores SIGTERM and has a child of its own.
    const server = ServerProcess.start({
      name: "stubborn",
      command: "sh",
      args: ["-c", "trap '' TERM; sleep 300 & echo started; wait"],
      logFile: join(dir, "log"),
    });
    const pid = server.pid;
    if (pid === undefined) throw new Error("not started");
    await eventually(() => (server.logTail().includes("started") ? [true, undefined] : [false, "no output yet"]), { intervalMs: 10 });
    await server.stop(200);
    expect(server.running).toBe(false);
    // SIGKILL is sent to the group; on a loaded machine its members take a moment to finish dying.
    await eventually(() => (groupAlive(pid) ? [false, "the group still runs"] : [true, undefined]), { timeoutMs: 5_000, intervalMs: 20 });
    expect(() => server.assertRunning()).toThrow(/stubborn exited .*\nstarted/);
  });
});

describe("Reaper", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("kills registered process groups and removes directories when its owner is SIGKILLed", async () => {
    dir = mkdtempSync(join(tmpdir(), "reaper-test-"));
    const leftover = join(dir, "server-state");
    mkdirSync(leftover);
    // The owner starts a reaper and a detached server, registers both, then
    // reports the server's pid and waits to be killed.
    const owner = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { spawn } from "node:child_process";
         const reaper = spawn(process.execPath, [${JSON.stringify(reaperScript)}], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
         const server = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
         reaper.stdin.write("pid " + server.pid + "\\ndir " + ${JSON.stringify(leftover)} + "\\n");
         console.log(server.pid);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const serverPid = await new Promise<number>((resolve) => owner.stdout.once("data", (data: Buffer) => resolve(Number(String(data).trim()))));
    expect(groupAlive(serverPid)).toBe(true);

    owner.kill("SIGKILL");

    await eventually(() => (groupAlive(serverPid) ? [false, "server still running"] : [true, undefined]), { timeoutMs: 10_000, intervalMs: 50 });
    await eventually(() => (existsSync(leftover) ? [false, "directory still there"] : [true, undefined]), { timeoutMs: 10_000, intervalMs: 50 });
  });

  it("leaves forgotten processes and directories alone on a normal close", async () => {
    dir = mkdtempSync(join(tmpdir(), "reaper-test-"));
    const server = ServerProcess.start({ name: "sleeper", command: "sleep", args: ["300"], logFile: join(dir, "log") });
    const pid = server.pid;
    if (pid === undefined) throw new Error("not started");
    const reaper = Reaper.start();
    reaper.watchProcessGroup(pid);
    reaper.removeOnExit(dir);
    reaper.forgetProcessGroup(pid);
    reaper.forgetDirectory(dir);
    await reaper.close();
    expect(groupAlive(pid)).toBe(true);
    expect(existsSync(dir)).toBe(true);
    await server.stop();
  });
});
