/**
 * What the platform team applies in the provider workspace before a
 * provider-controller serves tenants: the generated APIResourceSchemas,
 * APIExport, WorkspaceType and flavor catalogue CRD (apiexports/), then the
 * catalogue itself (hack/otc-flavors.yaml). Idempotent: server-side apply.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORM_API_VERSION, PROVIDER_MACHINE_FLAVOR_RESOURCE } from "@edgeconnect/api";
import { applyManifests, HttpStatusError, parseManifests, type RestClient } from "@edgeconnect/kcp-ts";
import { ensureWorkspace, type Kcp } from "./kcp-workspaces.js";
import type { TargetContext } from "./output.js";
import { pollUntil } from "./poll.js";
import { APIEXPORT_DIR, FLAVORS_FILE, shown } from "./repo.js";

export const FIELD_MANAGER = "edgeconnect-make";

export async function installPlatformApi(kcp: Kcp, providerWorkspace: string, context: TargetContext): Promise<RestClient> {
  await ensureWorkspace(kcp, providerWorkspace, { log: context.out.info, signal: context.signal });
  const provider = kcp.workspace(providerWorkspace);
  const documents = readdirSync(APIEXPORT_DIR)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .flatMap((file) => parseManifests(readFileSync(join(APIEXPORT_DIR, file), "utf8")));
  const crds = documents.filter((doc) => doc.kind === "CustomResourceDefinition");
  await applyManifests(provider, crds, FIELD_MANAGER);
  await waitUntilServed(provider, context);
  await applyManifests(provider, documents.filter((doc) => doc.kind !== "CustomResourceDefinition"), FIELD_MANAGER);
  const flavors = await applyManifests(provider, readFileSync(FLAVORS_FILE, "utf8"), FIELD_MANAGER);
  context.out.info(`${providerWorkspace}: APIExport, APIResourceSchemas and WorkspaceType from ${shown(APIEXPORT_DIR)}, ${flavors.length} flavors from ${shown(FLAVORS_FILE)}`);
  return provider;
}

/** A new CRD is served some moments after it is made; the catalogue cannot be applied before. */
async function waitUntilServed(provider: RestClient, context: TargetContext): Promise<void> {
  const served = await pollUntil(async () => (await platformResources(provider))?.includes(PROVIDER_MACHINE_FLAVOR_RESOURCE.plural) === true, {
    timeoutMs: 60_000,
    intervalMs: 500,
    signal: context.signal,
  });
  if (!served) throw new Error(`${PROVIDER_MACHINE_FLAVOR_RESOURCE.plural} is not served in the provider workspace 60 s after its CRD was applied`);
}

/** The resources of our API group that `workspace` serves (discovery); undefined when it serves none (not bound). */
export async function platformResources(workspace: RestClient): Promise<string[] | undefined> {
  try {
    const discovery = await workspace.get<{ resources?: { name: string }[] }>(`/apis/${PLATFORM_API_VERSION}`);
    return (discovery.resources ?? []).map((resource) => resource.name);
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 404) return undefined;
    throw err;
  }
}
