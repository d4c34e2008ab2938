import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARIES, cachePath, compatModules, kubernetesVersion, linkFlags, requiredVersion, resolveBinary, wrapperDir } from "./binaries.js";
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

describe("linkFlags", () => {
  it("strips every build, stamped or not", () => {
    expect(linkFlags("")).toBe("-s -w");
    expect(linkFlags("-X a.b=c")).toBe("-X a.b=c -s -w");
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

  it("waits for a build another process holds the lock of, and takes its result instead of building again", async () => {
    const cached = cachePath("etcd", "v3.6.8", wrapperDir("etcd", repo), repo);
    mkdirSync(join(cached, ".."), { recursive: true });
    // A live owner (this process) holds the lock: the caller must wait, not build.
    writeFileSync(`${cached}.lock`, String(process.pid));
    const resolving = resolveBinary("etcd", { repoRoot: repo, env: { PATH: "" } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    fakeEtcd(cached, "3.6.8");
    rmSync(`${cached}.lock`);
    expect(await resolving).toMatchObject({ path: cached, source: "cache" });
    expect(existsSync(`${cached}.lock`)).toBe(false);
  });

  describe("Cluster API managers", () => {
    const CAPI_GO_MOD = "module wrapper\n\ngo 1.26.0\n\nrequire (\n\tsigs.k8s.io/cluster-api v1.14.2\n\tsigs.k8s.io/cluster-api/api v1.14.2\n)\n";
    const DEV_GO_MOD = CAPI_GO_MOD.replace(")\n", "\tsigs.k8s.io/cluster-api/test v1.14.2\n)\n");

    beforeEach(() => {
      for (const [name, goMod] of [
        ["capi-core", CAPI_GO_MOD],
        ["capi-dev", DEV_GO_MOD],
        ["capi-operator", "module wrapper\n\ngo 1.26.6\n\nrequire sigs.k8s.io/cluster-api-operator v0.29.0\n"],
      ] as const) {
        mkdirSync(wrapperDir(name, repo), { recursive: true });
        writeFileSync(join(wrapperDir(name, repo), "go.mod"), goMod);
      }
    });

    it("share one wrapper for the three managers of the cluster-api module, each cached under its own name", () => {
      expect(wrapperDir("capi-core", repo)).toBe(join(repo, "scripts", "binaries", "cluster-api"));
      expect(wrapperDir("capi-kubeadm-bootstrap", repo)).toBe(wrapperDir("capi-core", repo));
      expect(wrapperDir("capi-kubeadm-control-plane", repo)).toBe(wrapperDir("capi-core", repo));
      expect(wrapperDir("capi-dev", repo)).toBe(join(repo, "scripts", "binaries", "cluster-api-dev"));
      expect(wrapperDir("capi-operator", repo)).toBe(join(repo, "scripts", "binaries", "cluster-api-operator"));
      const dir = wrapperDir("capi-core", repo);
      expect(cachePath("capi-core", "v1.14.2", dir, repo)).toMatch(/\/\.cache\/bin\/capi-core-v1\.14\.2-[0-9a-f]{12}\/capi-core$/);
      expect(cachePath("capi-kubeadm-bootstrap", "v1.14.2", dir, repo)).not.toBe(cachePath("capi-core", "v1.14.2", dir, repo));
    });

    it("read the pinned version of their own module, not of a module it prefixes", () => {
      expect(requiredVersion(CAPI_GO_MOD, BINARIES["capi-core"].module)).toBe("v1.14.2");
      expect(requiredVersion("require sigs.k8s.io/cluster-api/api v1.14.2\n", BINARIES["capi-core"].module)).toBeUndefined();
      expect(BINARIES["capi-dev"].module).toBe("sigs.k8s.io/cluster-api/test");
    });

    it("take the environment variable, never PATH, and name it when missing", async () => {
      fakeEtcd(join(bin, "given"), "0.0.1");
      for (const [name, envVar] of [
        ["capi-core", "CAPI_CORE_BIN"],
        ["capi-kubeadm-bootstrap", "CAPI_KUBEADM_BOOTSTRAP_BIN"],
        ["capi-kubeadm-control-plane", "CAPI_KUBEADM_CONTROL_PLANE_BIN"],
        ["capi-dev", "CAPI_DEV_BIN"],
        ["capi-operator", "CAPI_OPERATOR_BIN"],
      ] as const) {
        expect(BINARIES[name].envVar).toBe(envVar);
        expect(await resolveBinary(name, { repoRoot: repo, env: { [envVar]: join(bin, "given"), PATH: "" }, build: false })).toMatchObject({
          path: join(bin, "given"),
          source: "env",
          version: name === "capi-operator" ? "v0.29.0" : "v1.14.2",
        });
      }
      // Running a manager to ask its version would start it: one on PATH is not taken.
      fakeEtcd(join(bin, "capi-core"), "1.14.2");
      await expect(resolveBinary("capi-core", { repoRoot: repo, env: { PATH: bin }, build: false })).rejects.toThrow(
        "capi-core v1.14.2 not found: set CAPI_CORE_BIN, or build it with `pnpm binaries capi-core`",
      );
    });

    it("finds the cached build", async () => {
      const cached = cachePath("capi-dev", "v1.14.2", wrapperDir("capi-dev", repo), repo);
      mkdirSync(join(cached, ".."), { recursive: true });
      fakeEtcd(cached, "unused");
      expect(await resolveBinary("capi-dev", { repoRoot: repo, env: { PATH: "" }, build: false })).toMatchObject({ path: cached, source: "cache" });
    });

    it("stamp the version package as upstream's release script does", () => {
      expect(BINARIES["capi-core"].ldflags({ version: "v1.14.2", kubernetes: "v1.35.0" })).toBe(
        "-X sigs.k8s.io/cluster-api/version.gitVersion=v1.14.2 -X sigs.k8s.io/cluster-api/version.gitMajor=1 " +
          "-X sigs.k8s.io/cluster-api/version.gitMinor=14 -X sigs.k8s.io/cluster-api/version.gitTreeState=clean",
      );
      expect(BINARIES["capi-dev"].ldflags({ version: "v1.14.2" })).toBe(BINARIES["capi-core"].ldflags({ version: "v1.14.2" }));
      expect(BINARIES["capi-operator"].ldflags({ version: "v0.29.0" })).toBe(
        "-X sigs.k8s.io/cluster-api-operator/version.gitVersion=v0.29.0 -X sigs.k8s.io/cluster-api-operator/version.gitMajor=0 " +
          "-X sigs.k8s.io/cluster-api-operator/version.gitMinor=29 -X sigs.k8s.io/cluster-api-operator/version.gitTreeState=clean",
      );
    });
  });
});
