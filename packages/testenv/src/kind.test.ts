import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { infraModeFromEnv } from "./environment.js";
import { kindAvailability } from "./kind.js";

describe("kindAvailability", () => {
  let bin: string;
  const originalPath = process.env.PATH;

  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), "kind-test-"));
    process.env.PATH = `${bin}:${originalPath ?? ""}`;
  });

  afterEach(() => {
    process.env.PATH = originalPath;
    rmSync(bin, { recursive: true, force: true });
  });

  function fake(name: string, script: string): void {
    writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, name), 0o755);
  }

  it("is unavailable, saying why, when docker info cannot reach an engine", async () => {
    fake("docker", 'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock" >&2; exit 1');
    expect(await kindAvailability(join(bin, "kind"))).toEqual({
      available: false,
      reason: "docker info failed (Cannot connect to the Docker daemon at unix:///var/run/docker.sock)",
    });
  });

  it("is unavailable when docker works but kind is missing", async () => {
    fake("docker", "exit 0");
    const availability = await kindAvailability(join(bin, "kind"));
    expect(availability.available).toBe(false);
  });

  it("is available when both answer", async () => {
    fake("docker", "exit 0");
    fake("kind", "echo kind v0.31.0");
    expect(await kindAvailability(join(bin, "kind"))).toEqual({ available: true });
  });
});

describe("infraModeFromEnv", () => {
  it("defaults to the local kube-apiserver", () => {
    expect(infraModeFromEnv({})).toBe("kube-apiserver");
  });

  it("accepts kind and rejects anything else", () => {
    expect(infraModeFromEnv({ EDGECONNECT_E2E_INFRA: "kind" })).toBe("kind");
    expect(() => infraModeFromEnv({ EDGECONNECT_E2E_INFRA: "k3d" })).toThrow(/must be kube-apiserver or kind/);
  });
});
