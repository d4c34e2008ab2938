/**
 * API paths of our kinds, relative to a server or workspace URL: callers put
 * them below `/clusters/<workspace>` or a virtual-workspace URL themselves.
 */

/** A kind as its CRD declares it (the constants in `generated/resources.ts`). */
export interface PlatformResource {
  readonly group: string;
  readonly version: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly scope: "Namespaced" | "Cluster";
  /** Served to tenants through the APIExport; otherwise only in the provider workspace. */
  readonly exported: boolean;
}

/** What a path needs of a kind; any API's kinds fit, not only ours. */
export type ResourcePathParts = Pick<PlatformResource, "group" | "version" | "kind" | "plural" | "scope">;

/**
 * The collection: `/apis/<group>/<version>/[namespaces/<ns>/]<plural>`.
 * Without a namespace, a namespaced kind's collection across all namespaces
 * (list and watch only). A namespace for a cluster-scoped kind throws.
 */
export function collectionPath(resource: ResourcePathParts, namespace?: string): string {
  const base = `/apis/${resource.group}/${resource.version}`;
  if (namespace === undefined) return `${base}/${resource.plural}`;
  if (resource.scope === "Cluster") throw new TypeError(`${resource.kind} is cluster-scoped; it has no namespace (got "${namespace}")`);
  return `${base}/namespaces/${segment(namespace, "namespace")}/${resource.plural}`;
}

/**
 * One object: `/apis/<group>/<version>/[namespaces/<ns>/]<plural>/<name>`.
 * `namespace` must be given for a namespaced kind and undefined for a
 * cluster-scoped one; append `/status` for the status subresource.
 */
export function objectPath(resource: ResourcePathParts, namespace: string | undefined, name: string): string {
  if (resource.scope === "Namespaced" && namespace === undefined) {
    throw new TypeError(`${resource.kind} is namespaced; name the namespace of "${name}"`);
  }
  return `${collectionPath(resource, namespace)}/${segment(name, "name")}`;
}

function segment(value: string, what: string): string {
  if (value === "") throw new TypeError(`empty ${what}`);
  return encodeURIComponent(value);
}
