import { describe, expect, it } from "@jest/globals";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dockerProblem, requireDocker } from "./docker.js";
import { UsageError } from "./variables.js";

function fakeDocker(script: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "fake-docker-")), "docker");
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("docker", () => {
  it("is usable when `docker info` answers", async () => {
    expect(await dockerProblem(fakeDocker('[ "$1" = info ] && echo 28.2.2'))).toBeUndefined();
  });

  it("gives the daemon's first line when `docker info` fails", async () => {
    const docker = fakeDocker("echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2; exit 1");
    expect(await dockerProblem(docker)).toBe("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?");
  });

  it("says when there is no docker at all", async () => {
    expect(await dockerProblem(join(tmpdir(), "no-such-docker"))).toBe(`${join(tmpdir(), "no-such-docker")} is not installed`);
  });

  it("stops a target with what to do instead", async () => {
    await expect(requireDocker("docker-build", "Build it elsewhere.", fakeDocker("exit 1"))).rejects.toThrow(UsageError);
    await expect(requireDocker("docker-build", "Build it elsewhere.", fakeDocker("echo down >&2; exit 1"))).rejects.toThrow(
      "docker-build needs Docker, and `docker info` failed: down. Nothing was done. Build it elsewhere.",
    );
  });
});
