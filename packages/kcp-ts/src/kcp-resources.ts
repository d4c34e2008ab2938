/**
 * The kcp resources this project uses, each tied to its object type generated
 * from kcp's CRDs (./generated), and the API paths that reach them.
 *
 *     const exp = await client.get<ObjectOf<typeof APIEXPORT>>(resourcePath(APIEXPORT, { name: "edge" }));
 *     exp.spec?.resources; // APIExportV1alpha2Resource[] | undefined
 *
 * Paths are relative to a client's server, so they work below
 * `/clusters/<name>` and virtual-workspace URLs (see `RestClient.cluster`).
 */
import type { APIExportEndpointSliceV1alpha1, APIResourceSchemaV1alpha1 } from "./generated/apis.kcp.io-v1alpha1.js";
import type { APIBindingV1alpha2, APIExportV1alpha2 } from "./generated/apis.kcp.io-v1alpha2.js";
import type { LogicalClusterV1alpha1 } from "./generated/core.kcp.io-v1alpha1.js";
import type { WorkspaceTypeV1alpha1, WorkspaceV1alpha1 } from "./generated/tenancy.kcp.io-v1alpha1.js";

/** An object type with literal `apiVersion` and `kind`, as the generated types have. */
export interface TypedObject {
  apiVersion: string;
  kind: string;
}

/** `apis.kcp.io/v1alpha2` → `apis.kcp.io`; `v1` → `""` (the core group). */
export type GroupOf<A extends string> = string extends A ? string : A extends `${infer G}/${string}` ? G : "";
/** `apis.kcp.io/v1alpha2` → `v1alpha2`; `v1` → `v1`. */
export type VersionOf<A extends string> = string extends A ? string : A extends `${string}/${infer V}` ? V : A;

declare const objectType: unique symbol;

/** Where a resource lives in the API; all `resourcePath` needs. */
export interface ResourceCoordinates {
  /** API group; `""` is the core group (`/api/v1`). */
  readonly group: string;
  readonly version: string;
  /** Resource name in paths, e.g. `apiexports`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

/** A resource and, at the type level, the object type it serves. */
export interface KcpResource<T extends TypedObject = TypedObject> extends ResourceCoordinates {
  readonly kind: T["kind"];
  /** `<group>/<version>`, or `<version>` for the core group. */
  readonly apiVersion: T["apiVersion"];
  /** Type level only, never present at run time. */
  readonly [objectType]?: T;
}

/** The object type of a resource: `ObjectOf<typeof APIEXPORT>` is `APIExportV1alpha2`. */
export type ObjectOf<R> = R extends KcpResource<infer T> ? T : never;

/**
 * Describes a resource serving objects of type `T`. `group`, `version` and
 * `kind` must match `T`'s literal `apiVersion` and `kind`; the compiler
 * rejects anything else.
 */
export function defineResource<T extends TypedObject>(resource: {
  readonly group: GroupOf<T["apiVersion"]>;
  readonly version: VersionOf<T["apiVersion"]>;
  readonly kind: T["kind"];
  readonly plural: string;
  readonly namespaced: boolean;
}): KcpResource<T> {
  const { group, version, kind, plural, namespaced } = resource;
  if (group.includes("/")) throw new TypeError(`invalid API group ${JSON.stringify(group)}`);
  for (const [what, value] of [["version", version], ["kind", kind], ["plural", plural]] as const) {
    checkSegment(what, value);
  }
  const apiVersion = (group === "" ? version : `${group}/${version}`) as T["apiVersion"];
  return Object.freeze({ group, version, kind, plural, namespaced, apiVersion });
}

export interface ResourcePathOptions {
  /** Only for namespaced resources; without it, a namespaced path covers all namespaces. */
  readonly namespace?: string;
  readonly name?: string;
  /** E.g. `status`; needs `name`. */
  readonly subresource?: string;
}

/**
 * `/apis/<group>/<version>[/namespaces/<ns>]/<plural>[/<name>[/<subresource>]]`,
 * or `/api/<version>/...` for the core group. Throws a TypeError for
 * combinations the API server has no path for (a namespace on a
 * cluster-scoped resource, a name of a namespaced resource without its
 * namespace, a subresource without a name) and for segments that are empty or
 * contain `/`.
 */
export function resourcePath(resource: ResourceCoordinates, options: ResourcePathOptions = {}): string {
  const { namespace, name, subresource } = options;
  const segments = resource.group === "" ? ["api", resource.version] : ["apis", resource.group, resource.version];
  if (namespace !== undefined) {
    if (!resource.namespaced) throw new TypeError(`${resource.plural} are cluster-scoped; they have no namespace`);
    segments.push("namespaces", checkSegment("namespace", namespace));
  } else if (resource.namespaced && name !== undefined) {
    throw new TypeError(`${resource.plural} are namespaced; name ${JSON.stringify(name)} needs a namespace`);
  }
  segments.push(resource.plural);
  if (name !== undefined) segments.push(checkSegment("name", name));
  if (subresource !== undefined) {
    if (name === undefined) throw new TypeError(`subresource ${JSON.stringify(subresource)} needs a name`);
    segments.push(checkSegment("subresource", subresource));
  }
  return `/${segments.join("/")}`;
}

/** Whether `obj` declares the resource's apiVersion and kind. */
export function isObjectOf<T extends TypedObject>(resource: KcpResource<T>, obj: unknown): obj is T {
  if (typeof obj !== "object" || obj === null) return false;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  return apiVersion === resource.apiVersion && kind === resource.kind;
}

function checkSegment(what: string, value: string): string {
  if (value === "" || value === "." || value === ".." || /[/?#%]/.test(value)) {
    throw new TypeError(`invalid ${what} ${JSON.stringify(value)} for an API path`);
  }
  return value;
}

export const APIEXPORT = defineResource<APIExportV1alpha2>({
  group: "apis.kcp.io",
  version: "v1alpha2",
  kind: "APIExport",
  plural: "apiexports",
  namespaced: false,
});

export const APIBINDING = defineResource<APIBindingV1alpha2>({
  group: "apis.kcp.io",
  version: "v1alpha2",
  kind: "APIBinding",
  plural: "apibindings",
  namespaced: false,
});

export const APIEXPORT_ENDPOINT_SLICE = defineResource<APIExportEndpointSliceV1alpha1>({
  group: "apis.kcp.io",
  version: "v1alpha1",
  kind: "APIExportEndpointSlice",
  plural: "apiexportendpointslices",
  namespaced: false,
});

export const APIRESOURCE_SCHEMA = defineResource<APIResourceSchemaV1alpha1>({
  group: "apis.kcp.io",
  version: "v1alpha1",
  kind: "APIResourceSchema",
  plural: "apiresourceschemas",
  namespaced: false,
});

export const WORKSPACE = defineResource<WorkspaceV1alpha1>({
  group: "tenancy.kcp.io",
  version: "v1alpha1",
  kind: "Workspace",
  plural: "workspaces",
  namespaced: false,
});

export const WORKSPACE_TYPE = defineResource<WorkspaceTypeV1alpha1>({
  group: "tenancy.kcp.io",
  version: "v1alpha1",
  kind: "WorkspaceType",
  plural: "workspacetypes",
  namespaced: false,
});

/** Every workspace has exactly one, named `cluster`. */
export const LOGICAL_CLUSTER = defineResource<LogicalClusterV1alpha1>({
  group: "core.kcp.io",
  version: "v1alpha1",
  kind: "LogicalCluster",
  plural: "logicalclusters",
  namespaced: false,
});

/** All of the above. */
export const KCP_RESOURCES = [
  APIEXPORT,
  APIBINDING,
  APIEXPORT_ENDPOINT_SLICE,
  APIRESOURCE_SCHEMA,
  WORKSPACE,
  WORKSPACE_TYPE,
  LOGICAL_CLUSTER,
] as const;
