// The reaper outlives the process that started the test servers. It reads
// commands on stdin and, when stdin closes (its owner exited, however it
// died, SIGKILL included), kills every process group and removes every
// directory still registered. It is plain JavaScript so that it runs with
// nothing but node, from source or from dist.
//
//   pid <n>     watch process group <n>      unpid <n>   forget it
//   dir <path>  remove <path> at the end     undir <path> forget it
import { rmSync } from "node:fs";
import { createInterface } from "node:readline";

const groups = new Set();
const dirs = new Set();
const commands = {
  pid: (arg) => groups.add(Number(arg)),
  unpid: (arg) => groups.delete(Number(arg)),
  dir: (arg) => dirs.add(arg),
  undir: (arg) => dirs.delete(arg),
};

function signal(pgid, sig) {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

function alive(pgid) {
  return signal(pgid, 0);
}

async function reap() {
  for (const pgid of groups) signal(pgid, "SIGTERM");
  const deadline = Date.now() + 5000;
  while ([...groups].some(alive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pgid of groups) signal(pgid, "SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const space = line.indexOf(" ");
  commands[line.slice(0, space)]?.(line.slice(space + 1));
});
lines.on("close", () => void reap());
