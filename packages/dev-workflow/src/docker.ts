/** Targets that need Docker ask it first, and stop with a message when it does not answer. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { UsageError } from "./variables.js";

const run = promisify(execFile);

/** Undefined when `docker info` answers; else why not, in one line. */
export async function dockerProblem(docker = "docker"): Promise<string | undefined> {
  try {
    await run(docker, ["info", "--format", "{{.ServerVersion}}"], { timeout: 20_000 });
    return undefined;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split("\n").find((line) => line.trim() !== "");
    const code = (err as { code?: string }).code;
    return (stderr?.replace(/\.$/, "")) ?? (code === "ENOENT" ? `${docker} is not installed` : err instanceof Error ? err.message : String(err));
  }
}

/** Throws the message a user sees when `target` cannot run here: nothing has been done yet. */
export async function requireDocker(target: string, instead: string, docker = "docker"): Promise<void> {
  const problem = await dockerProblem(docker);
  if (problem !== undefined) throw new UsageError(`${target} needs Docker, and \`docker info\` failed: ${problem}. Nothing was done. ${instead}`);
}
