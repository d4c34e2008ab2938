/**
 * Create/get/update/delete of the OTC REST resources whose bodies are wrapped
 * in a singular key (`{"loadbalancer": {...}}`, `{"publicip": {...}}`), as
 * ELB v2, ELB v3, EIP, VPC and keypairs all are, or not wrapped at all (CCE's
 * Kubernetes-style objects). Gets answer undefined for 404 and deletes
 * ignore 404, so reconcilers can repeat them; every other failure throws.
 */
import type { Service } from "./endpoints.js";
import { OtcApiError } from "./errors.js";
import type { OtcCallOptions, OtcClient, OtcRequestOptions } from "./otc-client.js";

/** One REST resource: `service`, its singular body key (none: bodies are the object itself), and the path of its collection. */
export interface ResourceType {
  readonly service: Service;
  readonly key?: string;
  readonly collectionPath: string;
}

/** How OTC objects point at each other: `loadbalancers: [{id}]`, `pools: [{id}]`. */
export interface Ref {
  readonly id: string;
}

/**
 * Whether `refs` names `id`. List filters are repeated client-side with it
 * because OTC's support for the OpenStack filters varies by parameter, and a
 * filter the service ignores must not leak another load balancer's children.
 */
export function refersTo(refs: readonly Ref[] | undefined, id: string): boolean {
  return (refs ?? []).some((ref) => ref.id === id);
}

export async function createResource<T>(client: OtcClient, type: ResourceType, body: object, extra: object = {}, options: OtcCallOptions = {}): Promise<T> {
  const answer = await client.request<Record<string, T>>(type.service, "POST", type.collectionPath, { ...options, body: wrap(type, body, extra) });
  return unwrap(answer, type, "POST", type.collectionPath);
}

/** The resource, or undefined when the service answers 404. */
export async function getResource<T>(client: OtcClient, type: ResourceType, id: string, options: OtcCallOptions = {}): Promise<T | undefined> {
  try {
    const path = itemPath(type, id);
    return unwrap(await client.request<Record<string, T>>(type.service, "GET", path, options), type, "GET", path);
  } catch (error) {
    if (error instanceof OtcApiError && error.notFound) return undefined;
    throw error;
  }
}

export async function updateResource<T>(client: OtcClient, type: ResourceType, id: string, body: object, options: OtcCallOptions = {}): Promise<T> {
  const path = itemPath(type, id);
  return unwrap(await client.request<Record<string, T>>(type.service, "PUT", path, { ...options, body: wrap(type, body) }), type, "PUT", path);
}

/** True if deleted now, false if it was already gone (404). `query` carries delete options (CCE's `delete_evs`, ...). */
export async function deleteResource(
  client: OtcClient,
  type: ResourceType,
  id: string,
  options: OtcCallOptions & Pick<OtcRequestOptions, "query"> = {},
): Promise<boolean> {
  try {
    await client.request<unknown>(type.service, "DELETE", itemPath(type, id), options);
    return true;
  } catch (error) {
    if (error instanceof OtcApiError && error.notFound) return false;
    throw error;
  }
}

function itemPath(type: ResourceType, id: string): string {
  return `${type.collectionPath}/${encodeURIComponent(id)}`;
}

function wrap(type: ResourceType, body: object, extra: object = {}): object {
  return type.key === undefined ? body : { [type.key]: body, ...extra };
}

/** A 2xx answer without the expected key (or object) is a contract breach, reported like an API failure. */
function unwrap<T>(answer: Record<string, T> | undefined, type: ResourceType, method: string, path: string): T {
  const value = type.key === undefined ? (answer as T | undefined) : answer?.[type.key];
  if (value === undefined || value === null || typeof value !== "object") {
    throw new OtcApiError(method, path, 200, JSON.stringify({ message: type.key === undefined ? "answer is no object" : `answer has no "${type.key}" object` }));
  }
  return value;
}
