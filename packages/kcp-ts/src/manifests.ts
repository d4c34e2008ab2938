/**
 * Server-side apply of YAML manifests, for any kind the server serves.
 * Resource names and scope come from discovery, so CRDs and kcp's own kinds
 * need no table here.
 */
import { parseAllDocuments } from "yaml";
import { ApiDiscovery, UnknownKindError } from "./api-discovery.js";
import type { KubeObject, RestClient } from "./rest-client.js";

/** What applying needs of a client: discovery reads and server-side apply. */
export type ManifestTarget = Pick<RestClient, "server" | "get" | "apply">;

/** Splits a multi-document YAML text into objects, skipping empty documents. */
export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJSON() as KubeObject | null)
    .filter((obj): obj is KubeObject => obj !== null && typeof obj === "object");
}

/** The URL path of `obj` on the server, from its apiVersion, kind and name. */
export async function manifestPath(client: ManifestTarget, obj: KubeObject): Promise<string> {
  const { apiVersion, kind } = obj;
  const name = obj.metadata?.name;
  if (apiVersion === undefined || kind === undefined || name === undefined) {
    throw new Error(`manifest needs apiVersion, kind and metadata.name: ${JSON.stringify(obj).slice(0, 200)}`);
  }
  try {
    return await new ApiDiscovery(client).objectPath(apiVersion, kind, obj.metadata?.namespace ?? "default", name);
  } catch (err) {
    // Discovery's own message does not name the server, which tells apart the clusters one applies to.
    if (err instanceof UnknownKindError) throw new Error(`${client.server} does not serve ${kind} in ${apiVersion}`, { cause: err });
    throw err;
  }
}

/** Applies each object in order and returns what the server stored. */
export async function applyManifests(client: ManifestTarget, manifests: string | readonly KubeObject[], fieldManager: string): Promise<KubeObject[]> {
  const objects = typeof manifests === "string" ? parseManifests(manifests) : manifests;
  const applied: KubeObject[] = [];
  for (const obj of objects) {
    applied.push(await client.apply(await manifestPath(client, obj), obj, fieldManager));
  }
  return applied;
}
