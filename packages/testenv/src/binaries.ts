/**
 * Where the server binaries and the helm CLI come from. For each binary, in
 * order: the path in its environment variable (trusted as is), a binary of the
 * pinned version on PATH, the repository's cache, and last a build from the Go
 * module proxy with the committed wrapper module in `scripts/binaries/<name>/`
 * (or the spec's `wrapper` folder, which the Cluster API managers share).
 *
 * The cache key holds the pinned version and a hash of the wrapper's files
 * (go.mod, go.sum, compat/), so changing any builds anew and a second run
 * costs nothing.
 *
 * Compat modules: where the module proxy lacks a version upstream pins, the
 * wrapper's go.mod replaces that module with a directory
 * `.cache/go-src/<name>@<version>`; it is made before the build from the
 * proxy's copy of that version plus the files in the wrapper's
 * `compat/<name>@<version>/` (see scripts/binaries/README.md).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BinaryUnavailableError } from "./errors.js";
import { acquireFileLock } from "./file-lock.js";
import { cachedPromise } from "./promise-cache.js";

const run = promisify(execFile);

export type BinaryName =
  | "kcp"
  | "kube-apiserver"
  | "kube-controller-manager"
  | "etcd"
  | "helm"
  | "capi-core"
  | "capi-kubeadm-bootstrap"
  | "capi-kubeadm-control-plane"
  | "capi-dev"
  | "capi-operator"
  | "crossplane-otc-simulator"
  | "widget-controller-go";

export interface BinarySpec {
  readonly name: BinaryName;
  /** Environment variable that names a binary to use as is. */
  readonly envVar: string;
  /** The Go module the wrapper requires. */
  readonly module: string;
  /**
   * The folder under scripts/binaries/ holding the wrapper module, when it is
   * not the binary's name: the Cluster API managers share one module graph,
   * so one wrapper builds all three.
   */
  readonly wrapper?: string;
  /**
   * False for binaries that cannot tell their version without starting (the
   * Cluster API managers have no version flag and run when called): a
   * binary of that name on PATH cannot be checked, so only the environment
   * variable and the cache are trusted.
   */
  readonly onPath?: boolean;
  /** The main package to build. */
  readonly mainPackage: string;
  /** Arguments that make the binary print its version. */
  readonly versionArgs: readonly string[];
  /** Whether `--version` output shows the pinned version. */
  matchesVersion(output: string, pinned: PinnedVersions): boolean;
  /** -ldflags for the build, stamping the version like upstream's release builds. */
  ldflags(pinned: PinnedVersions): string;
}

/** Versions of a build: the wrapped module's, and the Kubernetes one it builds on. */
export interface PinnedVersions {
  /** The version of the wrapped module, e.g. v0.32.3. */
  readonly version: string;
  /**
   * The Kubernetes version the wrapped module builds on (known at build time):
   * its k8s.io/kubernetes requirement, else the one its k8s.io/client-go
   * belongs to.
   */
  readonly kubernetes?: string;
}

/** Version stamping of client-go and component-base, as Kubernetes' own builds do. */
function kubeVersionFlags(gitVersion: string, kubernetes: string): string {
  const [, major = "", minor = ""] = /^v(\d+)\.(\d+)/.exec(kubernetes) ?? [];
  return ["k8s.io/client-go/pkg/version", "k8s.io/component-base/version"]
    .flatMap((pkg) => [
      `-X ${pkg}.gitVersion=${gitVersion}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    ])
    .join(" ");
}

/**
 * helm's release builds stamp the Kubernetes version its client-go belongs to
 * into the defaults of `helm template` (`.Capabilities.KubeVersion`) and of
 * `helm lint`'s deprecation check; unstamped, both assume Kubernetes 1.20.
 */
function helmFlags(pinned: PinnedVersions): string {
  const flags = [`-X helm.sh/helm/v3/internal/version.version=${pinned.version}`, "-X helm.sh/helm/v3/internal/version.gitTreeState=clean"];
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(pinned.kubernetes ?? "") ?? [];
  if (major !== undefined && minor !== undefined) {
    for (const pkg of ["helm.sh/helm/v3/pkg/lint/rules", "helm.sh/helm/v3/pkg/chartutil"]) {
      flags.push(`-X ${pkg}.k8sVersionMajor=${major}`, `-X ${pkg}.k8sVersionMinor=${minor}`);
    }
  }
  return flags.join(" ");
}

/**
 * What Cluster API's release script (hack/scripts/release/version.sh, and the
 * operator's hack/version.sh) stamps into `<module>/version`. The commit,
 * release commit and build date are left out: the module proxy does not tell
 * the commit, and a date would make the build differ run to run.
 */
function clusterApiFlags(versionPackage: string) {
  return (pinned: PinnedVersions): string => {
    const [, major = "", minor = ""] = /^v(\d+)\.(\d+)/.exec(pinned.version) ?? [];
    return [
      `-X ${versionPackage}.gitVersion=${pinned.version}`,
      `-X ${versionPackage}.gitMajor=${major}`,
      `-X ${versionPackage}.gitMinor=${minor}`,
      `-X ${versionPackage}.gitTreeState=clean`,
    ].join(" ");
  };
}

/** A Cluster API manager: no version flag, so never taken from PATH. */
function clusterApiManager(
  name: BinaryName,
  envVar: string,
  module: string,
  wrapper: string,
  mainPackage: string,
  ldflags: (pinned: PinnedVersions) => string,
): BinarySpec {
  return {
    name,
    envVar,
    module,
    wrapper,
    mainPackage,
    onPath: false,
    versionArgs: [],
    matchesVersion: () => false,
    ldflags,
  };
}

const capiFlags = clusterApiFlags("sigs.k8s.io/cluster-api/version");

export const BINARIES: Readonly<Record<BinaryName, BinarySpec>> = {
  kcp: {
    name: "kcp",
    envVar: "KCP_BIN",
    module: "github.com/kcp-dev/kcp",
    mainPackage: "github.com/kcp-dev/kcp/cmd/kcp",
    versionArgs: ["--version"],
    matchesVersion: (output, pinned) => output.includes(`+kcp-${pinned.version}`),
    ldflags: (pinned) => kubeVersionFlags(`${pinned.kubernetes ?? "v0.0.0"}+kcp-${pinned.version}`, pinned.kubernetes ?? "v0.0.0"),
  },
  "kube-apiserver": {
    name: "kube-apiserver",
    envVar: "KUBE_APISERVER_BIN",
    module: "k8s.io/kubernetes",
    mainPackage: "k8s.io/kubernetes/cmd/kube-apiserver",
    versionArgs: ["--version"],
    matchesVersion: (output, pinned) => new RegExp(`\\b${escape(pinned.version)}\\b`).test(output),
    ldflags: (pinned) => kubeVersionFlags(pinned.version, pinned.version),
  },
  // Same module as kube-apiserver, so the same wrapper (go.mod, go.sum) builds it.
  "kube-controller-manager": {
    name: "kube-controller-manager",
    envVar: "KUBE_CONTROLLER_MANAGER_BIN",
    module: "k8s.io/kubernetes",
    wrapper: "kube-apiserver",
    mainPackage: "k8s.io/kubernetes/cmd/kube-controller-manager",
    versionArgs: ["--version"],
    matchesVersion: (output, pinned) => new RegExp(`\\b${escape(pinned.version)}\\b`).test(output),
    ldflags: (pinned) => kubeVersionFlags(pinned.version, pinned.version),
  },
  etcd: {
    name: "etcd",
    envVar: "ETCD_BIN",
    module: "go.etcd.io/etcd/server/v3",
    mainPackage: "go.etcd.io/etcd/server/v3",
    versionArgs: ["--version"],
    matchesVersion: (output, pinned) => output.includes(`etcd Version: ${pinned.version.replace(/^v/, "")}`),
    // etcd hard-codes its version; only the commit would be stamped, and the
    // module proxy does not tell it.
    ldflags: () => "",
  },
  helm: {
    name: "helm",
    envVar: "HELM_BIN",
    module: "helm.sh/helm/v3",
    mainPackage: "helm.sh/helm/v3/cmd/helm",
    // `version --short` prints e.g. v3.22.0, or v3.22.0+g<commit> for upstream's releases.
    versionArgs: ["version", "--short"],
    matchesVersion: (output, pinned) => new RegExp(`^${escape(pinned.version)}(?:\\+\\S*)?$`, "m").test(output.trim()),
    ldflags: helmFlags,
  },
  "capi-core": clusterApiManager(
    "capi-core",
    "CAPI_CORE_BIN",
    "sigs.k8s.io/cluster-api",
    "cluster-api",
    // Upstream's Makefile (manager-core) builds this package, not cmd/.
    "sigs.k8s.io/cluster-api/core",
    capiFlags,
  ),
  "capi-kubeadm-bootstrap": clusterApiManager(
    "capi-kubeadm-bootstrap",
    "CAPI_KUBEADM_BOOTSTRAP_BIN",
    "sigs.k8s.io/cluster-api",
    "cluster-api",
    "sigs.k8s.io/cluster-api/bootstrap/kubeadm",
    capiFlags,
  ),
  "capi-kubeadm-control-plane": clusterApiManager(
    "capi-kubeadm-control-plane",
    "CAPI_KUBEADM_CONTROL_PLANE_BIN",
    "sigs.k8s.io/cluster-api",
    "cluster-api",
    "sigs.k8s.io/cluster-api/controlplane/kubeadm",
    capiFlags,
  ),
  // The development (CAPD) provider lives in the test module but stamps the
  // core module's version package, as upstream's manager-docker-infrastructure does.
  "capi-dev": clusterApiManager(
    "capi-dev",
    "CAPI_DEV_BIN",
    "sigs.k8s.io/cluster-api/test",
    "cluster-api-dev",
    "sigs.k8s.io/cluster-api/test/infrastructure/docker",
    capiFlags,
  ),
  "capi-operator": clusterApiManager(
    "capi-operator",
    "CAPI_OPERATOR_BIN",
    "sigs.k8s.io/cluster-api-operator",
    "cluster-api-operator",
    "sigs.k8s.io/cluster-api-operator/cmd",
    clusterApiFlags("sigs.k8s.io/cluster-api-operator/version"),
  ),
  // Our own test support, not an upstream binary: its wrapper folder holds
  // the simulator's source, pinned to the crossplane-runtime the real
  // provider pins. It has no version flag, so only the environment variable
  // and the cache (keyed by a hash of the source) are trusted.
  "crossplane-otc-simulator": {
    name: "crossplane-otc-simulator",
    envVar: "CROSSPLANE_OTC_SIMULATOR_BIN",
    module: "github.com/crossplane/crossplane-runtime/v2",
    mainPackage: ".",
    onPath: false,
    versionArgs: [],
    matchesVersion: () => false,
    ldflags: () => "",
  },
  // Our own too: the Go peer of `bench:runtime --peer go`, the widget
  // controller on kcp's multicluster-provider (whose version names it),
  // multicluster-runtime and controller-runtime. No version flag either.
  "widget-controller-go": {
    name: "widget-controller-go",
    envVar: "WIDGET_CONTROLLER_GO_BIN",
    module: "github.com/kcp-dev/multicluster-provider",
    mainPackage: ".",
    onPath: false,
    versionArgs: [],
    matchesVersion: () => false,
    ldflags: () => "",
  },
};

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The repository root, from this file's place in packages/testenv/{src,dist}/. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export function wrapperDir(name: BinaryName, repoRoot = REPO_ROOT): string {
  return join(repoRoot, "scripts", "binaries", BINARIES[name].wrapper ?? name);
}

/** The version of `module` a go.mod requires. */
export function requiredVersion(goMod: string, module: string): string | undefined {
  // Matches both `require m v` and a line inside a `require ( ... )` block,
  // but not the left side of a replace (which is followed by `=>`).
  const line = new RegExp(`^(?:require\\s+|\\s+)${escape(module)}\\s+(v\\S+)(?:\\s*//.*)?$`, "m");
  return line.exec(goMod)?.[1];
}

/**
 * The Kubernetes version a module's go.mod builds on: its k8s.io/kubernetes
 * requirement, else the release that its k8s.io/client-go v0.X.Y belongs to
 * (v1.X.Y).
 */
export function kubernetesVersion(goMod: string): string | undefined {
  const kubernetes = requiredVersion(goMod, "k8s.io/kubernetes");
  if (kubernetes !== undefined) return kubernetes;
  const clientGo = requiredVersion(goMod, "k8s.io/client-go");
  const match = clientGo === undefined ? null : /^v0\.(\d+\.\d+)$/.exec(clientGo);
  return match === null ? undefined : `v1.${match[1]}`;
}

/** Every file of a wrapper directory, relative to it, sorted. */
function wrapperFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** `.cache/bin/<name>-<version>-<hash of the wrapper's files>/<name>`. */
export function cachePath(name: BinaryName, version: string, dir: string, repoRoot = REPO_ROOT): string {
  const hash = createHash("sha256");
  for (const file of wrapperFiles(dir)) hash.update(file).update("\0").update(readFileSync(join(dir, file))).update("\0");
  return join(repoRoot, ".cache", "bin", `${name}-${version}-${hash.digest("hex").slice(0, 12)}`, name);
}

interface CompatModule {
  readonly module: string;
  /** `<name>@<version>`: the directory name under .cache/go-src and compat/. */
  readonly id: string;
  readonly version: string;
  /** Absolute path of the directory the go.mod replace points at. */
  readonly target: string;
}

/** Replaces in a wrapper go.mod that point into `.cache/go-src/`. */
export function compatModules(goMod: string, dir: string): CompatModule[] {
  const replace = /^\s*(\S+)\s+=>\s+(\S*\.cache\/go-src\/([^/\s]+@(v[^/\s]+)))\s*$/gm;
  return [...goMod.matchAll(replace)].map(([, module = "", target = "", id = "", version = ""]) => ({
    module,
    id,
    version,
    target: resolve(dir, target),
  }));
}

interface ModuleInfo {
  readonly Dir: string;
  readonly GoMod: string;
}

/** `go mod download -json` answers, by module@version and the directory it ran in. */
const moduleInfos = new Map<string, Promise<ModuleInfo>>();

/**
 * Downloads a module through the proxy; where its files and go.mod are. Once
 * per module version and directory: a version's files in the module cache
 * never change, and `go mod download` costs a process and, with a module
 * directory as `cwd`, a go.sum check on every call.
 */
function moduleInfo(module: string, version: string, cwd?: string): Promise<ModuleInfo> {
  // Without `cwd`, go runs in this process's directory, so that is part of the key.
  return cachedPromise(moduleInfos, `${module}@${version}\0${resolve(cwd ?? process.cwd())}`, async () => {
    const { stdout } = await run("go", ["mod", "download", "-json", `${module}@${version}`], cwd === undefined ? {} : { cwd });
    return JSON.parse(stdout) as ModuleInfo;
  });
}

/** `goModDir`/go.mod and the version of `module` it requires; BinaryUnavailableError when it requires none. */
function pinnedVersion(goModDir: string, module: string): { readonly goMod: string; readonly version: string } {
  const goMod = readFileSync(join(goModDir, "go.mod"), "utf8");
  const version = requiredVersion(goMod, module);
  if (version === undefined) throw new BinaryUnavailableError(`${goModDir}/go.mod does not require ${module}`);
  return { goMod, version };
}

export interface PinnedModuleOptions {
  /**
   * Where `go mod download` runs; default this process's directory. In a
   * wrapper module's directory the download is checked against its go.sum.
   */
  readonly cwd?: string;
}

/**
 * The version of `module` that `goModDir`/go.mod requires, and the module's
 * files at that version as the Go module cache holds them (downloaded
 * through the proxy when missing). BinaryUnavailableError when go.mod does
 * not require it or the download fails.
 */
export async function pinnedModule(goModDir: string, module: string, options: PinnedModuleOptions = {}): Promise<{ readonly dir: string; readonly version: string }> {
  const { version } = pinnedVersion(goModDir, module);
  try {
    return { dir: (await moduleInfo(module, version, options.cwd)).Dir, version };
  } catch (err) {
    throw new BinaryUnavailableError(`the sources of ${module}@${version} are not available: ${downloadFailure(err)}`);
  }
}

/**
 * Why a download failed: the error's message (for a failed command, with its
 * stderr) and the command's stdout, where `go mod download -json` puts the
 * reason (its "Error" field).
 */
function downloadFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const stdout = "stdout" in err ? String(err.stdout).trim() : "";
  return [err.message.trim(), stdout].filter((part) => part !== "").join("\n");
}

/** Makes each compat module's directory: the proxy's copy plus our files. */
async function prepareCompatModules(goMod: string, dir: string): Promise<void> {
  for (const compat of compatModules(goMod, dir)) {
    const source = (await moduleInfo(compat.module, compat.version)).Dir;
    rmSync(compat.target, { recursive: true, force: true });
    cpSync(source, compat.target, { recursive: true });
    // The module cache is read-only; the copy must take our files.
    for (const entry of readdirSync(compat.target, { recursive: true, withFileTypes: true })) {
      chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
    }
    chmodSync(compat.target, 0o755);
    const additions = join(dir, "compat", compat.id);
    for (const file of wrapperFiles(additions)) {
      mkdirSync(dirname(join(compat.target, file)), { recursive: true });
      cpSync(join(additions, file), join(compat.target, file));
    }
  }
}

export type BinarySource = "env" | "path" | "cache" | "built";

export interface ResolvedBinary {
  readonly name: BinaryName;
  readonly path: string;
  readonly source: BinarySource;
  readonly version: string;
}

export interface ResolveOptions {
  /** Build from the module proxy when nothing else is found. Default true. */
  readonly build?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly repoRoot?: string;
  /** Progress messages (builds take minutes). */
  readonly log?: (message: string) => void;
}

export async function resolveBinary(name: BinaryName, options: ResolveOptions = {}): Promise<ResolvedBinary> {
  const spec = BINARIES[name];
  const env = options.env ?? process.env;
  const repoRoot = options.repoRoot ?? REPO_ROOT;
  const dir = wrapperDir(name, repoRoot);
  // Only the version: a binary given or cached needs no download of the module.
  const { goMod, version } = pinnedVersion(dir, spec.module);
  const pinned: PinnedVersions = { version };

  const given = env[spec.envVar];
  if (given !== undefined && given !== "") {
    if (!existsSync(given)) throw new BinaryUnavailableError(`${spec.envVar}=${given} does not exist`);
    return { name, path: given, source: "env", version: pinned.version };
  }

  const onPath = spec.onPath === false ? undefined : findOnPath(name, env.PATH ?? "");
  if (onPath !== undefined && (await versionMatches(onPath, spec, pinned))) {
    return { name, path: onPath, source: "path", version: pinned.version };
  }

  const cached = cachePath(name, pinned.version, dir, repoRoot);
  if (existsSync(cached)) return { name, path: cached, source: "cache", version: pinned.version };

  if (options.build === false) {
    throw new BinaryUnavailableError(
      `${name} ${pinned.version} not found: set ${spec.envVar}, ${spec.onPath === false ? "" : "put it on PATH, "}or build it with \`pnpm binaries ${name}\``,
    );
  }
  const log = options.log ?? (() => undefined);
  // One build per binary at a time on this machine: a second caller (another
  // Jest worker, the background build of scripts/test.sh) waits for the
  // first and takes its result from the cache.
  mkdirSync(dirname(cached), { recursive: true });
  const lock = await acquireFileLock(`${cached}.lock`, BUILD_LOCK_TIMEOUT_MS, log);
  try {
    if (existsSync(cached)) return { name, path: cached, source: "cache", version: pinned.version };
    await build(spec, pinned, dir, goMod, cached, log);
  } finally {
    lock.release();
  }
  return { name, path: cached, source: "built", version: pinned.version };
}

/** Longer than the longest cold build measured here (kcp, 322 s on two cores, modules not yet downloaded). */
const BUILD_LOCK_TIMEOUT_MS = 30 * 60_000;

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

async function versionMatches(binary: string, spec: BinarySpec, pinned: PinnedVersions): Promise<boolean> {
  try {
    const { stdout, stderr } = await run(binary, [...spec.versionArgs], { timeout: 10_000 });
    return spec.matchesVersion(stdout + stderr, pinned);
  } catch {
    return false;
  }
}

async function build(
  spec: BinarySpec,
  pinned: PinnedVersions,
  dir: string,
  goMod: string,
  target: string,
  log: (m: string) => void,
): Promise<void> {
  const started = Date.now();
  log(`building ${spec.name} ${pinned.version} from the Go module proxy (the first build takes several minutes)`);
  await prepareCompatModules(goMod, dir);
  const upstream = await moduleInfo(spec.module, pinned.version);
  const kubernetes = spec.module === "k8s.io/kubernetes" ? pinned.version : kubernetesVersion(readFileSync(upstream.GoMod, "utf8"));
  const stamped = kubernetes === undefined ? pinned : { ...pinned, kubernetes };
  const partial = `${target}.partial-${process.pid}`;
  try {
    await run(
      "go",
      ["build", "-mod=readonly", "-trimpath", `-ldflags=${linkFlags(spec.ldflags(stamped))}`, "-o", partial, spec.mainPackage],
      {
        cwd: dir,
        env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-buildvcs=false" },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } catch (err) {
    rmSync(partial, { force: true });
    const detail = err instanceof Error && "stderr" in err ? String(err.stderr).slice(-4000) : String(err);
    throw new BinaryUnavailableError(`building ${spec.name} ${pinned.version} failed:\n${detail}`);
  }
  // The rename makes the binary appear whole to callers that did not wait for the lock.
  renameSync(partial, target);
  log(`built ${spec.name} ${pinned.version} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Every build is stripped (`-s -w`), as Cluster API's release builds are:
 * no symbol table or DWARF to write, so each link is shorter, and a warm run
 * (a fresh clone on a machine whose Go build cache is filled) only links.
 * Nothing the tests see changes: a Go panic's trace comes from the
 * runtime's own tables, which stripping keeps.
 */
export function linkFlags(ldflags: string): string {
  return ldflags === "" ? "-s -w" : `${ldflags} -s -w`;
}

/**
 * The source of the module a binary is built from, as the Go module cache
 * holds it (downloaded through the proxy when missing): manifests such as
 * CRDs and webhook configurations belong to exactly the pinned version.
 */
export async function moduleSource(name: BinaryName, repoRoot = REPO_ROOT): Promise<{ readonly dir: string; readonly version: string }> {
  return pinnedModule(wrapperDir(name, repoRoot), BINARIES[name].module);
}
