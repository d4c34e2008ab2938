/**
 * @edgeconnect/api: the platform.edgeconnect.eu/v1alpha1 API. The CRDs in
 * `crds/` are the source of truth; the types, the resource constants and the
 * kcp objects in `apiexports/platform.edgeconnect.eu/` are generated from them
 * by scripts/generate-api.mjs. No runtime dependencies.
 *
 * @module
 */
export type * from "./generated/platform.edgeconnect.eu-v1alpha1.js";
export * from "./generated/resources.js";
export type { ObjectMeta } from "./object-meta.js";
export { collectionPath, objectPath, type PlatformResource, type ResourcePathParts } from "./resource-paths.js";
