/**
 * @edgeconnect/kcp-ts: talking to kcp and Kubernetes API servers.
 *
 * - `RestClient`: JSON requests and watches on any path, kcp's
 *   `/clusters/<name>`, `/clusters/*` and virtual-workspace URLs included, with
 *   credentials and TLS from a kubeconfig.
 * - Logical-cluster identity: the `kcp.io/cluster` annotation and the tenant
 *   `fingerprint` (first 12 hex characters of SHA-256).
 *
 * @module
 */
export { HttpStatusError, type Status } from "./errors.js";
export { CLUSTER_ANNOTATION, clusterOf, fingerprint } from "./logical-cluster.js";
export {
  RestClient,
  type KubeList,
  type KubeObject,
  type ObjectMeta,
  type RequestOptionsLite,
  type WatchEvent,
} from "./rest-client.js";
