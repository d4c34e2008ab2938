/**
 * Which resource (plural, scope) serves a kind, from the API server's
 * discovery documents: templated objects may be of any provider's kinds, so
 * their paths cannot be known in advance. One document per group-version is
 * cached; a kind missing from it is looked up again once (the provider's CRD
 * may have arrived since). A group-version the server does not serve is
 * looked up again on each call, since its CRD may come at any time.
 */
import { isNotFound } from "./not-found.js";
import type { RestClient } from "./rest-client.js";

export interface DiscoveredResource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

interface ResourceList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

export class UnknownKindError extends Error {
  override readonly name = "UnknownKindError";
}

export class ApiDiscovery {
  private readonly cache = new Map<string, Map<string, DiscoveredResource>>();

  constructor(private readonly client: Pick<RestClient, "get">) {}

  async resourceFor(apiVersion: string, kind: string, signal?: AbortSignal): Promise<DiscoveredResource> {
    const found = await this.served(apiVersion, kind, signal);
    if (found === undefined) throw new UnknownKindError(`the API server serves no kind ${kind} in ${apiVersion}; is its provider installed?`);
    return found;
  }

  /** The kind as served, or undefined when the API server serves no such kind (or group-version). */
  async served(apiVersion: string, kind: string, signal?: AbortSignal): Promise<DiscoveredResource | undefined> {
    return this.cache.get(apiVersion)?.get(kind) ?? (await this.fetch(apiVersion, signal)).get(kind);
  }

  /** The object's path; `namespace` is ignored for cluster-scoped kinds. */
  async objectPath(apiVersion: string, kind: string, namespace: string, name: string, signal?: AbortSignal): Promise<string> {
    const resource = await this.resourceFor(apiVersion, kind, signal);
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    return `${base}${scope}/${resource.plural}/${encodeURIComponent(name)}`;
  }

  private async fetch(apiVersion: string, signal?: AbortSignal): Promise<Map<string, DiscoveredResource>> {
    const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let list: ResourceList;
    try {
      list = await this.client.get<ResourceList>(path, { ...(signal ? { signal } : {}) });
    } catch (err) {
      if (isNotFound(err)) return new Map();
      throw err;
    }
    const kinds = new Map<string, DiscoveredResource>();
    // Subresources (`clusters/status`) share their parent's kind and come after it.
    for (const resource of list.resources ?? []) {
      if (!resource.name.includes("/") && !kinds.has(resource.kind)) kinds.set(resource.kind, { apiVersion, kind: resource.kind, plural: resource.name, namespaced: resource.namespaced });
    }
    this.cache.set(apiVersion, kinds);
    return kinds;
  }
}
