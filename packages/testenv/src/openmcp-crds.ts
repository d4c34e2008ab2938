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
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { applyCrds, parseManifests } from "./apply.js";
import { pinnedModule, REPO_ROOT } from "./binaries.js";

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
  // Downloaded in the wrapper's directory: there go checks the module against its go.sum.
  const { dir, version } = await pinnedModule(wrapper, MODULE, { cwd: wrapper });
  return { dir, version, crdDir: join(dir, "crds", "manifests") };
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
