/**
 * Preloaded (`node --import`) into a program run with `--help` by the boot
 * benchmark: every static import of the program is evaluated before its
 * main function prints the usage and returns, so the time of exit is what
 * loading the program costs (usage printing is negligible). Writes one line
 * to stderr: `boot-load-probe {"sinceProcessStartMs":…,"cpuMs":…,"undici":…}`,
 * the time since the process started (performance.timeOrigin), its CPU
 * time, and whether Node's undici was loaded (tens of milliseconds that an
 * `import` of node:http costs; see kcp-ts' rest-client.ts).
 */
import { PROBE_PREFIX } from "./boot-probe-line.js";

/** Node's list of the builtins loaded so far; not in its type definitions. */
const { moduleLoadList } = process as unknown as { readonly moduleLoadList: readonly string[] };

process.on("exit", () => {
  const cpu = process.cpuUsage();
  process.stderr.write(`${PROBE_PREFIX}${JSON.stringify({ sinceProcessStartMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000, undici: moduleLoadList.some((name) => name.includes("undici")) })}\n`);
});
