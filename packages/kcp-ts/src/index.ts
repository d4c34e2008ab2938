/**
 * @edgeconnect/kcp-ts: talking to kcp and Kubernetes API servers.
 *
 * - `RestClient`: JSON requests and watches on any path, kcp's
 *   `/clusters/<name>`, `/clusters/*` and virtual-workspace URLs included, with
 *   credentials and TLS from a kubeconfig.
 * - `ApiDiscovery`: which resource serves a kind, for objects of kinds not
 *   known in advance (manifests, templates); `applyManifests` on it.
 * - Logical-cluster identity: the `kcp.io/cluster` annotation and the tenant
 *   `fingerprint` (first 12 hex characters of SHA-256).
 * - Types of kcp's API objects, generated from kcp's own CRDs at the pinned
 *   version (`scripts/generate-kcp-types.mjs`), and a typed registry of the
 *   kcp resources with `resourcePath`.
 *
 * @module
 */
export { ApiDiscovery, UnknownKindError, type DiscoveredResource } from "./api-discovery.js";
export { HttpStatusError, RequestTimeoutError, type Status } from "./errors.js";
export { deleteIfPresent, getIfPresent, isNotFound } from "./not-found.js";
export { kubeconfigCredentials, type KubeconfigCredential } from "./kubeconfig-credentials.js";
export {
  Kubeconfig,
  SERVICE_ACCOUNT_DIR,
  type ClientNodeImporter,
  type InClusterOptions,
  type KubeconfigOptions,
  type KubeconfigSource,
  type KubeconfigUser,
} from "./kubeconfig.js";
export { CLUSTER_ANNOTATION, clusterOf, fingerprint } from "./logical-cluster.js";
export { applyManifests, manifestPath, parseManifests, type ManifestTarget } from "./manifests.js";
export { jsonMergePatch } from "./merge-patch.js";
export {
  RestClient,
  type KubeList,
  type KubeObject,
  type ObjectMeta,
  type RequestOptionsLite,
  type WatchEvent,
} from "./rest-client.js";
export * from "./generated/index.js";
export {
  APIBINDING,
  APIEXPORT,
  APIEXPORT_ENDPOINT_SLICE,
  APIRESOURCE_SCHEMA,
  KCP_RESOURCES,
  LOGICAL_CLUSTER,
  WORKSPACE,
  WORKSPACE_TYPE,
  defineResource,
  isObjectOf,
  resourcePath,
  type GroupOf,
  type KcpResource,
  type ObjectOf,
  type ResourceCoordinates,
  type ResourcePathOptions,
  type TypedObject,
  type VersionOf,
} from "./kcp-resources.js";
