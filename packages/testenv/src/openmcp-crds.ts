/**
 * openMCP's CRDs (Cluster, ClusterProfile, ClusterRequest, AccessRequest,
 * ClusterProvider, ...) as the pinned openmcp-operator API module ships them
 * in crds/manifests/, for tests that play openMCP's platform cluster on a
 * plain kube-apiserver.
 *
 * The module is pinned like the binaries, by a wrapper module in
 * scripts/modules/openmcp-api/ whose go.sum holds its checksums; `go mod
 * download` run there fetches it into the Go module cache and verifies it.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { parseManifests } from "./apply.js";
import { REPO_ROOT, requiredVersion } from "./binaries.js";
import { applyCrds } from "./cluster-api.js";
import { BinaryUnavailableError } from "./errors.js";

const run = promisify(execFile);

const MODULE = "github.com/openmcp-project/openmcp-operator/api";

export interface OpenMcpApiSource {
  /** The module's directory in the Go module cache. */
  readonly dir: string;
  readonly version: string;
  /** Its CRD manifests, one CRD a file. */
  readonly crdDir: string;
}

/** The pinned openMCP API module, downloaded (and checked against go.sum) when missing. */
export async function openMcpApiSource(repoRoot = REPO_ROOT): Promise<OpenMcpApiSource> {
  const wrapper = join(repoRoot, "scripts", "modules", "openmcp-api");
  const version = requiredVersion(readFileSync(join(wrapper, "go.mod"), "utf8"), MODULE);
  if (version === undefined) throw new BinaryUnavailableError(`${wrapper}/go.mod does not require ${MODULE}`);
  try {
    const { stdout } = await run("go", ["mod", "download", "-json", `${MODULE}@${version}`], { cwd: wrapper });
    const { Dir: dir } = JSON.parse(stdout) as { Dir: string };
    return { dir, version, crdDir: join(dir, "crds", "manifests") };
  } catch (err) {
    const detail = err instanceof Error && "stderr" in err ? `${String(err.stderr)}${"stdout" in err ? String(err.stdout) : ""}` : String(err);
    throw new BinaryUnavailableError(`${MODULE}@${version} is not available: ${detail.trim()}`);
  }
}

export interface InstallOpenMcpCrdsOptions {
  /** CRD kinds (`spec.names.kind`) to install, e.g. ["Cluster", "ClusterRequest"]; default all. */
  readonly kinds?: readonly string[];
  readonly repoRoot?: string;
}

/** Installs openMCP's CRDs and waits until they are served; returns the CRDs' names. */
export async function installOpenMcpCrds(client: RestClient, options: InstallOpenMcpCrdsOptions = {}): Promise<string[]> {
  const { crdDir, version } = await openMcpApiSource(options.repoRoot);
  const all = readdirSync(crdDir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .flatMap((file) => parseManifests(readFileSync(join(crdDir, file), "utf8")));
  const kindOf = (crd: KubeObject): string => (crd.spec as { names?: { kind?: string } } | undefined)?.names?.kind ?? "";
  const unknown = (options.kinds ?? []).filter((kind) => !all.some((crd) => kindOf(crd) === kind));
  if (unknown.length > 0) {
    throw new Error(`openMCP API ${version} has no CRD of kind ${unknown.join(", ")} (it has ${all.map(kindOf).join(", ")})`);
  }
  const crds = options.kinds === undefined ? all : all.filter((crd) => options.kinds?.includes(kindOf(crd)));
  await applyCrds(client, crds);
  return crds.map((crd) => crd.metadata?.name ?? "");
}
