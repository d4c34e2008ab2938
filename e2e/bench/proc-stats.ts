/**
 * Memory and CPU time of another process, read from Linux's /proc as `ps`
 * and `top` do: the controller under test is measured from the outside, so
 * the measuring costs it nothing.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface ProcessUsage {
  /** Resident set size now (VmRSS). */
  readonly rssBytes: number;
  /** The highest resident set size so far (VmHWM). */
  readonly peakRssBytes: number;
  /** User plus system CPU time so far. */
  readonly cpuSeconds: number;
}

/** A `kB` figure of /proc/<pid>/status, in bytes. */
export function statusBytes(status: string, field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (match?.[1] === undefined) throw new Error(`no ${field} in /proc/<pid>/status`);
  return Number(match[1]) * 1024;
}

/**
 * utime + stime of /proc/<pid>/stat, in clock ticks. The fields are counted
 * after the command name's closing parenthesis, since the name itself may
 * hold spaces and parentheses.
 */
export function cpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error("unreadable /proc/<pid>/stat");
  return utime + stime;
}

let ticksPerSecond: number | undefined;

export function processUsage(pid: number): ProcessUsage {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return {
    rssBytes: statusBytes(status, "VmRSS"),
    peakRssBytes: statusBytes(status, "VmHWM"),
    cpuSeconds: cpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) / ticksPerSecond,
  };
}
