import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARIES, cachePath, compatModules, kubernetesVersion, requiredVersion, resolveBinary, wrapperDir } from "./binaries.js";
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

describe("kubernetesVersion", () => {
  it("prefers k8s.io/kubernetes", () => {
    expect(kubernetesVersion("require (\n\tk8s.io/client-go v0.37.0\n\tk8s.io/kubernetes v1.36.1\n)\n")).toBe("v1.36.1");
  });

  it("maps client-go v0.X.Y to Kubernetes v1.X.Y", () => {
    expect(kubernetesVersion("require (\n\tk8s.io/client-go v0.37.0\n)\n")).toBe("v1.37.0");
  });

  it("knows none without either, or for a pre-release client-go", () => {
    expect(kubernetesVersion(GO_MOD)).toBeUndefined();
    expect(kubernetesVersion("require k8s.io/client-go v0.38.0-alpha.1\n")).toBeUndefined();
  });
});

describe("BINARIES.helm", () => {
  const helm = BINARIES.helm;
  const pinned = { version: "v3.22.0" };

  it("accepts `helm version --short` of the pinned version only, with or without the commit", () => {
    expect(helm.matchesVersion("v3.22.0\n", pinned)).toBe(true);
    expect(helm.matchesVersion("v3.22.0+g1a2b3c4\n", pinned)).toBe(true);
    expect(helm.matchesVersion("v3.22.1\n", pinned)).toBe(false);
    expect(helm.matchesVersion("v3.22.01\n", pinned)).toBe(false);
    expect(helm.matchesVersion("v4.0.0\n", pinned)).toBe(false);
  });

  it("stamps the version like upstream's release builds, and the Kubernetes version when known", () => {
    expect(helm.ldflags(pinned)).toBe("-X helm.sh/helm/v3/internal/version.version=v3.22.0 -X helm.sh/helm/v3/internal/version.gitTreeState=clean");
    expect(helm.ldflags({ ...pinned, kubernetes: "v1.37.0" }).split(" -X ")).toEqual([
      "-X helm.sh/helm/v3/internal/version.version=v3.22.0",
      "helm.sh/helm/v3/internal/version.gitTreeState=clean",
      "helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1",
      "helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37",
      "helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1",
      "helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37",
    ]);
  });

  it("leaves the other binaries' stamping as it was", () => {
    expect(BINARIES.etcd.ldflags({ version: "v3.6.8", kubernetes: "v1.37.0" })).toBe("");
    expect(BINARIES["kube-apiserver"].ldflags({ version: "v1.34.2", kubernetes: "v1.34.2" })).toContain(
      "-X k8s.io/component-base/version.gitVersion=v1.34.2",
    );
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

  it("resolves helm through HELM_BIN and, at the pinned version, PATH", async () => {
    mkdirSync(wrapperDir("helm", repo), { recursive: true });
    writeFileSync(join(wrapperDir("helm", repo), "go.mod"), "module wrapper\n\ngo 1.26.0\n\nrequire helm.sh/helm/v3 v3.22.0\n");
    const fakeHelm = (path: string, version: string): void => {
      writeFileSync(path, `#!/bin/sh\n[ "$1 $2" = "version --short" ] && echo "${version}"\n`);
      chmodSync(path, 0o755);
    };
    fakeHelm(join(bin, "given-helm"), "v3.0.0");
    expect(await resolveBinary("helm", { repoRoot: repo, env: { HELM_BIN: join(bin, "given-helm"), PATH: "" }, build: false })).toMatchObject({
      source: "env",
      version: "v3.22.0",
    });
    fakeHelm(join(bin, "helm"), "v3.22.0+g1a2b3c4");
    expect(await resolveBinary("helm", { repoRoot: repo, env: { PATH: bin }, build: false })).toMatchObject({ path: join(bin, "helm"), source: "path" });
    fakeHelm(join(bin, "helm"), "v3.21.3+g0000000");
    await expect(resolveBinary("helm", { repoRoot: repo, env: { PATH: bin }, build: false })).rejects.toThrow(
      /helm v3.22.0 not found: set HELM_BIN/,
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
