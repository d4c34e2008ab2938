import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FatalError, ServerExitedError, TimeoutError } from "./errors.js";
import { eventually } from "./eventually.js";
import { ServerProcess } from "./server-process.js";

describe("eventually", () => {
  it("returns the value once the condition holds", async () => {
    let calls = 0;
    const value = await eventually(() => (++calls === 3 ? [true, "done"] : [false, `call ${calls}`]), { intervalMs: 1 });
    expect(value).toBe("done");
    expect(calls).toBe(3);
  });

  it("treats a thrown error as not yet", async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        if (++calls < 2) throw new Error("connection refused");
        return [true, calls];
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(2);
  });

  it("reports the last reason when it times out", async () => {
    let calls = 0;
    const waiting = eventually(() => [false, `attempt ${++calls}`], { timeoutMs: 30, intervalMs: 5, description: "widget ready" });
    await expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    await expect(waiting).rejects.toThrow(new RegExp(`widget ready did not hold within 30 ms: attempt \\d+`));
  });

  it("stops at once on a FatalError", async () => {
    let calls = 0;
    const waiting = eventually(
      () => {
        calls++;
        throw new FatalError("server exited");
      },
      { timeoutMs: 10_000, intervalMs: 1 },
    );
    await expect(waiting).rejects.toThrow("server exited");
    expect(calls).toBe(1);
  });

  describe("with a watched process", () => {
    let dir: string;
    let server: ServerProcess | undefined;
    afterEach(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A process that says something and exits with code 3 after `seconds`. */
    function shortLived(seconds: number): ServerProcess {
      dir = mkdtempSync(join(tmpdir(), "eventually-test-"));
      return ServerProcess.start({ name: "short-lived", command: "sh", args: ["-c", `echo about to die; sleep ${seconds}; exit 3`], logFile: join(dir, "log") });
    }

    it("ends at once, naming the process and its exit, when it dies unasked, even while a check hangs", async () => {
      server = shortLived(0.3);
      server.watchExit();
      const started = Date.now();
      // A check that never answers, as a request to a dead server's port may not.
      const waiting = eventually(() => new Promise<readonly [true, undefined]>(() => undefined), { timeoutMs: 20_000, description: "an answer" });
      await expect(waiting).rejects.toBeInstanceOf(ServerExitedError);
      await expect(waiting).rejects.toThrow(/^short-lived exited \(code 3, signal null\); last log lines:\nabout to die$/);
      expect(Date.now() - started).toBeLessThan(5_000);
      // Every later wait ends the same way until the owner stops the process.
      await expect(eventually(() => [true, "ok"])).rejects.toBeInstanceOf(ServerExitedError);
      await server.stop();
      await expect(eventually(() => [true, "ok"])).resolves.toBe("ok");
    }, 15_000);

    it("reports an exit that came before the watch began", async () => {
      server = shortLived(0);
      await server.exited;
      server.watchExit();
      await expect(eventually(() => [false, "never"], { timeoutMs: 20_000 })).rejects.toThrow(/short-lived exited \(code 3/);
    }, 15_000);

    it("leaves waits alone when the owner stops or kills the process", async () => {
      server = shortLived(300);
      server.watchExit();
      await server.kill();
      await expect(eventually(() => [false, "still waiting"], { timeoutMs: 50, intervalMs: 5 })).rejects.toBeInstanceOf(TimeoutError);
    });
  });
});
