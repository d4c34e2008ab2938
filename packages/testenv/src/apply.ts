/**
 * Server-side apply of YAML manifests, for any kind the server serves.
 * Resource names and scope come from discovery, so CRDs and kcp's own kinds
 * need no table here.
 */
import { parseAllDocuments } from "yaml";
import { ApiDiscovery, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";

/** What applying needs of a client: discovery reads and server-side apply. */
export type ManifestTarget = Pick<RestClient, "server" | "get" | "apply">;

export const TESTENV_FIELD_MANAGER = "edgeconnect-testenv";

/** Splits a multi-document YAML text into objects, skipping empty documents. */
export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJSON() as KubeObject | null)
    .filter((obj): obj is KubeObject => obj !== null && typeof obj === "object");
}

/** The URL path of `obj` on the server, from its apiVersion, kind and name. */
export async function objectPath(client: ManifestTarget, obj: KubeObject): Promise<string> {
  const { apiVersion, kind } = obj;
  const name = obj.metadata?.name;
  if (apiVersion === undefined || kind === undefined || name === undefined) {
    throw new Error(`manifest needs apiVersion, kind and metadata.name: ${JSON.stringify(obj).slice(0, 200)}`);
  }
  const discovery = new ApiDiscovery(client);
  if ((await discovery.served(apiVersion, kind)) === undefined) throw new Error(`${client.server} does not serve ${kind} in ${apiVersion}`);
  return discovery.objectPath(apiVersion, kind, obj.metadata?.namespace ?? "default", name);
}

/** Applies each object in order and returns what the server stored. */
export async function applyManifests(
  client: ManifestTarget,
  manifests: string | readonly KubeObject[],
  fieldManager = TESTENV_FIELD_MANAGER,
): Promise<KubeObject[]> {
  const objects = typeof manifests === "string" ? parseManifests(manifests) : manifests;
  const applied: KubeObject[] = [];
  for (const obj of objects) {
    applied.push(await client.apply(await objectPath(client, obj), obj, fieldManager));
  }
  return applied;
}
