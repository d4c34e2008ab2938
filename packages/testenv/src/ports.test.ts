import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { BIND_ATTEMPTS, freePort, startOnFreePorts } from "./ports.js";
import { ServerProcess } from "./server-process.js";

/** A real process that listens on `port` and says so, or dies as servers do when the port is taken. */
const LISTENER = `
const fail = (err) => { console.error("listen failed: " + err.message); process.exit(1); };
const server = require("node:net").createServer();
server.on("error", fail);
try { server.listen(Number(process.argv[1]), "127.0.0.1", () => console.log("listening")); } catch (err) { fail(err); }
`;

describe("startOnFreePorts", () => {
  let dir: string;
  let taken: Server;
  let takenPort: number;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "edgeconnect-ports-"));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    takenPort = (taken.address() as { port: number }).port;
  });

  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop()));
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A server whose launches take their ports from `ports`, in turn, all logging into one file. */
  function listenerOn(ports: () => Promise<number>, logFile = join(dir, "listener.log")) {
    const launched: number[] = [];
    return {
      launched,
      start: {
        launch: async () => {
          const port = await ports();
          launched.push(port);
          const process = ServerProcess.start({ name: "listener", command: globalThis.process.execPath, args: ["-e", LISTENER, String(port)], logFile });
          running.push(process);
          return process;
        },
        ready: (process: ServerProcess) =>
          eventually(
            () => {
              process.assertRunning();
              return [process.logTail().includes("listening"), "not listening yet"];
            },
            { timeoutMs: 10_000, description: "listener" },
          ),
        processOf: (process: ServerProcess) => process,
      },
    };
  }

  it("launches again on fresh ports when the first ones were taken before the server bound them", async () => {
    let calls = 0;
    const { start, launched } = listenerOn(async () => (calls++ === 0 ? takenPort : freePort()));
    const process = await startOnFreePorts(start);
    expect(launched).toHaveLength(2);
    expect(launched[0]).toBe(takenPort);
    expect(process.running).toBe(true);
  });

  it("gives up after BIND_ATTEMPTS launches whose ports were all taken, with the server's own words", async () => {
    const { start, launched } = listenerOn(async () => takenPort);
    await expect(startOnFreePorts(start)).rejects.toThrow(/address already in use/);
    expect(launched).toHaveLength(BIND_ATTEMPTS);
  });

  it("throws any other failure at once, without a second launch", async () => {
    const { start, launched } = listenerOn(async () => 70_000);
    await expect(startOnFreePorts(start)).rejects.toThrow(/listen failed/);
    expect(launched).toHaveLength(1);
  });

  it("judges a launch by its own log lines, not by those of an earlier launch into the same file", async () => {
    const logFile = join(dir, "shared.log");
    let calls = 0;
    // The port clash is in the file when the second launch fails for another reason.
    const { start, launched } = listenerOn(async () => (calls++ === 0 ? takenPort : 70_000), logFile);
    await expect(startOnFreePorts(start)).rejects.toThrow(/listen failed/);
    expect(launched).toHaveLength(2);
  });
});
