import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachePath, compatModules, requiredVersion, resolveBinary, wrapperDir } from "./binaries.js";
import { BinaryUnavailableError } from "./errors.js";

const GO_MOD = `module wrapper

go 1.24.0

require go.etcd.io/etcd/server/v3 v3.6.8

replace (
\tgo.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 v3.6.8
)
`;

describe("requiredVersion", () => {
  it("reads a single-line require", () => {
    expect(requiredVersion(GO_MOD, "go.etcd.io/etcd/server/v3")).toBe("v3.6.8");
  });

  it("reads a require block and ignores // indirect", () => {
    const goMod = "require (\n\tk8s.io/kubernetes v1.36.0 // indirect\n\tgithub.com/kcp-dev/kcp v0.32.3\n)\n";
    expect(requiredVersion(goMod, "k8s.io/kubernetes")).toBe("v1.36.0");
    expect(requiredVersion(goMod, "github.com/kcp-dev/kcp")).toBe("v0.32.3");
  });

  it("does not take the left side of a replace for a requirement", () => {
    expect(requiredVersion(GO_MOD, "go.etcd.io/etcd/api/v3")).toBeUndefined();
  });
});

describe("compatModules", () => {
  it("finds replaces that point into .cache/go-src", () => {
    const goMod = "replace (\n\tgithub.com/kcp-dev/virtual-workspace-framework => ../../../.cache/go-src/virtual-workspace-framework@v0.31.2\n\tk8s.io/api => k8s.io/api v0.34.2\n)\n";
    expect(compatModules(goMod, "/repo/scripts/binaries/kcp")).toEqual([
      {
        module: "github.com/kcp-dev/virtual-workspace-framework",
        id: "virtual-workspace-framework@v0.31.2",
        version: "v0.31.2",
        target: "/repo/.cache/go-src/virtual-workspace-framework@v0.31.2",
      },
    ]);
  });
});

describe("resolveBinary", () => {
  let repo: string;
  let bin: string;

  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "binaries-test-"));
    bin = join(repo, "bin");
    mkdirSync(bin);
    mkdirSync(wrapperDir("etcd", repo), { recursive: true });
    writeFileSync(join(wrapperDir("etcd", repo), "go.mod"), GO_MOD);
    writeFileSync(join(wrapperDir("etcd", repo), "go.sum"), "");
  });

  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  function fakeEtcd(path: string, version: string): void {
    writeFileSync(path, `#!/bin/sh\necho "etcd Version: ${version}"\n`);
    chmodSync(path, 0o755);
  }

  it("takes the environment variable first, as is", async () => {
    fakeEtcd(join(bin, "given"), "0.0.1");
    const found = await resolveBinary("etcd", { repoRoot: repo, env: { ETCD_BIN: join(bin, "given"), PATH: "" }, build: false });
    expect(found).toMatchObject({ path: join(bin, "given"), source: "env", version: "v3.6.8" });
  });

  it("rejects an environment variable naming a missing file", async () => {
    await expect(resolveBinary("etcd", { repoRoot: repo, env: { ETCD_BIN: join(bin, "nope") }, build: false })).rejects.toBeInstanceOf(
      BinaryUnavailableError,
    );
  });

  it("uses a PATH binary only at the pinned version", async () => {
    fakeEtcd(join(bin, "etcd"), "3.6.8");
    const found = await resolveBinary("etcd", { repoRoot: repo, env: { PATH: bin }, build: false });
    expect(found).toMatchObject({ path: join(bin, "etcd"), source: "path" });

    fakeEtcd(join(bin, "etcd"), "3.4.23");
    await expect(resolveBinary("etcd", { repoRoot: repo, env: { PATH: bin }, build: false })).rejects.toThrow(
      /etcd v3.6.8 not found: set ETCD_BIN/,
    );
  });

  it("finds the cached build, keyed by the wrapper's files", async () => {
    const cached = cachePath("etcd", "v3.6.8", wrapperDir("etcd", repo), repo);
    mkdirSync(join(cached, ".."), { recursive: true });
    fakeEtcd(cached, "3.6.8");
    expect(await resolveBinary("etcd", { repoRoot: repo, env: { PATH: "" }, build: false })).toMatchObject({ path: cached, source: "cache" });

    writeFileSync(join(wrapperDir("etcd", repo), "go.sum"), "changed\n");
    expect(cachePath("etcd", "v3.6.8", wrapperDir("etcd", repo), repo)).not.toBe(cached);
  });
});
